// A client that launches a server as a child process over stdio and calls one of its tools,
// with the typed client: what the server says arrives as structs (mcp/client_types.hpp), the
// arguments go out as a described struct, and a tool's own error is told apart from a protocol
// error. Made for the weather example:
//
//   build/ci/examples/client build/ci/examples/weather
#include <mcp/client.hpp>
#include <mcp/transport/process.hpp>

#include <cstdio>
#include <string>
#include <vector>

struct forecast_in {  // the arguments, as the server's inputSchema describes them
  std::string city;
  int days = 3;
};
MCP_FIELDS(forecast_in, (city), (days))

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: client SERVER [ARGS...]  (e.g. build/ci/examples/weather)\n");
    return 2;
  }
  auto server = mcp::launch_server({.argv = std::vector<std::string>(argv + 1, argv + argc)},
                                   {.info = {.name = "example-client", .version = "1.0.0"}});
  if (!server) {
    std::fprintf(stderr, "client: %s\n", server.error().message.c_str());
    return 2;
  }
  mcp::client_session& client = *server->client;
  if (auto info = client.server_info()) {
    std::printf("server: %s %s\n", info->server_info.name.c_str(),
                info->server_info.version.c_str());
  }
  auto tools = client.list_tools();  // every page
  if (!tools) {
    std::fprintf(stderr, "client: %s\n", tools.error().message.c_str());
    return 2;
  }
  for (const mcp::tool_info& t : *tools) {
    std::printf("tool: %s - %s\n", t.name.c_str(), t.description.value_or("").c_str());
  }
  for (int days : {2, 20}) {  // 20 is over the tool's maximum: the tool says so
    auto reply =
        client.call_tool<std::string>("forecast", forecast_in{.city = "Oslo", .days = days});
    if (!reply) {  // the call itself failed: connection, protocol
      std::fprintf(stderr, "client: %s\n", reply.error().message.c_str());
      return 2;
    }
    if (reply->ok()) {
      std::printf("forecast: %s\n", reply->value().c_str());
    } else {
      std::printf("tool error: %s\n", reply->tool_error().c_str());
    }
  }
  client.close();  // closes the child's stdin; it exits
  return 0;
}
