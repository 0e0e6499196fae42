// Field metadata of mcp/reflect.hpp (MCP_FIELDS, MCP_FIELD_DOCS with mcp::field): the exact
// schema of every keyword, what the validator then rejects (with the field's JSON Pointer), and
// what the decoder does with defaults, JSON names and null.
#include <mcp/json_schema.hpp>
#include <mcp/reflect.hpp>

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "reflect_util.hpp"
#include "test_types.hpp"

namespace reflect_fields {

// A struct described with BOOST_DESCRIBE_STRUCT (it has a base), annotated beside it.
struct sized : reflect_test::point {
  int width = 0;
  std::optional<std::string> label;
};
BOOST_DESCRIBE_STRUCT(sized, (reflect_test::point), (width, label))
MCP_FIELD_DOCS(sized, (x, {.description = "Left edge", .minimum = 0}),
               (width, {.name = "w", .defaulted = true, .exclusive_minimum = 0}),
               (label, "Shown on top"))

// A nullable recursive member: its schema is a $ref, so null is offered through anyOf.
struct link;
struct chain {
  int value = 0;
  std::vector<link> links;
};
MCP_FIELDS(chain, (value), (links))
struct link {
  std::optional<chain> up;
};
MCP_FIELDS(link, (up, {.description = "The chain above", .nullable = true}))

struct no_members {};
MCP_FIELDS(no_members)

}  // namespace reflect_fields

namespace {

using namespace reflect_test;
namespace json = mcp::json;

TEST(reflect_fields, every_keyword_in_the_schema) {
  expect_schema<booking>(R"({"type":"object","properties":{
    "guest":{"type":"string","title":"Guest","description":"Family name","minLength":2,
             "maxLength":20,"pattern":"^[A-Z][a-z]+$","examples":["Hansen","Berg"]},
    "nights":{"type":"integer","description":"Nights","minimum":1,"maximum":30,"default":1},
    "budget":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":100000,"multipleOf":0.5,
              "default":100},
    "room":{"type":"string","enum":["single","double","suite"],"default":"double"},
    "tags":{"type":"array","items":{"type":"string"},"maxItems":3,"uniqueItems":true,
            "default":[]},
    "scores":{"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":4},
    "email":{"type":["string","null"],"format":"email"},
    "level":{"type":["string","null"],"enum":["low","normal","high",null]},
    "maxTokens":{"type":"integer","default":256},
    "note":{"type":"string","deprecated":true},
    "where":{"type":["object","null"],"properties":{"x":{"type":"number"},"y":{"type":"number"}},
             "required":["x","y"]},
    "floor":{"type":"integer","minimum":0,"maximum":40,"default":2}},
    "required":["guest","scores"]})");
}

TEST(reflect_fields, beside_boost_describe_and_on_base_members) {
  expect_schema<reflect_fields::sized>(R"({"type":"object","properties":{
    "x":{"type":"number","description":"Left edge","minimum":0},
    "y":{"type":"number"},
    "w":{"type":"integer","exclusiveMinimum":0,"default":0},
    "label":{"type":"string","description":"Shown on top"}},
    "required":["x","y"]})");
}

TEST(reflect_fields, nullable_without_a_type_uses_any_of) {
  expect_schema<reflect_fields::chain>(R"({"type":"object","properties":{
    "value":{"type":"integer"},
    "links":{"type":"array","items":{"type":"object","properties":{
      "up":{"anyOf":[{"$ref":"#"},{"type":"null"}],"description":"The chain above"}}}}},
    "required":["value","links"]})");
  expect_schema<reflect_fields::no_members>(R"({"type":"object","additionalProperties":false})");
}

