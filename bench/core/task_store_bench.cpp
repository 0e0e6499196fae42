// Task stores at scale: a tasks/list page, a get and a status change among 100,000 stored tasks
// of one owner (and as many of others), for the memory and the SQLite store; the sweep of
// expired tasks; and the task round trip (create, complete, get) by 1 and by 32 callers at once
// on the memory store and the SQLite store at both durabilities (group commit at work).
#include <mcp/task_store.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "detail/sqlite_store_counts.hpp"
#include <sys/resource.h>
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

// The task round trip as a server makes it: create -> update (completed) -> get of a new task,
// by 1 and by 32 callers at once on one store (store:0 memory, 1 SQLite at process_crash, 2
// SQLite at power_loss). p50/p99: each caller's own percentiles of its round trips
// (microseconds), averaged over the callers; cpu_us: the process's CPU time (every thread's)
// per round trip; tx_per_rt: SQLite transactions per round trip (two writes each).
std::shared_ptr<mcp::task_store> round_trip_store;  // shared by the benchmark's threads
double cpu_start_us = 0;

double process_cpu_us() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  const auto us = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_usec);
  };
  return us(u.ru_utime) + us(u.ru_stime);
}

void task_round_trip(benchmark::State& state) {
  if (state.thread_index() == 0) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("mcp-task-rt-bench-" + std::to_string(::getpid()) + ".db");
    for (const auto* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + ext);
    if (state.range(0) == 0) {
      round_trip_store = mcp::make_memory_task_store();
    } else {
      auto s = mcp::make_sqlite_task_store(
          {.path = path.string(),
           .durability = state.range(0) == 2 ? mcp::sqlite_durability::power_loss
                                             : mcp::sqlite_durability::process_crash});
      round_trip_store = s ? *s : nullptr;
    }
    if (!round_trip_store) state.SkipWithError("the store did not open");
    cpu_start_us = process_cpu_us();
  }
  std::vector<double> ns;
  ns.reserve(100'000);
  const std::string prefix = "rt" + std::to_string(state.thread_index()) + "-";
  const auto now = std::chrono::system_clock::now();
  std::uint64_t i = 0;
  for (auto _ : state) {
    auto& store = *round_trip_store;  // every thread starts after thread 0 set it
    const auto start = std::chrono::steady_clock::now();
    mcp::task_record t{.id = prefix + std::to_string(++i),
                       .owner = "alice",
                       .created_at = now,
                       .last_updated_at = now,
                       .ttl = std::chrono::minutes(10),
                       .method = "tools/call"};
    if (!store.create(t)) {
      state.SkipWithError("create failed");
      break;
    }
    auto u = store.update(t.id, "alice",
                          {.status = mcp::task_status::completed,
                           .payload = mcp::json::object{{"result", mcp::json::object{}}}});
    auto g = store.get(t.id, "alice");
    if (!u || !g || !*g || (*g)->status != mcp::task_status::completed) {
      state.SkipWithError("the round trip failed");
      break;
    }
    ns.push_back(
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count());
  }
  state.SetItemsProcessed(state.iterations());
  if (!ns.empty()) {
    std::sort(ns.begin(), ns.end());
    using counter = benchmark::Counter;
    state.counters["p50_us"] = counter(ns[ns.size() / 2] / 1000.0, counter::kAvgThreads);
    state.counters["p99_us"] = counter(ns[ns.size() * 99 / 100] / 1000.0, counter::kAvgThreads);
  }
  if (state.thread_index() == 0) {
    const double round_trips = static_cast<double>(state.iterations() * state.threads());
    state.counters["cpu_us"] = (process_cpu_us() - cpu_start_us) / round_trips;
    if (auto c = mcp::detail::sqlite_task_store_counts_of(*round_trip_store)) {
      state.counters["tx_per_rt"] = static_cast<double>(c->transactions) / round_trips;
    }
    round_trip_store.reset();
  }
}
BENCHMARK(task_round_trip)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->ArgName("store")
    ->Threads(1)
    ->Threads(32)
    ->UseRealTime()
    ->MinTime(2)
    ->Unit(benchmark::kMicrosecond);
