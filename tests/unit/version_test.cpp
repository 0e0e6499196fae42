#include <mcp/protocol.hpp>
#include <mcp/version.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>

namespace {

static_assert(MCP_VERSION ==
              MCP_MAKE_VERSION(MCP_VERSION_MAJOR, MCP_VERSION_MINOR, MCP_VERSION_PATCH));
static_assert(MCP_MAKE_VERSION(0, 9, 999) < MCP_MAKE_VERSION(0, 10, 0));
static_assert(MCP_MAKE_VERSION(0, 999, 999) < MCP_MAKE_VERSION(1, 0, 0));

TEST(version, string_spells_the_numbers) {
  const std::string expected = std::to_string(MCP_VERSION_MAJOR) + "." +
                               std::to_string(MCP_VERSION_MINOR) + "." +
                               std::to_string(MCP_VERSION_PATCH);
  EXPECT_EQ(std::string(MCP_VERSION_STRING), expected);
}

// CMake reads the version from this header; what it read is passed back here.
TEST(version, header_is_the_cmake_project_version) {
  EXPECT_EQ(std::string(MCP_VERSION_STRING), MCP_PROJECT_VERSION);
}

TEST(version, library_matches_headers) { EXPECT_EQ(mcp::version(), MCP_VERSION_STRING); }

TEST(version, protocol_revisions_newest_first) {
  auto revisions = mcp::protocol_revisions();
  ASSERT_FALSE(revisions.empty());
  EXPECT_EQ(revisions.front(), mcp::latest_protocol_version);
  // Revisions are dates (YYYY-MM-DD): newest first is descending order.
  EXPECT_TRUE(std::is_sorted(revisions.begin(), revisions.end(), std::greater<>{}));
  EXPECT_TRUE(std::adjacent_find(revisions.begin(), revisions.end()) == revisions.end());
  for (auto r : revisions) EXPECT_TRUE(mcp::is_supported_protocol_version(r)) << r;
  EXPECT_NE(std::find(revisions.begin(), revisions.end(), "2024-11-05"), revisions.end());
  EXPECT_FALSE(mcp::is_supported_protocol_version("2024-10-07"));
}

}  // namespace
