// 10,000 concurrent slow tool calls over stdio: a coroutine tool handler (mcp/asio.hpp) that
// awaits an Asio timer, on an io_context run by 2 threads, against the blocking form of the
// same tool on the default handler pool. Not a Google Benchmark: one run is one measurement.
//
//   slow_calls drive coro 10000 1000      # launches `slow_calls serve coro` over stdio
//   slow_calls drive blocking 2000 1000   # the blocking handler, default pool
//
// The driver is a real client (mcp::launch_server: a child process, pipes, JSON lines) that
// sends every call at once with call_tool_async from one thread, then waits for the answers.
// It samples the server's thread count (/proc/PID/status Threads) every 20 ms and reads its
// peak RSS (VmHWM) before closing it. Prints one line of results.
#include <mcp/asio.hpp>
#include <mcp/server.hpp>
#include <mcp/transport/process.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace {

namespace asio = boost::asio;

struct sleep_in {
  int ms = 1000;
};
MCP_FIELDS(sleep_in, (ms, "How long the call takes, in milliseconds"))

struct sleep_out {
  int slept = 0;
};
MCP_FIELDS(sleep_out, (slept))

/// The server: `coro` (a coroutine awaiting a timer, 2 threads) or `blocking` (sleeps on the
/// default pool).
int serve(const std::string& mode) {
  if (mode == "coro") {
    asio::io_context io;
    auto guard = asio::make_work_guard(io);
    std::vector<std::thread> threads;
    for (int i = 0; i < 2; ++i) threads.emplace_back([&io] { io.run(); });
    int rc = 0;
    {
      mcp::server server({.info = {.name = "slow-coro", .version = "1"},
                          .handler_executor = mcp::make_asio_executor(io.get_executor())});
      server.add_tool({.name = "sleep", .description = "Waits, then answers"},
                      [](const sleep_in& in) -> asio::awaitable<sleep_out> {
                        asio::steady_timer t(co_await asio::this_coro::executor,
                                             std::chrono::milliseconds(in.ms));
                        co_await t.async_wait(asio::use_awaitable);
                        co_return sleep_out{in.ms};
                      });
      rc = server.serve_stdio();
    }
    guard.reset();
    io.stop();
    for (auto& t : threads) t.join();
    return rc;
  }
  mcp::server server({.info = {.name = "slow-blocking", .version = "1"}});
  server.add_tool({.name = "sleep", .description = "Waits, then answers"},
                  [](const sleep_in& in) -> sleep_out {
                    std::this_thread::sleep_for(std::chrono::milliseconds(in.ms));
                    return sleep_out{in.ms};
                  });
  return server.serve_stdio();
}

/// A number from /proc/PID/status (`key` with its colon), 0 when absent.
long proc_status(int pid, const std::string& key) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind(key, 0) == 0) return std::stol(line.substr(key.size()));
  }
  return 0;
}

int drive(const std::string& self, const std::string& mode, int calls, int ms) {
  auto launched = mcp::launch_server(
      {.argv = {self, "serve", mode}},
      {.info = {.name = "slow-calls", .version = "1"}, .timeout = std::chrono::hours(1)});
  if (!launched) {
    std::cerr << "launch: " << launched.error().message << "\n";
    return 2;
  }
  auto& client = *launched->client;
  const int pid = launched->process->pid();
  if (auto listed = client.list_tools(); !listed) {  // learns the outputSchema first
    std::cerr << "tools/list: " << listed.error().message << "\n";
    return 2;
  }
  std::mutex mu;
  std::condition_variable cv;
  int answered = 0;
  int failed = 0;
  std::atomic<long> max_threads{proc_status(pid, "Threads:")};
  std::atomic<bool> sampling{true};
  std::thread sampler([&] {
    while (sampling.load()) {
      const long n = proc_status(pid, "Threads:");
      long seen = max_threads.load();
      while (n > seen && !max_threads.compare_exchange_weak(seen, n)) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) {
    client.call_tool_async<sleep_out>("sleep", sleep_in{ms},
                                      [&](mcp::result<mcp::tool_reply<sleep_out>> r) {
                                        std::lock_guard lock(mu);
                                        if (!r || !r->ok() || r->value().slept != ms) ++failed;
                                        if (++answered == calls) cv.notify_all();
                                      });
  }
  const auto sent = std::chrono::steady_clock::now();
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return answered == calls; });
  }
  const auto t1 = std::chrono::steady_clock::now();
  sampling = false;
  sampler.join();
  const long hwm_kib = proc_status(pid, "VmHWM:");
  const double secs = std::chrono::duration<double>(t1 - t0).count();
  std::printf(
      "mode=%s calls=%d delay_ms=%d failed=%d wall_s=%.3f send_ms=%.1f calls_per_s=%.1f "
      "server_threads_max=%ld server_peak_rss_mib=%.1f\n",
      mode.c_str(), calls, ms, failed, secs,
      std::chrono::duration<double, std::milli>(sent - t0).count(), calls / secs,
      max_threads.load(), static_cast<double>(hwm_kib) / 1024.0);
  client.close();
  return failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 2 && args[0] == "serve") return serve(args[1]);
  if (args.size() >= 2 && args[0] == "drive") {
    const int calls = args.size() > 2 ? std::stoi(args[2]) : 10000;
    const int ms = args.size() > 3 ? std::stoi(args[3]) : 1000;
    return drive(argv[0], args[1], calls, ms);
  }
  std::cerr << "usage: slow_calls drive coro|blocking [CALLS [DELAY_MS]] | serve coro|blocking\n";
  return 2;
}
