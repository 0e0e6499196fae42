// mcp/typed_tool.hpp: tools as plain functions over described structs.
#include <mcp/server.hpp>
#include <mcp/typed_tool.hpp>

#include <gtest/gtest.h>

#include "support/wire.hpp"

namespace typed_test {

enum class units { metric, imperial };
BOOST_DESCRIBE_ENUM(units, metric, imperial)

struct forecast_in {
  std::string city;
  int days = 3;
  std::optional<units> unit;
};
BOOST_DESCRIBE_STRUCT(forecast_in, (), (city, days, unit))
MCP_FIELD_DOCS(forecast_in, (city, "City name"), (days, "Days ahead"))

struct forecast_out {
  std::string summary;
  double high = 0;
};
BOOST_DESCRIBE_STRUCT(forecast_out, (), (summary, high))

struct empty_in {};
BOOST_DESCRIBE_STRUCT(empty_in, (), ())

}  // namespace typed_test

namespace {

using mcp::json::object;
using mcp::test::j;
using mcp::test::wire;
using namespace typed_test;

mcp::server make() {
  mcp::server s;
  s.add_tool({.name = "forecast", .description = "Forecast"},
             [](mcp::tool_context& ctx, const forecast_in& in) -> mcp::tool_result<forecast_out> {
               if (in.days > 16) return mcp::tool_error{"days must be 1-16"};
               ctx.progress(1, 1);
               return forecast_out{.summary = "Sunny in " + in.city, .high = 21.5};
             });
  s.add_tool({.name = "plain", .description = "Plain text"},
             [](const empty_in&) -> std::string { return "plain text"; });
  s.add_tool(
      {.name = "custom_schema",
       .description = "User schema kept",
       .input_schema =
           object{{"type", "object"},
                  {"properties", object{{"city", object{{"type", "string"}, {"minLength", 2}}}}}}},
      [](const forecast_in& in) { return forecast_out{.summary = in.city}; });
  return s;
}

TEST(typed_tool, schemas_are_inferred_from_the_structs) {
  auto s = make();
  wire w(s);
  w.initialize();
  auto tools = w.call("tools/list").at("result").at("tools").as_array();
  ASSERT_EQ(tools.size(), 3U);
  EXPECT_EQ(tools[0].at("inputSchema"), j(R"({"type":"object","properties":{
      "city":{"type":"string","description":"City name"},
      "days":{"type":"integer","minimum":-2147483648,"maximum":2147483647,"description":"Days ahead"},
      "unit":{"type":"string","enum":["metric","imperial"]}},
    "required":["city","days"]})"));
  EXPECT_EQ(tools[0].at("outputSchema").at("required"), j(R"(["summary","high"])"));
  EXPECT_EQ(tools[1].at("inputSchema"), j(R"({"type":"object","additionalProperties":false})"));
  EXPECT_FALSE(tools[1].as_object().contains("outputSchema"));
  EXPECT_EQ(tools[2].at("inputSchema").at("properties").at("city").at("minLength"), 2);
}

TEST(typed_tool, structured_output_with_a_text_copy) {
  auto s = make();
  wire w(s);
  w.initialize();
  auto r = w.call("tools/call", object{{"name", "forecast"},
                                       {"arguments", object{{"city", "Oslo"}, {"days", 2}}}});
  EXPECT_EQ(
      r.at("result"),
      j(R"({"content":[{"type":"text","text":"{\"summary\":\"Sunny in Oslo\",\"high\":21.5}"}],
    "structuredContent":{"summary":"Sunny in Oslo","high":21.5}})"));
  EXPECT_EQ(w.call("tools/call", object{{"name", "plain"}}).at("result"),
            j(R"({"content":[{"type":"text","text":"plain text"}]})"));
}

TEST(typed_tool, tool_errors_and_bad_arguments_are_is_error) {
  auto s = make();
  wire w(s);
  w.initialize();
  auto e = w.call("tools/call", object{{"name", "forecast"},
                                       {"arguments", object{{"city", "Oslo"}, {"days", 17}}}});
  EXPECT_EQ(e.at("result"),
            j(R"({"content":[{"type":"text","text":"days must be 1-16"}],"isError":true})"));
  for (const auto& [args, needle] : std::vector<std::pair<object, std::string>>{
           {object{{"city", "Oslo"}, {"days", "three"}}, "/days"},
           {object{{"days", 1}}, "city"},
           {object{{"city", "Oslo"}, {"days", 1}, {"unit", "kelvin"}}, "/unit"},
           {object{{"city", 5}, {"days", 1}}, "/city"},
           {object{{"city", "Oslo"}, {"days", 1.5}}, "/days"},
       }) {
    auto r = w.call("tools/call", object{{"name", "forecast"}, {"arguments", args}});
    ASSERT_TRUE(r.at("result").at("isError").as_bool()) << mcp::to_json_string(args);
    const std::string text(r.at("result").at("content").at(0).at("text").as_string());
    EXPECT_NE(text.find(needle), std::string::npos) << text;
  }
  // The user's schema is enforced, and the decoder still runs after it.
  auto c =
      w.call("tools/call", object{{"name", "custom_schema"}, {"arguments", object{{"city", "X"}}}});
  EXPECT_TRUE(c.at("result").at("isError").as_bool());
}

}  // namespace
