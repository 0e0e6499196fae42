#include <mcp/json.hpp>

#include <gtest/gtest.h>

namespace {

TEST(json, round_trips_compactly) {
  auto v = mcp::parse_json(R"( { "a" : [1, -2, 3.5, true, null], "b": "x\ny\"z" } )");
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_EQ(mcp::to_json_string(*v), R"({"a":[1,-2,3.5,true,null],"b":"x\ny\"z"})");
}

TEST(json, doubles_use_shortest_form) {
  EXPECT_EQ(mcp::to_json_string(mcp::json::value(21.5)), "21.5");
  EXPECT_EQ(mcp::to_json_string(mcp::json::value(0.1)), "0.1");
  EXPECT_EQ(mcp::to_json_string(mcp::json::value(1e300)), "1e+300");
  EXPECT_EQ(mcp::to_json_string(mcp::json::value(std::nan(""))), "null");
}

TEST(json, control_characters_are_escaped_and_utf8_kept) {
  std::string s = "tab\t nul";
  s.push_back('\0');
  s += " \x1f é";
  EXPECT_EQ(mcp::to_json_string(mcp::json::value(s)), "\"tab\\t nul\\u0000 \\u001f é\"");
}

TEST(json, invalid_json_is_parse_error) {
  for (const char* bad : {"{", "[1,]", "{\"a\":1} x", "nul", "\"\xff\"", "// c\n1"}) {
    auto v = mcp::parse_json(bad);
    ASSERT_FALSE(v) << bad;
    EXPECT_TRUE(v.error().is(mcp::errc::parse_error)) << bad;
  }
}

TEST(json, limits_are_enforced) {
  std::string deep(10000, '[');
  deep += std::string(10000, ']');
  auto v = mcp::parse_json(deep);
  ASSERT_FALSE(v);
  EXPECT_TRUE(v.error().is(mcp::errc::limit_exceeded));
  auto big = mcp::parse_json("[1,2,3]", {.max_size = 3, .max_depth = 8});
  ASSERT_FALSE(big);
  EXPECT_TRUE(big.error().is(mcp::errc::limit_exceeded));
  EXPECT_TRUE(mcp::parse_json("[[1]]", {.max_size = 100, .max_depth = 2}));
  EXPECT_FALSE(mcp::parse_json("[[[1]]]", {.max_size = 100, .max_depth = 2}));
}

}  // namespace
