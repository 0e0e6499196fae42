#include <mcp/json_schema.hpp>

#include <gtest/gtest.h>

TEST(JsonSchema, Placeholder) {
  auto v = mcp::json_schema::validator::compile(boost::json::parse(R"({"type":"integer"})"));
  ASSERT_TRUE(v);
  EXPECT_TRUE(v->is_valid(1));
}
