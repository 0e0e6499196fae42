// Shared by the wire-level tests of mcp/server.hpp (server_test.cpp, server_flow_test.cpp): a
// server with every informational field set, and an inline echo tool.
#pragma once

#include <mcp/server.hpp>

#include <chrono>
#include <cstddef>
#include <string>
#include <utility>

namespace mcp::test {

/// `debounce`: list_changed_debounce (a test of debouncing widens it, so that changes made on a
/// loaded machine still fall in one window).
inline mcp::server make_server(
    std::size_t page_size = 100,
    std::chrono::milliseconds debounce = mcp::server_options{}.list_changed_debounce) {
  return mcp::server({.info = {.name = "test-server",
                               .version = "1.2.3",
                               .title = "Test",
                               .description = "A server under test",
                               .icons = {{.src = "https://example.com/i.png",
                                          .mime_type = "image/png",
                                          .sizes = {"48x48"}}},
                               .website_url = "https://example.com"},
                      .instructions = "Be nice.",
                      .page_size = page_size,
                      .list_changed_debounce = debounce});
}

inline void add_echo(mcp::server& s, std::string name = "echo") {
  s.add_tool(
      {.name = std::move(name),
       .description = "Echo",
       .input_schema =
           mcp::json::object{
               {"type", "object"},
               {"properties", mcp::json::object{{"text", mcp::json::object{{"type", "string"}}}}},
               {"required", mcp::json::array{"text"}}},
       .run_inline = true},
      [](mcp::tool_context&, const mcp::json::object& args) {
        mcp::call_tool_result r;
        r.content.push_back(mcp::text_content(args.at("text").as_string()));
        return r;
      });
}

}  // namespace mcp::test
