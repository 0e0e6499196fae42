// Calls per second of mcp::client_session against a server: `tools/call echo` N times, from W
// threads at once (W = 1: one call at a time, as a host calls tools). The TypeScript SDK
// client's counterpart is ts_client_calls.mjs; compare.sh runs both against the same server.
//
//   client_calls stdio N W -- CMD ARGS...   a server launched as a child process
//   client_calls http N W URL               a Streamable HTTP server
//   stdio-async, http-async                 the same, W calls in flight from one thread
//                                           (call_tool_async; each answer starts the next)
//   http-modern N W URL                     http in 2026-07-28 (pinned: server/discover, then
//                                           every request stands alone); also stdio-modern
//
// Prints one line: "<transport>: N calls in S s = X calls/s (window W)". Exits 1 at the first
// call that fails, the tool's own errors (isError) included.
#include <mcp/client.hpp>
#include <mcp/http_client.hpp>
#include <mcp/transport/process.hpp>

#include <boost/json/serialize.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: client_calls stdio[-async|-modern] N W -- CMD ARGS... | "
               "client_calls http[-async|-modern] N W URL\n");
  return 2;
}

/// True when a call succeeded; else says why. A refused call (a rate limit, say: isError) is
/// not the call being measured, so it counts as a failure too.
bool answered_well(const mcp::result<mcp::json::object>& r) {
  if (!r) {
    std::fprintf(stderr, "call failed: %s\n", r.error().message.c_str());
    return false;
  }
  if (const auto* e = r->if_contains("isError"); e != nullptr && e->is_bool() && e->get_bool()) {
    std::fprintf(stderr, "the tool failed: %s\n", mcp::json::serialize(*r).c_str());
    return false;
  }
  return true;
}

/// N calls of echo from W threads; false (after saying why) on the first failure.
bool run(mcp::client_session& client, const char* transport, long n, long w) {
  std::atomic<long> next{0};
  std::atomic<bool> failed{false};
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (long t = 0; t < w; ++t) {
    threads.emplace_back([&] {
      while (!failed && next.fetch_add(1) < n) {
        if (!answered_well(client.call_tool("echo", mcp::json::object{{"text", "hello"}}))) {
          failed = true;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (failed) return false;
  std::printf("%s: %ld calls in %.2f s = %.0f calls/s (window %ld)\n", transport, n, s,
              static_cast<double>(n) / s, w);
  return true;
}

/// N calls of echo with W in flight from this thread (call_tool_async: each answer starts the
/// next call); false (after saying why) on the first failure.
bool run_async(mcp::client_session& client, const char* transport, long n, long w) {
  std::atomic<long> started{0};
  std::atomic<long> in_flight{1};  // this thread's own share until every first call is sent
  std::atomic<bool> failed{false};
  // Shared: the last callback may still be inside set_value when this function returns.
  auto all_done = std::make_shared<std::promise<void>>();
  std::function<void()> start_one;
  auto on_answer = [&, all_done](mcp::result<mcp::json::object> r) {
    if (!answered_well(r)) failed = true;
    if (!failed && started.fetch_add(1) < n) start_one();
    if (in_flight.fetch_sub(1) == 1) all_done->set_value();
  };
  start_one = [&] {
    ++in_flight;
    client.call_tool_async("echo", mcp::json::object{{"text", "hello"}}, on_answer);
  };
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < w && started.fetch_add(1) < n; ++i) start_one();
  if (in_flight.fetch_sub(1) == 1) all_done->set_value();
  auto finished = all_done->get_future();
  finished.wait();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (failed) return false;
  std::printf("%s: %ld calls in %.2f s = %.0f calls/s (window %ld, one thread)\n", transport, n, s,
              static_cast<double>(n) / s, w);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) return usage();
  std::string_view mode = argv[1];
  const long n = std::atol(argv[2]);
  const long w = std::atol(argv[3]);
  if (n <= 0 || w <= 0) return usage();
  const bool async = mode.ends_with("-async");
  if (async) mode.remove_suffix(6);
  const bool modern = mode.ends_with("-modern");
  if (modern) mode.remove_suffix(7);
  mcp::client_options options;
  if (modern) {
    options.negotiate = mcp::negotiation::pinned;
    options.protocol_version = "2026-07-28";
  }
  const std::string label =
      std::string("mcp-cpp client, ") + std::string(mode) + (modern ? " (2026-07-28)" : "");
  auto measure = [&](mcp::client_session& c, const char* transport) {
    return async ? run_async(c, transport, n, w) : run(c, transport, n, w);
  };
  if (mode == "stdio") {
    if (std::string_view(argv[4]) != "--" || argc < 6) return usage();
    auto launched =
        mcp::launch_server({.argv = std::vector<std::string>(argv + 5, argv + argc)}, options);
    if (!launched) {
      std::fprintf(stderr, "%s\n", launched.error().message.c_str());
      return 1;
    }
    const bool ok = measure(*launched->client, label.c_str());
    launched->client->close();
    return ok ? 0 : 1;
  }
  if (mode != "http") return usage();
  auto conn = mcp::make_http_client_connection({.url = argv[4]}).value();
  mcp::client_session client(conn, options);
  conn->on_receive([&client](std::string_view m) { client.receive(m); });
  if (auto init = client.initialize(); !init) {
    std::fprintf(stderr, "%s\n", init.error().message.c_str());
    return 1;
  }
  const bool ok = measure(client, label.c_str());
  client.close();
  return ok ? 0 : 1;
}
