// Task stores at scale: a tasks/list page, a get and a status change among 100,000 stored tasks
// of one owner (and as many of others), for the memory and the SQLite store; and the sweep of
// expired tasks.
#include <mcp/task_store.hpp>

#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include <unistd.h>

namespace {

constexpr int stored = 100'000;

std::shared_ptr<mcp::task_store> filled(bool sqlite, std::chrono::milliseconds ttl) {
  std::shared_ptr<mcp::task_store> store;
  if (sqlite) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("mcp-task-bench-" + std::to_string(::getpid()) + ".db");
    for (const auto* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + ext);
    store = *mcp::make_sqlite_task_store(path.string());
  } else {
    store = mcp::make_memory_task_store();
  }
  const auto now = std::chrono::system_clock::now();
  for (int i = 0; i < stored; ++i) {
    for (const char* owner : {"alice", "bob"}) {
      mcp::task_record t{.id = std::string(owner) + std::to_string(i),
                         .owner = owner,
                         .created_at = now,
                         .last_updated_at = now,
                         .ttl = ttl,
                         .method = "tools/call"};
      (void)store->create(t);
    }
  }
  return store;
}

void list_page(benchmark::State& state) {
  auto store = filled(state.range(0) != 0, std::chrono::hours(1));
  const auto first = store->list("alice", "", 100);
  const std::string cursor = first->next_cursor;
  for (auto _ : state) {
    auto page = store->list("alice", cursor, 100);  // the second page of 100
    benchmark::DoNotOptimize(page);
  }
}
BENCHMARK(list_page)->Arg(0)->Arg(1)->ArgName("sqlite")->Unit(benchmark::kMicrosecond);

void get_and_update(benchmark::State& state) {
  auto store = filled(state.range(0) != 0, std::chrono::hours(1));
  int i = 0;
  for (auto _ : state) {
    const auto id = "alice" + std::to_string(i++ % stored);
    auto t = store->get(id, "alice");
    auto u = store->update(id, "alice", {.status = mcp::task_status::input_required});
    benchmark::DoNotOptimize(t);
    benchmark::DoNotOptimize(u);
  }
}
BENCHMARK(get_and_update)->Arg(0)->Arg(1)->ArgName("sqlite")->Unit(benchmark::kMicrosecond);

void sweep_expired(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    auto store = filled(state.range(0) != 0, std::chrono::milliseconds(0));
    state.ResumeTiming();
    auto n = store->purge_expired(std::chrono::system_clock::now() + std::chrono::seconds(1));
    if (!n || *n != 2 * stored) state.SkipWithError("not every expired task was swept");
  }
}
BENCHMARK(sweep_expired)
    ->Arg(0)
    ->Arg(1)
    ->ArgName("sqlite")
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
