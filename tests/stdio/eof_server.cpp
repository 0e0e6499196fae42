// A stdio server for tests/stdio: its tools run on handler threads, never inline. `sleep`
// answers after `ms` milliseconds; `endless` runs until it is cancelled; `roots` asks the client
// for its roots (roots/list). argv[1]: the server's
// stdio_drain_timeout in milliseconds (default: the SDK's).
#include <mcp/server.hpp>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

namespace {

struct sleep_in {
  int ms = 0;
};
MCP_FIELDS(sleep_in, (ms, "How long to sleep before answering"))

struct endless_in {
  std::string note;
};
MCP_FIELDS(endless_in, (note, {.description = "Ignored", .defaulted = true}))

}  // namespace

int main(int argc, char** argv) {
  mcp::server_options opts{.info = {.name = "eof-server", .version = "1.0.0"}};
  if (argc > 1) opts.stdio_drain_timeout = std::chrono::milliseconds(std::atoi(argv[1]));
  mcp::server server(std::move(opts));
  server.add_tool({.name = "sleep", .description = "Answers after sleeping"},
                  [](const sleep_in& in) -> std::string {
                    std::this_thread::sleep_for(std::chrono::milliseconds(in.ms));
                    return "slept " + std::to_string(in.ms);
                  });
  server.add_tool({.name = "endless", .description = "Runs until cancelled"},
                  [](mcp::tool_context& ctx, const endless_in&) -> mcp::tool_result<std::string> {
                    while (!ctx.cancelled()) {
                      std::this_thread::sleep_for(std::chrono::milliseconds(1));
                    }
                    return mcp::tool_error{"cancelled"};
                  });
  server.add_tool({.name = "roots", .description = "Asks the client for its roots"},
                  [](mcp::tool_context& ctx) -> mcp::tool_result<std::string> {
                    auto roots = ctx.list_roots();
                    if (!roots) return mcp::tool_error{"no roots: " + roots.error().message};
                    return std::string("got roots");
                  });
  return server.serve_stdio();
}
