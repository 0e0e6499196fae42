// The README's first example, as it is there (tests/examples keep the two the same): one typed
// tool over stdio. Try it (--yes: the tool is not annotated read-only):
//   mcp-cpp tools call forecast city=Oslo --yes -- build/ci/examples/weather
// (Left as the README prints it, so clang-format keeps out.)
// clang-format off
#include <mcp/server.hpp>

struct forecast_in { std::string city; int days = 3; };
MCP_FIELDS(forecast_in, (city, "City name"),
           (days, {.description = "Days ahead", .defaulted = true, .minimum = 1, .maximum = 16}))

int main() {
  mcp::server server({.info = {.name = "weather", .version = "1.0.0"}});
  server.add_tool({.name = "forecast", .description = "Daily forecast for a city"},
                  [](const forecast_in& in) { return in.city + ": " + std::to_string(in.days); });
  return server.serve_stdio();
}
