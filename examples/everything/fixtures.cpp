#include "fixtures.hpp"

#include "common.hpp"

namespace everything {

mcp::server_options options(std::size_t page_size) {
  return {.info = {.name = "mcp-cpp-everything-server",
                   .version = "1.0.0",
                   .title = "mcp-cpp everything server",
                   .description = "The MCP conformance fixtures, served by mcp-cpp"},
          .page_size = page_size};
}

void add_fixtures(mcp::server& s) {
  add_content_tools(s);
  add_interactive_tools(s);
  add_resources(s);
  add_prompts(s);
  add_round_tools(s);
  add_diagnostic_tools(s);
  add_task_tools(s);
}

}  // namespace everything
