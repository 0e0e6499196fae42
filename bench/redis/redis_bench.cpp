// Redis behind the task store, measured against the other stores in the same run:
//   - task_round_trip/store:0|1|2: create -> update (completed) -> get of a new task, on the
//   memory,
//     SQLite and Redis stores (the Redis one on a redis-server started here, over loopback TCP);
//   - redis_get: one GET from the client's pool (one round trip), with p50/p99 per operation;
//   - redis_task_get: the task store's get (one EVALSHA), with p50/p99: what a tasks/get adds;
//   - shared_touch_session / shared_take_token: what server_options::shared adds to a request
//     (a session's refresh, one PEXPIRE) and to a rate-limited tools/call (one EVALSHA).
// Percentiles are counters (microseconds) computed from every iteration's own time.
#include <mcp/redis.hpp>
#include <mcp/task_store.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "redis/redis_server.hpp"
#include <unistd.h>

namespace {

using steady = std::chrono::steady_clock;

mcp::test::redis_server& server() {
  static mcp::test::redis_server s;
  return s;
}

/// Options with a key prefix of its own (each run of a benchmark starts from empty keys).
mcp::redis_options options() {
  static int runs = 0;
  return {.url = server().url(),
          .key_prefix = "bench" + std::to_string(::getpid()) + "-" + std::to_string(++runs) + ":"};
}

/// The p50 and p99 of `ns` (nanoseconds) as microsecond counters.
void percentiles(benchmark::State& state, std::vector<double>& ns) {
  if (ns.empty()) return;
  std::sort(ns.begin(), ns.end());
  state.counters["p50_us"] = ns[ns.size() / 2] / 1000.0;
  state.counters["p99_us"] = ns[ns.size() * 99 / 100] / 1000.0;
}

std::shared_ptr<mcp::task_store> open_store(int kind) {
  if (kind == 0) return mcp::make_memory_task_store();
  if (kind == 1) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("mcp-redis-bench-" + std::to_string(::getpid()) + ".db");
    for (const auto* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + ext);
    auto s = mcp::make_sqlite_task_store(path.string());
    return s ? *s : nullptr;
  }
  auto s = mcp::make_redis_task_store(options());
  return s ? *s : nullptr;
}

void task_round_trip(benchmark::State& state) {
  auto store = open_store(static_cast<int>(state.range(0)));
  if (!store) {
    state.SkipWithError("the store did not open (redis-server missing?)");
    return;
  }
  const auto now = std::chrono::system_clock::now();
  std::uint64_t i = 0;
  std::vector<double> ns;
  ns.reserve(200'000);
  for (auto _ : state) {
    const auto start = steady::now();
    mcp::task_record t{.id = "rt" + std::to_string(++i) + "-" + std::to_string(state.range(0)),
                       .owner = "alice",
                       .created_at = now,
                       .last_updated_at = now,
                       .ttl = std::chrono::minutes(10),
                       .method = "tools/call"};
    if (!store->create(t)) {
      state.SkipWithError("create failed");
      break;
    }
    auto u = store->update(t.id, "alice",
                           {.status = mcp::task_status::completed,
                            .payload = mcp::json::object{{"result", mcp::json::object{}}}});
    auto g = store->get(t.id, "alice");
    if (!u || !g || !*g || (*g)->status != mcp::task_status::completed) {
      state.SkipWithError("the round trip failed");
      break;
    }
    ns.push_back(std::chrono::duration<double, std::nano>(steady::now() - start).count());
  }
  percentiles(state, ns);
}
BENCHMARK(task_round_trip)->Arg(0)->Arg(1)->Arg(2)->ArgName("store")->Unit(benchmark::kMicrosecond);

void redis_get(benchmark::State& state) {
  auto client = mcp::make_redis_client(options());
  if (!client || !(*client)->command({"SET", "k", std::string(100, 'v')})) {
    state.SkipWithError("no redis-server");
    return;
  }
  std::vector<double> ns;
  ns.reserve(500'000);
  for (auto _ : state) {
    const auto start = steady::now();
    auto r = (*client)->command({"GET", "k"});
    ns.push_back(std::chrono::duration<double, std::nano>(steady::now() - start).count());
    if (!r) {
      state.SkipWithError("GET failed");
      break;
    }
  }
  percentiles(state, ns);
}
BENCHMARK(redis_get)->Unit(benchmark::kMicrosecond);

void redis_task_get(benchmark::State& state) {
  auto store = open_store(2);
  const auto now = std::chrono::system_clock::now();
  if (!store || !store->create({.id = "g",
                                .owner = "alice",
                                .created_at = now,
                                .last_updated_at = now,
                                .method = "tools/call"})) {
    state.SkipWithError("no redis-server");
    return;
  }
  std::vector<double> ns;
  ns.reserve(500'000);
  for (auto _ : state) {
    const auto start = steady::now();
    auto r = store->get("g", "alice");
    ns.push_back(std::chrono::duration<double, std::nano>(steady::now() - start).count());
    if (!r || !*r) {
      state.SkipWithError("get failed");
      break;
    }
  }
  percentiles(state, ns);
}
BENCHMARK(redis_task_get)->Unit(benchmark::kMicrosecond);

/// Times `op` per iteration (p50/p99); `op` returns false on failure.
template <class Op>
void timed(benchmark::State& state, Op op) {
  std::vector<double> ns;
  ns.reserve(500'000);
  for (auto _ : state) {
    const auto start = steady::now();
    const bool ok = op();
    ns.push_back(std::chrono::duration<double, std::nano>(steady::now() - start).count());
    if (!ok) {
      state.SkipWithError("the shared state failed");
      break;
    }
  }
  percentiles(state, ns);
}

void shared_touch_session(benchmark::State& state) {
  auto shared = mcp::make_redis_shared_state(options());
  if (!shared || !(*shared)->save_session("0123456789abcdef0123456789abcdef", "{}")) {
    state.SkipWithError("no redis-server");
    return;
  }
  timed(state, [&] {
    auto r = (*shared)->touch_session("0123456789abcdef0123456789abcdef");
    return r && *r;
  });
}
BENCHMARK(shared_touch_session)->Unit(benchmark::kMicrosecond);

void shared_take_token(benchmark::State& state) {
  auto shared = mcp::make_redis_shared_state(options());
  if (!shared) {
    state.SkipWithError("no redis-server");
    return;
  }
  timed(state, [&] { return bool((*shared)->take_token("rate:local", 1e9, 1e9)); });
}
BENCHMARK(shared_take_token)->Unit(benchmark::kMicrosecond);

}  // namespace
