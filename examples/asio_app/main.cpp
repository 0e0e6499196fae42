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
#include <thread>

namespace asio = boost::asio;

struct wait_in {
  int ms = 100;
};
MCP_FIELDS(wait_in, (ms, {.description = "How long", .defaulted = true, .maximum = 60000}))

int main(int argc, char** argv) {
  asio::io_context io;  // the application's loop
  long ticks = 0;       // the application's state, changed on the loop's thread only
  asio::co_spawn(       // the application's own work
      io,
      [&ticks]() -> asio::awaitable<void> {
        for (asio::steady_timer t(co_await asio::this_coro::executor);; ++ticks) {
          t.expires_after(std::chrono::milliseconds(10));
          co_await t.async_wait(asio::use_awaitable);
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
                    asio::steady_timer t(co_await asio::this_coro::executor,
                                         std::chrono::milliseconds(in.ms));
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
  std::thread stopper;  // http.stop() waits for the loop to close, so not on the loop's thread
  signals.async_wait([&](boost::system::error_code, int) {
    stopper = std::thread([&] {
      http.stop();
      io.stop();
    });
  });
  io.run();
  if (stopper.joinable()) stopper.join();
  return 0;
}
