// The tool examples users of the Python SDKs know (FastMCP / mcp-use docs: get_weather,
// example(name, limit=10, company=None), create_event with Literal enums and a default,
// search(SearchQuery), divide raising an error), written with mcp-cpp's typed tools. tools/list
// must give the inputSchemas those docs show (property order aside), and tools/call behave as
// they describe.
#include <mcp/server.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/wire.hpp"

namespace seed {

struct weather_in {
  std::string location;
  std::string units = "celsius";
};
MCP_FIELDS(weather_in, (location, "City name or zip code"),
           (units, {.description = "Temperature units", .defaulted = true}))

struct example_in {
  std::string name;
  int limit = 10;
  std::optional<std::string> company;
};
MCP_FIELDS(example_in, (name, "User name"),
           (limit, {.description = "Max results", .defaulted = true}),
           (company, {.description = "Company filter", .defaulted = true}))

enum class recurrence_kind { none, daily, weekly, monthly };
BOOST_DESCRIBE_ENUM(recurrence_kind, none, daily, weekly, monthly)

struct event_in {
  std::string title;
  std::string visibility;  // "public" is a C++ keyword: a string with a list of values
  recurrence_kind recurrence = recurrence_kind::none;
};
MCP_FIELDS(event_in, (title, "Event title"),
           (visibility, {.description = "Who can see this event",
                         .enum_values = {"public", "private", "team"}}),
           (recurrence, {.description = "Recurrence pattern", .defaulted = true}))

struct event_out {
  std::string id;
  std::string visibility;
};
MCP_FIELDS(event_out, (id), (visibility))

struct search_query {
  std::string query;
  int max_results = 10;
  bool include_metadata = false;
};
MCP_FIELDS(search_query, (query, "The search query string"),
           (max_results, {.description = "Maximum number of results to return", .defaulted = true}),
           (include_metadata, {.description = "Whether to include metadata", .defaulted = true}))

struct search_in {
  search_query params;
};
MCP_FIELDS(search_in, (params))

struct divide_in {
  double a = 0;
  double b = 0;
};
MCP_FIELDS(divide_in, (a, "Dividend"), (b, "Divisor"))

}  // namespace seed

