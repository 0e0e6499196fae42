// The everything server's content tools: text, image, audio, embedded resources, mixed content,
// logging, errors, progress (examples/everything/).
#include <mcp/server.hpp>

#include <string>
#include <thread>
#include <vector>

#include "common.hpp"

namespace everything {

using mcp::json::array;
using mcp::json::object;
using namespace std::chrono_literals;

void add_content_tools(mcp::server& s) {
  s.add_tool({.name = "test_simple_text",
              .description = "Returns a simple text response.",
              .run_inline = true},
             [] { return "This is a simple text response for testing."; });
  s.add_tool({.name = "test_image_content",
              .description = "Returns an image (a 1x1 PNG).",
              .run_inline = true},
             [] { return png_image(); });
  s.add_tool({.name = "test_audio_content",
              .description = "Returns audio content (a short WAV).",
              .run_inline = true},
             [] { return mcp::audio_content(bytes_of(tiny_wav()), "audio/wav"); });
  s.add_tool({.name = "test_embedded_resource",
              .description = "Returns an embedded text resource.",
              .run_inline = true},
             [] {
               return mcp::embedded_text_resource("test://embedded-resource",
                                                  "This is an embedded resource content.",
                                                  "text/plain");
             });
  s.add_tool(
      {.name = "test_multiple_content_types",
       .description = "Returns text, an image and an embedded resource.",
       .run_inline = true},
      [] {
        return std::vector<object>{
            mcp::text_content("Multiple content types test:"), png_image(),
            mcp::embedded_text_resource("test://mixed-content-resource",
                                        R"({"test":"data","value":123})", "application/json")};
      });
  s.add_tool({.name = "test_error_handling",
              .description = "Always fails with a tool error (isError: true).",
              .run_inline = true},
             []() -> mcp::tool_result<std::string> {
               return mcp::tool_error{"This tool intentionally returns an error for testing"};
             });
  // The raw 2020-12 schema goes to tools/list exactly as written here.
  auto schema = mcp::parse_json(R"({
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                          "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"},
                   "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                   "phone": {"type": "string"}, "email": {"type": "string"}},
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": false})");
  s.add_tool({.name = "json_schema_2020_12_tool",
              .description = "A tool whose inputSchema uses JSON Schema 2020-12 keywords.",
              .input_schema = schema->as_object(),
              .run_inline = true},
             [](mcp::tool_context&, const object& args) {
               return text_result("Received: " + mcp::to_json_string(args));
             });
}

}  // namespace everything
