// JSON Schema inference with mcp/reflect.hpp: exact expected schemas, docs, recursion.
#include <mcp/reflect.hpp>

#include <gtest/gtest.h>

#include <string>

#include "reflect_util.hpp"
#include "test_types.hpp"

namespace {

using namespace reflect_test;
namespace json = mcp::json;

TEST(reflect_schema, forecast_example) {
  expect_schema<forecast_in>(R"({
    "type": "object",
    "properties": {
      "city": {"type": "string", "description": "City name, e.g. Oslo"},
      "days": {"type": "integer",
               "description": "Days ahead, 1-16"},
      "unit": {"type": "string", "enum": ["metric", "imperial"],
               "description": "Unit system; metric if omitted"}
    },
    "required": ["city", "days"]
  })");
  expect_schema<forecast_out>(R"({
    "type": "object",
    "properties": {
      "summary": {"type": "string"},
      "high": {"type": "number"},
      "low": {"type": "number"}
    },
    "required": ["summary", "high", "low"]
  })");
}

TEST(reflect_schema, properties_keep_declaration_order) {
  json::object s = mcp::schema_for<forecast_in>();
  std::string keys;
  for (const auto& kv : s.at("properties").as_object()) keys += std::string(kv.key()) + " ";
  EXPECT_EQ(keys, "city days unit ");
}

TEST(reflect_schema, scalars) {
  expect_schema<bool>(R"({"type":"boolean"})");
  expect_schema<std::string>(R"({"type":"string"})");
  expect_schema<std::string_view>(R"({"type":"string"})");
  expect_schema<float>(R"({"type":"number"})");
  expect_schema<double>(R"({"type":"number"})");
  expect_schema<units>(R"({"type":"string","enum":["metric","imperial"]})");
}

TEST(reflect_schema, integers_have_no_cpp_range_noise) {
  // The C++ range is the decoder's business (a clear error naming the field); the schema
  // carries only the bounds a field declares.
  expect_schema<std::int8_t>(R"({"type":"integer"})");
  expect_schema<std::uint8_t>(R"({"type":"integer"})");
  expect_schema<std::int32_t>(R"({"type":"integer"})");
  expect_schema<std::uint64_t>(R"({"type":"integer"})");
}

TEST(reflect_schema, containers) {
  expect_schema<containers>(R"({
    "type": "object",
    "properties": {
      "ints": {"type": "array", "items": {"type": "integer"}},
      "strings": {"type": "array", "items": {"type": "string"}},
      "flags": {"type": "array", "items": {"type": "boolean"}},
      "points": {"type": "array", "items": {
        "type": "object",
        "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
        "required": ["x", "y"]}},
      "matrix": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
      "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
      "named": {"type": "object", "additionalProperties": {
        "type": "object",
        "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
        "required": ["x", "y"]}},
      "holes": {"type": "array", "items": {"anyOf": [
        {"type": "integer"},
        {"type": "null"}]}}
    },
    "required": ["ints", "strings", "flags", "points", "matrix", "counts", "named", "holes"]
  })");
}

TEST(reflect_schema, top_level_optional_allows_null) {
  expect_schema<std::optional<bool>>(R"({"anyOf":[{"type":"boolean"},{"type":"null"}]})");
}