TEST(reflect_fields, json_names_defaults_and_null_when_decoding) {
  auto b = mcp::from_json<booking>(parse(R"({"guest":"Hansen","scores":[1],"max_tokens":5})"));
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_EQ(b->nights, 1);
  EXPECT_EQ(b->budget, 100);
  EXPECT_EQ(b->room, "double");
  EXPECT_EQ(b->max_tokens, 256);  // the C++ name is not the JSON key
  EXPECT_EQ(b->floor, 2);         // the given default, not the initializer
  auto n = mcp::from_json<booking>(parse(
      R"({"guest":"Berg","scores":[],"maxTokens":7,"email":null,"level":null,"where":null})"));
  ASSERT_TRUE(n) << n.error().message;
  EXPECT_EQ(n->max_tokens, 7);
  EXPECT_FALSE(n->email);
  EXPECT_FALSE(n->level);
  EXPECT_FALSE(n->where);

  json::value v = mcp::to_json(*b);
  EXPECT_EQ(mcp::to_json_string(v),
            R"({"guest":"Hansen","nights":1,"budget":100,"room":"double","tags":[],"scores":[1],)"
            R"("maxTokens":256,"floor":2})");

  for (const auto& [text, message] : std::vector<std::pair<const char*, const char*>>{
           {R"({"scores":[1]})", "/guest: required property is missing"},
           {R"({"guest":"A","scores":[1],"maxTokens":"x"})",
            "/maxTokens: expected an integer, got string \"x\""},
           {R"({"guest":"A","scores":[1],"floor":300})",
            "/floor: expected an integer between 0 and 255, got number 300"},
           {R"({"guest":"A","scores":[1],"nights":1e12})",
            "/nights: expected an integer between -2147483648 and 2147483647, got number 1e+12"},
       }) {
    auto r = mcp::from_json<booking>(parse(text));
    ASSERT_FALSE(r) << text;
    EXPECT_EQ(r.error().message, message);
  }
}

TEST(reflect_fields, the_validator_enforces_every_keyword) {
  auto v =
      mcp::json_schema::validator::compile(mcp::schema_for<booking>(), {.format_assertion = true});
  ASSERT_TRUE(v) << v.error().message;
  const json::object valid = parse(R"({"guest":"Hansen","scores":[1]})").as_object();
  ASSERT_TRUE(v->is_valid(valid));
  EXPECT_TRUE(v->is_valid(
      parse(R"({"guest":"Hansen","scores":[1],"email":null,"level":null,"where":null})")));
  EXPECT_TRUE(v->is_valid(parse(R"({"guest":"Hansen","scores":[1],"email":"a@example.com"})")));
  // One violation per keyword: dropping a keyword from the schema makes its case pass.
  for (const auto& [key, bad, pointer] :
       std::vector<std::tuple<const char*, const char*, const char*>>{
           {"guest", R"("H")", "/guest"},                      // minLength
           {"guest", R"("Haaaaaaaaaaaaaaaaaaaa")", "/guest"},  // maxLength
           {"guest", R"("hansen")", "/guest"},                 // pattern
           {"nights", "0", "/nights"},                         // minimum
           {"nights", "31", "/nights"},                        // maximum
           {"budget", "0", "/budget"},                         // exclusiveMinimum
           {"budget", "100000", "/budget"},                    // exclusiveMaximum
           {"budget", "1.25", "/budget"},                      // multipleOf
           {"room", R"("tent")", "/room"},                     // enum (list)
           {"tags", R"(["a","b","c","d"])", "/tags"},          // maxItems
           {"tags", R"(["a","a"])", "/tags"},                  // uniqueItems
           {"scores", "[]", "/scores"},                        // minItems
           {"scores", "[1,2,3,4,5]", "/scores"},               // maxItems
           {"email", R"("not an address")", "/email"},         // format
           {"level", R"("urgent")", "/level"},                 // enum (described)
           {"note", "null", "/note"},                          // not nullable
           {"floor", "41", "/floor"},                          // maximum
           {"maxTokens", "1.5", "/maxTokens"},                 // JSON name, type
       }) {
    json::object o = valid;
    o[key] = parse(bad);
    auto errors = v->validate(o);
    ASSERT_FALSE(errors.empty()) << key << " = " << bad;
    EXPECT_EQ(errors.front().instance_location, pointer) << errors.front().message;
    EXPECT_EQ(errors.front().message.rfind(std::string(pointer) + ": ", 0), 0U)
        << errors.front().message;
  }
}

TEST(reflect_fields, literals) {
  EXPECT_EQ(mcp::literal().to_json(), json::value(nullptr));
  EXPECT_FALSE(mcp::literal().has_value());
  EXPECT_EQ(mcp::literal(nullptr).to_json(), json::value(nullptr));
  EXPECT_TRUE(mcp::literal(nullptr).has_value());
  EXPECT_EQ(mcp::literal(true).to_json(), json::value(true));
  EXPECT_EQ(mcp::literal(-3).to_json(), json::value(-3));
  EXPECT_EQ(mcp::literal(18446744073709551615ULL).to_json().as_uint64(), 18446744073709551615ULL);
  EXPECT_EQ(mcp::literal(7U).to_json().kind(), json::kind::int64);
  EXPECT_EQ(mcp::literal(2.5).to_json(), json::value(2.5));
  EXPECT_EQ(mcp::literal("x").to_json(), json::value("x"));
}

}  // namespace
