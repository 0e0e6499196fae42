#include <mcp/error.hpp>

#include <gtest/gtest.h>

namespace {

mcp::result<int> half(int v) {
  if (v % 2 != 0) return mcp::error{mcp::errc::invalid_params, "odd"};
  return v / 2;
}

TEST(error, result_holds_value_or_error) {
  auto ok = half(4);
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok, 2);
  auto bad = half(3);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, -32602);
  EXPECT_TRUE(bad.error().is(mcp::errc::invalid_params));
  EXPECT_EQ(bad.error().message, "odd");
}

TEST(error, value_on_error_throws_error_exception) {
  auto bad = half(3);
  try {
    (void)bad.value();
    FAIL() << "value() did not throw";
  } catch (const mcp::error_exception& e) {
    EXPECT_EQ(e.get().code, -32602);
    EXPECT_STREQ(e.what(), "odd");
  }
}

}  // namespace
