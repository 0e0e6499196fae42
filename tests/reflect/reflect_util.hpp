// Helpers of the mcp/reflect.hpp tests: JSON text parsed (a failure on text that does not
// parse), and a type's inferred schema compared with the one expected.
#pragma once

#include <mcp/reflect.hpp>

#include <gtest/gtest.h>

#include <string_view>

namespace reflect_test {

/// `text` parsed; null, and a failure, when it does not parse.
inline mcp::json::value parse(std::string_view text) {
  auto v = mcp::parse_json(text);
  EXPECT_TRUE(v) << text;
  return v ? *v : mcp::json::value();
}

/// Expects `schema_for<T>()` to be `expected`, to the letter (keys in the order written).
template <class T>
void expect_schema(std::string_view expected) {
  const mcp::json::value got = mcp::schema_for<T>();
  EXPECT_EQ(mcp::to_json_string(got), mcp::to_json_string(parse(expected)));
}

}  // namespace reflect_test
