// Package test: a program built against the installed mcp::observe. A server with the metrics
// observer answers one tools/call from an in-memory client; the Prometheus text must count it.
#include <mcp/client.hpp>
#include <mcp/observe/metrics.hpp>
#include <mcp/server.hpp>
#include <mcp/transport/memory.hpp>

#include <algorithm>
#include <cstdio>
#include <string>

int main() {
  auto metrics = mcp::observe::make_metrics({.resource = {{"service.name", "package-test"}}});
  mcp::server server({.info = {.name = "observed", .version = "1"}, .observer = metrics});
  server.add_tool({.name = "ping"}, [] { return std::string("pong"); });
  auto [server_end, client_end] = mcp::make_memory_pair();
  auto session = server.open_session(server_end);
  server_end->on_receive([session](std::string_view m) { session->receive(m); });
  mcp::client_session client(client_end, {.info = {.name = "test", .version = "1"}});
  client_end->on_receive([&client](std::string_view m) { client.receive(m); });
  if (!client.initialize()) return 1;
  if (!client.call_tool("ping")) return 1;
  const std::string text = metrics->prometheus_text();
  for (std::size_t at = 0, end = 0; at < text.size(); at = end + 1) {
    end = std::min(text.find('\n', at), text.size());
    const std::string line = text.substr(at, end - at);
    if (line.starts_with("mcp_server_operation_duration_seconds_count{") &&
        line.find("\"tools/call\"") != std::string::npos && line.ends_with(" 1")) {
      std::printf("observe: %s\n", line.c_str());
      return 0;
    }
  }
  std::fprintf(stderr, "no tools/call counted:\n%s", text.c_str());
  return 1;
}