TEST(reflect_schema, nested_structs_are_inline_with_docs) {
  expect_schema<drawing>(R"({
    "type": "object",
    "properties": {
      "title": {"type": "string"},
      "lines": {"type": "array", "items": {
        "type": "object",
        "properties": {
          "from": {"type": "object",
                   "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                   "required": ["x", "y"], "description": "Start"},
          "to": {"type": "object",
                 "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                 "required": ["x", "y"]},
          "label": {"type": "string", "description": "Shown next to the line"}
        },
        "required": ["from", "to"]}},
      "frame": {
        "type": "object",
        "properties": {
          "from": {"type": "object",
                   "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                   "required": ["x", "y"], "description": "Start"},
          "to": {"type": "object",
                 "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                 "required": ["x", "y"]},
          "label": {"type": "string", "description": "Shown next to the line"}
        },
        "required": ["from", "to"]}
    },
    "required": ["title", "lines"]
  })");
}

TEST(reflect_schema, json_members) {
  expect_schema<raw_json>(R"({
    "type": "object",
    "properties": {
      "any": {},
      "obj": {"type": "object"},
      "arr": {"type": "array"},
      "maybe": {}
    },
    "required": ["any", "obj", "arr"]
  })");
  expect_schema<json::value>("{}");
}

TEST(reflect_schema, empty_struct_is_closed) {
  json::object s = mcp::schema_for<empty>();
  EXPECT_EQ(mcp::to_json_string(s), R"({"type":"object","additionalProperties":false})");
}

TEST(reflect_schema, all_optional_members_give_no_required) {
  expect_schema<std::optional<empty>>(
      R"({"anyOf":[{"type":"object","additionalProperties":false},{"type":"null"}]})");
  expect_schema<base>(R"({
    "type": "object",
    "properties": {
      "id": {"type": "string", "description": "Stable identifier"},
      "version": {"type": "integer",
                  "description": "Revision"}
    },
    "required": ["id"]
  })");
}

TEST(reflect_schema, bases_and_their_docs) {
  // Base members come first; a doc in the derived struct's MCP_FIELD_DOCS wins over the base's.
  expect_schema<derived>(R"({
    "type": "object",
    "properties": {
      "id": {"type": "string", "description": "Stable identifier"},
      "version": {"type": "integer",
                  "description": "Revision of the derived record"},
      "unit": {"type": "string", "enum": ["metric", "imperial"], "description": "Units"}
    },
    "required": ["id", "unit"]
  })");
}

TEST(reflect_schema, recursive_root_refers_to_itself) {
  expect_schema<tree>(R"({
    "type": "object",
    "properties": {
      "name": {"type": "string"},
      "children": {"type": "array", "items": {"$ref": "#"}}
    },
    "required": ["name", "children"]
  })");
}

TEST(reflect_schema, recursive_member_goes_to_defs) {
  expect_schema<forest>(R"({
    "type": "object",
    "properties": {
      "trees": {"type": "array", "items": {"$ref": "#/$defs/tree"}},
      "biggest": {"$ref": "#/$defs/tree"}
    },
    "required": ["trees"],
    "$defs": {
      "tree": {
        "type": "object",
        "properties": {
          "name": {"type": "string"},
          "children": {"type": "array", "items": {"$ref": "#/$defs/tree"}}
        },
        "required": ["name", "children"]
      }
    }
  })");
  expect_schema<std::vector<tree>>(R"({
    "type": "array",
    "items": {"$ref": "#/$defs/tree"},
    "$defs": {
      "tree": {
        "type": "object",
        "properties": {
          "name": {"type": "string"},
          "children": {"type": "array", "items": {"$ref": "#/$defs/tree"}}
        },
        "required": ["name", "children"]
      }
    }
  })");
}

TEST(reflect_schema, mutual_recursion) {
  // expr is the root: call is expanded inline and refers back to the root.
  expect_schema<expr>(R"({
    "type": "object",
    "properties": {
      "number": {"type": "number"},
      "calls": {"type": "array", "items": {
        "type": "object",
        "properties": {
          "fn": {"type": "string"},
          "args": {"type": "array", "items": {"$ref": "#"}}
        },
        "required": ["fn", "args"]}}
    },
    "required": ["calls"]
  })");
  // From program, call is the first struct met again: it goes to $defs, expr stays inline.
  expect_schema<program>(R"({
    "type": "object",
    "properties": {
      "body": {"type": "array", "items": {"$ref": "#/$defs/call"}}
    },
    "required": ["body"],
    "$defs": {
      "call": {
        "type": "object",
        "properties": {
          "fn": {"type": "string"},
          "args": {"type": "array", "items": {
            "type": "object",
            "properties": {
              "number": {"type": "number"},
              "calls": {"type": "array", "items": {"$ref": "#/$defs/call"}}
            },
            "required": ["calls"]}}
        },
        "required": ["fn", "args"]
      }
    }
  })");
}

