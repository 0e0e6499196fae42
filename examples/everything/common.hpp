// Shared by the fixture files of the everything server (examples/everything/).
#pragma once

#include <mcp/server.hpp>

#include <chrono>
#include <cstdint>
#include <string>

#include "../media_fixtures.hpp"

namespace everything {

using mcp::json::array;
using mcp::json::object;
using namespace std::chrono_literals;

using examples::bytes_of;
using examples::png_base64;
using examples::tiny_wav;

inline object png_image() {
  return object{{"type", "image"}, {"data", png_base64}, {"mimeType", "image/png"}};
}

inline mcp::call_tool_result text_result(std::string text) {
  mcp::call_tool_result r;
  r.content.push_back(mcp::text_content(text));
  return r;
}

/// The fixtures, by kind (each file registers its own).
void add_content_tools(mcp::server& s);
void add_interactive_tools(mcp::server& s);
void add_resources(mcp::server& s);
void add_prompts(mcp::server& s);
void add_round_tools(mcp::server& s);
void add_diagnostic_tools(mcp::server& s);
void add_task_tools(mcp::server& s);

}  // namespace everything
