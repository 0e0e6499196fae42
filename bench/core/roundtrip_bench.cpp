// In-process round trips over the in-memory pair: a tools/call of an inline echo tool (typed:
// decode, validate, encode), the same behind the interceptors the demo server runs, a tools/call
// run on the handler pool, and a tools/list page out of 10,000 registered tools. The counter
// `allocs` is the number of heap allocations (global operator new) per iteration.
#include <mcp/audit.hpp>
#include <mcp/policy.hpp>
#include <mcp/server.hpp>
#include <mcp/transport/memory.hpp>

#include <benchmark/benchmark.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <new>

namespace {
std::atomic<std::uint64_t> allocations{0};
}  // namespace

// Counting allocator for the `allocs` counter (the library allocates through operator new;
// Boost.JSON's default resource too). g++ cannot see that these replace the global pair.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

/// Reports heap allocations per iteration.
struct alloc_counter {
  explicit alloc_counter(benchmark::State& s) : state(s), start(allocations.load()) {}
  ~alloc_counter() {
    state.counters["allocs"] =
        static_cast<double>(allocations.load() - start) / static_cast<double>(state.iterations());
  }
  benchmark::State& state;
  std::uint64_t start;
};

struct echo_in {
  std::string text;
};
BOOST_DESCRIBE_STRUCT(echo_in, (), (text))

/// A raw client end that counts responses.
struct harness {
  explicit harness(mcp::server& s) {
    auto [server_end, client_end] = mcp::make_memory_pair();
    client = client_end;
    session = s.open_session(server_end);
    server_end->on_receive([ss = session](std::string_view m) { ss->receive(m); });
    client_end->on_receive([this](std::string_view m) {
      last_size = m.size();
      std::lock_guard lock(mu);
      ++received;
      cv.notify_all();
    });
    send(
        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}})");
    wait_for(1);
  }
  void send(std::string m) { client->send(std::move(m), mcp::send_context{}); }
  void wait_for(std::size_t n) {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return received >= n; });
  }
  std::shared_ptr<mcp::memory_connection> client;
  std::shared_ptr<mcp::server_session> session;
  std::mutex mu;
  std::condition_variable cv;
  std::size_t received = 0;
  std::size_t last_size = 0;
};

void add_echo(mcp::server& s, bool run_inline) {
  s.add_tool({.name = "echo", .description = "echo", .run_inline = run_inline},
             [](const echo_in& in) -> std::string { return in.text; });
}

constexpr const char* call =
    R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello world"}}})";

/// Calls echo once per iteration and waits for the answer.
void call_echo(benchmark::State& state, mcp::server& s) {
  harness h(s);
  std::size_t n = 1;
  alloc_counter count(state);
  for (auto _ : state) {
    h.send(call);
    h.wait_for(++n);
  }
}

void tools_call_inline(benchmark::State& state) {
  mcp::server s;
  add_echo(s, true);
  call_echo(state, s);
}
BENCHMARK(tools_call_inline);

/// The demo server's pipeline: concurrency limit, deadline, output limits (always on).
void tools_call_inline_demo_pipeline(benchmark::State& state) {
  mcp::server s;
  s.use(mcp::concurrency_limit(64));
  s.use(mcp::deadline(std::chrono::seconds(120)));
  add_echo(s, true);
  call_echo(state, s);
}
BENCHMARK(tools_call_inline_demo_pipeline);

/// The concurrency limit alone, to price the fair admission (a share per caller, kept under a
/// mutex): Arg 0 = no limit, 1 = the fair default, 2 = one pool for every caller (per_caller =
/// max, the former single counter).
void tools_call_inline_limit(benchmark::State& state) {
  mcp::server s;
  if (state.range(0) == 1) s.use(mcp::concurrency_limit(mcp::concurrency_limit_options{}));
  if (state.range(0) == 2) {
    s.use(mcp::concurrency_limit(mcp::concurrency_limit_options{.max = 64, .per_caller = 64}));
  }
  add_echo(s, true);
  call_echo(state, s);
}
BENCHMARK(tools_call_inline_limit)->Arg(0)->Arg(1)->Arg(2);

/// The same limits written as a policy (mcp/policy.hpp), with a role check and a rate.
void tools_call_inline_policy(benchmark::State& state) {
  mcp::server s;
  s.use(mcp::make_tool_policy(*mcp::parse_policy(R"({
    "defaults": {"max_concurrent": 64, "deadline_ms": 120000, "rate": {"per_second": 1e9}},
    "tools": {"admin.*": {"roles": ["ops"]}}
  })")));
  add_echo(s, true);
  call_echo(state, s);
}
BENCHMARK(tools_call_inline_policy);

/// An audit line per call (SHA-256 of the arguments) to a sink that keeps only the last one.
void tools_call_inline_audit(benchmark::State& state) {
  mcp::server s;
  auto last = std::make_shared<std::string>();
  s.use(mcp::audit({.sink = [last](std::string_view line) { last->assign(line); }}));
  add_echo(s, true);
  call_echo(state, s);
}
BENCHMARK(tools_call_inline_audit);

void tools_call_on_pool(benchmark::State& state) {
  mcp::server s;
  add_echo(s, false);
  call_echo(state, s);
}
BENCHMARK(tools_call_on_pool);

void tools_list_page_of_10000(benchmark::State& state) {
  mcp::server s({.page_size = static_cast<std::size_t>(state.range(0))});
  for (int i = 0; i < 10000; ++i) {
    s.add_tool({.name = "tool_" + std::to_string(i),
                .description = "A tool with a description",
                .run_inline = true},
               [](const echo_in& in) -> std::string { return in.text; });
  }
  harness h(s);
  std::size_t n = 1;
  for (auto _ : state) {
    h.send(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})");
    h.wait_for(++n);
  }
  state.counters["page_bytes"] = static_cast<double>(h.last_size);
}
BENCHMARK(tools_list_page_of_10000)->Arg(100)->Arg(1000);

}  // namespace