namespace {

using mcp::json::object;
using mcp::test::j;
using mcp::test::wire;
using namespace seed;

/// A server with the fixtures (a server is pinned: it is handed around by pointer).
std::unique_ptr<mcp::server> seed_server() {
  auto owner = std::make_unique<mcp::server>();
  auto& s = *owner;
  s.add_tool({.name = "get_weather",
              .title = "Weather Information Provider",
              .description = "Get current weather information for a location",
              .annotations = {.read_only_hint = true, .open_world_hint = true}},
             [](const weather_in& in, mcp::tool_context& ctx) {
               ctx.log(mcp::log_level::info,
                       mcp::json::value("Fetching weather for " + in.location));
               return "Weather in " + in.location + ": 22 " + in.units;
             });
  s.add_tool({.name = "example", .description = "Example"}, [](const example_in& in) {
    return in.name + " " + std::to_string(in.limit) + " " + in.company.value_or("-");
  });
  s.add_tool({.name = "create_event", .description = "Create an event"}, [](const event_in& in) {
    return event_out{.id = "ev-1", .visibility = in.visibility};
  });
  s.add_tool({.name = "search", .description = "Search with complex parameters."},
             [](const search_in& in) {
               std::vector<std::string> out;
               for (int i = 1; i <= in.params.max_results && i <= 2; ++i) {
                 out.push_back("result" + std::to_string(i));
               }
               return out;
             });
  s.add_tool({.name = "greet", .description = "Greet someone by name."},
             [](const weather_in& in) { return "Hello, " + in.location + "!"; });
  s.add_tool({.name = "divide", .description = "Divide two numbers."}, [](const divide_in& in) {
    if (in.b == 0) throw std::invalid_argument("Cannot divide by zero");
    return std::to_string(in.a / in.b);
  });
  return owner;
}

object tool(wire& w, std::string_view name) {
  const auto list = w.call("tools/list");
  for (const auto& t : list.at("result").at("tools").as_array()) {
    if (t.at("name").as_string() == name) return t.as_object();
  }
  ADD_FAILURE() << "no tool " << name;
  return {};
}

TEST(typed_tool_seed, get_weather_is_listed_as_the_docs_show) {
  auto owner = seed_server();
  auto& s = *owner;
  wire w(s);
  w.initialize();
  // The whole Tool object of the docs' tools/list answer.
  EXPECT_EQ(tool(w, "get_weather"), j(R"({
        "name": "get_weather",
        "title": "Weather Information Provider",
        "description": "Get current weather information for a location",
        "annotations": {"readOnlyHint": true, "openWorldHint": true},
        "inputSchema": {
          "type": "object",
          "properties": {
            "location": {"type": "string", "description": "City name or zip code"},
            "units": {"type": "string", "description": "Temperature units", "default": "celsius"}
          },
          "required": ["location"]
        }})"));
  auto r = w.call("tools/call",
                  object{{"name", "get_weather"}, {"arguments", object{{"location", "Oslo"}}}});
  EXPECT_EQ(r.at("result"),
            j(R"({"content":[{"type":"text","text":"Weather in Oslo: 22 celsius"}]})"));
}

TEST(typed_tool_seed, required_optional_and_nullable) {
  auto owner = seed_server();
  auto& s = *owner;
  wire w(s);
  w.initialize();
  const object schema = tool(w, "example").at("inputSchema").as_object();
  EXPECT_EQ(schema.at("properties"), j(R"({
      "name":    { "type": "string",  "description": "User name" },
      "limit":   { "type": "integer", "description": "Max results", "default": 10 },
      "company": { "type": "string",  "description": "Company filter", "default": null }})"));
  EXPECT_EQ(schema.at("required"), j(R"(["name"])"));
  auto r =
      w.call("tools/call", object{{"name", "example"}, {"arguments", object{{"name", "Ada"}}}});
  EXPECT_EQ(r.at("result").at("content").at(0).at("text"), "Ada 10 -");
}

TEST(typed_tool_seed, literal_enums_with_a_default) {
  auto owner = seed_server();
  auto& s = *owner;
  wire w(s);
  w.initialize();
  EXPECT_EQ(tool(w, "create_event").at("inputSchema"), j(R"({"type":"object","properties":{
      "title":{"type":"string","description":"Event title"},
      "visibility":{"type":"string","description":"Who can see this event",
                    "enum":["public","private","team"]},
      "recurrence":{"type":"string","enum":["none","daily","weekly","monthly"],
                    "description":"Recurrence pattern","default":"none"}},
    "required":["title","visibility"]})"));
  auto bad =
      w.call("tools/call", object{{"name", "create_event"},
                                  {"arguments", object{{"title", "t"}, {"visibility", "all"}}}});
  EXPECT_TRUE(bad.at("result").at("isError").as_bool());
  auto ok =
      w.call("tools/call", object{{"name", "create_event"},
                                  {"arguments", object{{"title", "t"}, {"visibility", "team"}}}});
  EXPECT_EQ(ok.at("result").at("structuredContent"), j(R"({"id":"ev-1","visibility":"team"})"));
}

TEST(typed_tool_seed, a_nested_model_is_a_nested_object) {
  auto owner = seed_server();
  auto& s = *owner;
  wire w(s);
  w.initialize();
  EXPECT_EQ(tool(w, "search").at("inputSchema"), j(R"({"type":"object","properties":{
      "params":{"type":"object","properties":{
        "query":{"type":"string","description":"The search query string"},
        "max_results":{"type":"integer","description":"Maximum number of results to return",
                       "default":10},
        "include_metadata":{"type":"boolean","description":"Whether to include metadata",
                            "default":false}},
      "required":["query"]}},
    "required":["params"]})"));
  auto r = w.call("tools/call",
                  object{{"name", "search"}, {"arguments", j(R"({"params":{"query":"q"}})")}});
  EXPECT_EQ(r.at("result"),
            j(R"({"content":[{"type":"text","text":"[\"result1\",\"result2\"]"}]})"));
}

TEST(typed_tool_seed, plain_returns_and_raised_errors) {
  auto owner = seed_server();
  auto& s = *owner;
  wire w(s);
  w.initialize();
  auto greet =
      w.call("tools/call", object{{"name", "greet"}, {"arguments", object{{"location", "Ada"}}}});
  EXPECT_EQ(greet.at("result"), j(R"({"content":[{"type":"text","text":"Hello, Ada!"}]})"));
  auto divide =
      w.call("tools/call", object{{"name", "divide"}, {"arguments", object{{"a", 1}, {"b", 0}}}});
  EXPECT_EQ(divide.at("result"),
            j(R"({"content":[{"type":"text","text":"Cannot divide by zero"}],"isError":true})"));
}

}  // namespace