TEST(reflect_schema, json_traits_schema) {
  expect_schema<color>(R"({"type":"string","pattern":"^[0-9]{1,3},[0-9]{1,3},[0-9]{1,3}$"})");
  json::object s = mcp::schema_for<palette>();
  EXPECT_EQ(s.at("properties").at("primary"), json::value(mcp::schema_for<color>()));
  EXPECT_EQ(s.at("properties").at("others").at("items"), json::value(mcp::schema_for<color>()));
  EXPECT_EQ(s.at("required"), parse(R"(["name","primary","others","by_name"])"));
  expect_schema<celsius>(R"({
    "type": "object",
    "properties": {"value": {"type": "number", "minimum": -273.15}},
    "required": ["value"]
  })");
}

}  // namespace

// ------------------------------------------------------------------------ $defs name collisions

namespace reflect_test_a {
struct node {
  std::vector<node> next;
};
BOOST_DESCRIBE_STRUCT(node, (), (next))
}  // namespace reflect_test_a

namespace reflect_test_b {
struct node {
  std::optional<std::vector<node>> next;
};
BOOST_DESCRIBE_STRUCT(node, (), (next))

struct both {
  reflect_test_a::node a;
  node b;
};
BOOST_DESCRIBE_STRUCT(both, (), (a, b))
}  // namespace reflect_test_b

namespace {

TEST(reflect_schema, defs_names_do_not_collide) {
  expect_schema<reflect_test_b::both>(R"({
    "type": "object",
    "properties": {
      "a": {"$ref": "#/$defs/node"},
      "b": {"$ref": "#/$defs/node_2"}
    },
    "required": ["a", "b"],
    "$defs": {
      "node": {
        "type": "object",
        "properties": {"next": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
        "required": ["next"]
      },
      "node_2": {
        "type": "object",
        "properties": {"next": {"type": "array", "items": {"$ref": "#/$defs/node_2"}}}
      }
    }
  })");
}

// ------------------------------------------------------------------------------- MCP_FIELD_DOCS

TEST(reflect_field_docs, def_names) {
  EXPECT_EQ(mcp::detail::def_name_for("ns::tree"), "tree");
  EXPECT_EQ(mcp::detail::def_name_for("ns::box<ns::tree, 3>"), "box_ns_tree_3");
  EXPECT_EQ(mcp::detail::def_name_for("{anonymous}::x"), "x");
  EXPECT_EQ(mcp::detail::def_name_for("<>"), "type");
}

}  // namespace

// Docs validity is checked at compile time; these types exercise the check without a
// compile failure (field_docs_valid is what schema_for static_asserts).
namespace reflect_test_docs {
struct partly_described {
  int shown = 0;
  int hidden = 0;
};
BOOST_DESCRIBE_STRUCT(partly_described, (), (shown))
MCP_FIELD_DOCS(partly_described, (hidden, "not described, so not in the schema"))

struct twice {
  int a = 0;
};
BOOST_DESCRIBE_STRUCT(twice, (), (a))
MCP_FIELD_DOCS(twice, (a, "one"), (a, "two"))

struct no_docs {
  int a = 0;
};
BOOST_DESCRIBE_STRUCT(no_docs, (), (a))
MCP_FIELD_DOCS(no_docs)

static_assert(!mcp::detail::field_docs_valid<partly_described>());
static_assert(!mcp::detail::field_docs_valid<twice>());
static_assert(mcp::detail::field_docs_valid<no_docs>());
static_assert(mcp::detail::field_docs_valid<reflect_test::forecast_in>());
static_assert(mcp::detail::field_docs_valid<reflect_test::derived>());  // documents a base member
static_assert(mcp::detail::field_docs_valid<reflect_test::point>());    // no MCP_FIELD_DOCS
}  // namespace reflect_test_docs

namespace {

TEST(reflect_field_docs, lookup) {
  EXPECT_EQ(mcp::detail::own_field<reflect_test::forecast_in>("city")->description,
            "City name, e.g. Oslo");
  EXPECT_FALSE(mcp::detail::own_field<reflect_test::forecast_in>("nope"));
  EXPECT_EQ(mcp::detail::own_field<reflect_test_docs::no_docs>("a"), std::nullopt);
  expect_schema<reflect_test_docs::no_docs>(
      R"({"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]})");
}

}  // namespace
