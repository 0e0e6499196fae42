// The stdio examples (examples/weather, typed_tool, resources_prompts) run as subprocesses and
// spoken to over their stdin and stdout, as a host would.
#include <mcp/json.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "examples/stdio_peer.hpp"

namespace {

using mcp::json::array;
using mcp::json::object;
using mcp::json::value;
using mcp::test::first_text;
using mcp::test::stdio_peer;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(example_weather, is_the_readme_example) {
  const std::string readme = read_file(MCP_SOURCE_DIR "/README.md");
  const auto start = readme.find("```cpp\n");
  ASSERT_NE(start, std::string::npos);
  const auto end = readme.find("```\n", start + 7);
  ASSERT_NE(end, std::string::npos);
  const std::string code = readme.substr(start + 7, end - start - 7);
  EXPECT_NE(code.find("serve_stdio"), std::string::npos);
  EXPECT_NE(read_file(MCP_SOURCE_DIR "/examples/weather/main.cpp").find(code), std::string::npos)
      << "examples/weather/main.cpp no longer holds README.md's first example:\n"
      << code;
}

TEST(example_weather, lists_the_inferred_schema_and_validates_calls) {
  stdio_peer p({MCP_EXAMPLE_WEATHER});
  EXPECT_EQ(p.initialize_result.at("result").at("serverInfo").at("name"), "weather");
  const auto listed = p.call("tools/list", {});
  const auto& tool = listed.at("result").at("tools").at(0);
  EXPECT_EQ(tool.at("name"), "forecast");
  const auto& schema = tool.at("inputSchema");
  EXPECT_EQ(schema.at("required"), (array{"city"}));
  EXPECT_EQ(schema.at("properties").at("days").at("default"), 3);
  EXPECT_EQ(schema.at("properties").at("days").at("minimum"), 1);
  EXPECT_EQ(schema.at("properties").at("days").at("maximum"), 16);

  EXPECT_EQ(first_text(p.call_tool("forecast", {{"city", "Oslo"}})), "Oslo: 3");
  EXPECT_EQ(first_text(p.call_tool("forecast", {{"city", "Oslo"}, {"days", 5}})), "Oslo: 5");
  const auto too_far = p.call_tool("forecast", {{"city", "Oslo"}, {"days", 20}});
  EXPECT_EQ(too_far.at("result").at("isError"), true);
  EXPECT_NE(first_text(too_far).find("/days: 20 is greater than the maximum 16"), std::string::npos)
      << too_far;
}

TEST(example_typed_tool, answers_with_structured_content_matching_its_output_schema) {
  stdio_peer p({MCP_EXAMPLE_TYPED_TOOL});
  const auto tool = p.call("tools/list", {}).at("result").at("tools").at(0);
  EXPECT_EQ(tool.at("name"), "stats");
  EXPECT_EQ(tool.at("outputSchema").at("properties").at("mean").at("type"), "number");
  EXPECT_EQ(tool.at("inputSchema").at("properties").at("values").at("minItems"), 1);

  const auto r = p.call_tool("stats", {{"values", array{3, 1.5, 4.5}}, {"label", "t"}});
  const auto& s = r.at("result").at("structuredContent");
  EXPECT_EQ(s.at("label"), "t") << r;
  EXPECT_EQ(s.at("count"), 3);
  EXPECT_EQ(s.at("min").to_number<double>(), 1.5);
  EXPECT_EQ(s.at("max").to_number<double>(), 4.5);
  EXPECT_EQ(s.at("mean").to_number<double>(), 3.0);      // written as 3: JSON has one number type
  EXPECT_EQ(mcp::parse_json(first_text(r)).value(), s);  // the same JSON as text

  EXPECT_EQ(
      p.call_tool("stats", {{"values", array{2}}}).at("result").at("structuredContent").at("label"),
      "sample");
  const auto empty = p.call_tool("stats", {{"values", array{}}});
  EXPECT_EQ(empty.at("result").at("isError"), true) << empty;
  const auto huge = p.call_tool("stats", {{"values", array{1e308, 1e308}}});
  EXPECT_EQ(huge.at("result").at("isError"), true) << huge;
  EXPECT_EQ(first_text(huge), "the sum is too large for a double");
}

TEST(example_resources_prompts, reads_resources_templates_and_gets_prompts) {
  stdio_peer p({MCP_EXAMPLE_RESOURCES_PROMPTS});
  const auto caps = p.initialize_result.at("result").at("capabilities");
  EXPECT_TRUE(caps.as_object().contains("resources") && caps.as_object().contains("prompts") &&
              caps.as_object().contains("completions"))
      << caps;

  EXPECT_EQ(p.call("resources/list", {}).at("result").at("resources").at(0).at("uri"),
            "notes://index");
  EXPECT_EQ(p.call("resources/templates/list", {})
                .at("result")
                .at("resourceTemplates")
                .at(0)
                .at("uriTemplate"),
            "notes://{id}");
  const auto index = p.call("resources/read", {{"uri", "notes://index"}});
  EXPECT_EQ(index.at("result").at("contents").at(0).at("text"), "2 notes: 1, 2");
  const auto note = p.call("resources/read", {{"uri", "notes://2"}});
  EXPECT_EQ(note.at("result").at("contents").at(0).at("text"), "Call Ada at 10");
  EXPECT_EQ(note.at("result").at("contents").at(0).at("mimeType"), "text/plain");
  EXPECT_EQ(p.call("resources/read", {{"uri", "notes://9"}}).at("error").at("code"), -32002);

  const auto done =
      p.call("completion/complete", {{"ref", {{"type", "ref/resource"}, {"uri", "notes://{id}"}}},
                                     {"argument", {{"name", "id"}, {"value", ""}}}});
  EXPECT_EQ(done.at("result").at("completion").at("values"), (array{"1", "2"})) << done;

  const auto prompt = p.call("prompts/list", {}).at("result").at("prompts").at(0);
  EXPECT_EQ(prompt.at("name"), "summarize_note");
  EXPECT_EQ(prompt.at("arguments").at(0).at("required"), true);
  EXPECT_EQ(prompt.at("arguments").at(1).at("name"), "style");
  EXPECT_FALSE(prompt.at("arguments").at(1).as_object().contains("required"));  // optional
  const auto got = p.call("prompts/get", {{"name", "summarize_note"},
                                          {"arguments", {{"id", "1"}, {"style", "friendly"}}}});
  EXPECT_EQ(got.at("result").at("messages").at(0).at("content").at("text"),
            "Summarize this note (friendly): Buy milk")
      << got;
  EXPECT_EQ(p.call("prompts/get", {{"name", "summarize_note"}, {"arguments", object{}}})
                .at("error")
                .at("code"),
            -32602);
  EXPECT_EQ(p.call("prompts/get", {{"name", "summarize_note"}, {"arguments", {{"id", "7"}}}})
                .at("error")
                .at("code"),
            -32602);
}

}  // namespace
