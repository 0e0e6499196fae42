// mcp/checked_json.hpp: validate against schema_for<T>(), then decode.
#include <mcp/checked_json.hpp>

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

namespace checked_test {

struct reading {
  std::string sensor;
  double value = 0;
  std::string at;
};
MCP_FIELDS(reading, (sensor, {.min_length = 1}), (value, {.minimum = -50, .maximum = 60}),
           (at, {.format = "date-time"}))

struct bad_pattern {
  std::string s;
};
MCP_FIELDS(bad_pattern, (s, {.pattern = "("}))

}  // namespace checked_test

namespace {

using checked_test::reading;

mcp::json::value parse(std::string_view text) {
  auto v = mcp::parse_json(text);
  EXPECT_TRUE(v) << text;
  return v ? *v : mcp::json::value();
}

TEST(checked_json, valid_input_is_decoded) {
  auto r = mcp::from_json_checked<reading>(
      parse(R"({"sensor":"t1","value":21.5,"at":"2025-11-25T10:00:00Z"})"));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->sensor, "t1");
  EXPECT_EQ(r->value, 21.5);
}

TEST(checked_json, violations_name_the_field) {
  for (const auto& [text, message, path] :
       std::vector<std::tuple<const char*, const char*, const char*>>{
           {R"({"sensor":"t1","value":61,"at":"2025-11-25T10:00:00Z"})",
            "/value: 61 is greater than the maximum 60", "/value"},
           {R"({"sensor":"","value":1,"at":"2025-11-25T10:00:00Z"})", nullptr, "/sensor"},
           {R"({"sensor":"t1","value":1,"at":"yesterday"})", nullptr, "/at"},
       }) {
    auto r = mcp::from_json_checked<reading>(parse(text));
    ASSERT_FALSE(r) << text;
    EXPECT_EQ(r.error().code, static_cast<int>(mcp::errc::invalid_params));
    if (message != nullptr) {
      EXPECT_EQ(r.error().message, message);
    }
    EXPECT_EQ(r.error().message.rfind(std::string(path) + ": ", 0), 0U) << r.error().message;
    ASSERT_TRUE(r.error().data);
    EXPECT_EQ(r.error().data->at("path"), path);
  }
}

TEST(checked_json, a_pattern_that_does_not_compile_is_an_error) {
  EXPECT_FALSE(mcp::validator_for<checked_test::bad_pattern>());
  auto r = mcp::from_json_checked<checked_test::bad_pattern>(parse(R"({"s":"x"})"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, static_cast<int>(mcp::errc::invalid_params));
}

}  // namespace
