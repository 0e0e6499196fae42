// A typed tool with a struct result: the input and output structs are described once with
// MCP_FIELDS, the SDK infers `inputSchema` and `outputSchema` from them, validates every call
// against the first and answers with `structuredContent` (plus the same JSON as text, for
// clients that read only text). A handler returning `mcp::tool_result<T>` may also fail with an
// `isError` result the model can read.
//
//   mcp-cpp tools describe stats -- build/ci/examples/typed_tool
//   mcp-cpp tools call stats --args '{"values":[3,1,2]}' -- build/ci/examples/typed_tool
#include <mcp/server.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

struct stats_in {
  std::vector<double> values;
  std::string label = "sample";
};
MCP_FIELDS(stats_in, (values, {.description = "The numbers", .min_items = 1, .max_items = 10000}),
           (label, {.description = "A name for the result", .defaulted = true, .max_length = 64}))

struct stats_out {
  std::string label;
  int count = 0;
  double min = 0;
  double max = 0;
  double mean = 0;
};
MCP_FIELDS(stats_out, (label), (count, "How many values"), (min), (max), (mean, "Arithmetic mean"))

int main() {
  mcp::server server({.info = {.name = "typed-tool", .version = "1.0.0"}});
  server.add_tool({.name = "stats",
                   .description = "Count, minimum, maximum and mean of a list of numbers",
                   .annotations = {.read_only_hint = true}},
                  [](const stats_in& in) -> mcp::tool_result<stats_out> {
                    const auto [lo, hi] = std::minmax_element(in.values.begin(), in.values.end());
                    const double sum = std::accumulate(in.values.begin(), in.values.end(), 0.0);
                    if (!std::isfinite(sum))
                      return mcp::tool_error{"the sum is too large for a double"};
                    const auto n = static_cast<int>(in.values.size());
                    return stats_out{
                        .label = in.label, .count = n, .min = *lo, .max = *hi, .mean = sum / n};
                  });
  return server.serve_stdio();
}
