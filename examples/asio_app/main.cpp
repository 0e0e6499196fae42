// Tools inside an application that runs its own Boost.Asio io_context: the SDK's `http_server`
// listens on it, tool handlers run on it (`make_asio_executor`), a coroutine tool awaits a timer
// without holding a thread, and, one thread running it all, tools read the application's state
// without locks. Use this form when MCP may have a port of its own; to put /mcp beside your
// routes in your own Beast HTTP server, mount an `http_endpoint` (examples/embedded_app.cpp).
//
//   build/ci/examples/asio_app 127.0.0.1:8080
//   mcp-cpp tools call wait ms=300 --url http://127.0.0.1:8080/mcp
#include <mcp/asio.hpp>
#include <mcp/http_server.hpp>
#include <mcp/server.hpp>

#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdio>
#include <string>

namespace asio = boost::asio;
using std::chrono::milliseconds;

struct wait_in {
  int ms = 100;
};
MCP_FIELDS(wait_in, (ms, {.description = "How long", .defaulted = true, .maximum = 60000}))

int main(int argc, char** argv) {
  asio::io_context io;  // the application's loop, and its own work: a tick every 10 ms
  long ticks = 0;       // the application's state, changed on the loop's thread only
  bool running = true;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        asio::steady_timer t(io);
        while (running) {
          t.expires_after(milliseconds(10));
          co_await t.async_wait(asio::use_awaitable);
          ++ticks;
        }
      },
      asio::detached);

  mcp::server server({.info = {.name = "asio-app", .version = "1.0.0"},
                      .handler_executor = mcp::make_asio_executor(io.get_executor())});
  server.add_tool({.name = "ticks", .annotations = {.read_only_hint = true}},
                  [&ticks] { return std::to_string(ticks); });  // on the loop: no lock
  server.add_tool({.name = "wait", .description = "Waits ms milliseconds on a timer"},
                  // By value: a coroutine outlives the call that starts it.
                  [](wait_in in) -> asio::awaitable<std::string> {
                    asio::steady_timer t(co_await asio::this_coro::executor, milliseconds(in.ms));
                    co_await t.async_wait(asio::use_awaitable);
                    co_return "waited " + std::to_string(in.ms) + " ms";
                  });

  mcp::http_server_options opts;
  if (argc > 1 && !mcp::set_listen_address(opts, argv[1])) return 2;  // HOST:PORT expected
  mcp::http_server http(server, io, opts);
  if (auto started = http.start(); !started) {  // binds; serves once io runs
    std::fprintf(stderr, "asio_app: %s\n", started.error().message.c_str());
    return 1;
  }
  std::printf("listening on %s\n", http.url().c_str());
  std::fflush(stdout);
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](boost::system::error_code, int) {
    running = false;  // the ticks end, and stop() on the loop's own thread does not wait:
    http.stop();      // its closes run next; then nothing is left and io.run() returns
  });
  io.run();
}
