#include <mcp/content.hpp>

#include <gtest/gtest.h>

namespace {

using mcp::json::object;

TEST(content, base64_round_trips_every_length) {
  std::string bytes;
  for (int n = 0; n < 40; ++n) {
    const auto enc = mcp::base64_encode(bytes);
    EXPECT_TRUE(mcp::is_valid_base64(enc)) << enc;
    EXPECT_EQ(mcp::base64_decode(enc), bytes);
    bytes.push_back(static_cast<char>(n * 37 + 200));
  }
  EXPECT_EQ(mcp::base64_encode(std::string_view("foobar")), "Zm9vYmFy");
  EXPECT_EQ(mcp::base64_encode(std::string_view("fo")), "Zm8=");
  for (const char* bad : {"Zm9", "Zm9v!", "Z=9v", "Zm==Zm9v", "====", "a===", "Zg=A", "Zm9\xff",
                          "Zm-v", "Zm_v", "Zm9v\n"}) {
    EXPECT_FALSE(mcp::is_valid_base64(bad)) << bad;
    EXPECT_FALSE(mcp::base64_decode(bad)) << bad;
  }
}

TEST(content, blocks_have_the_schema_shapes) {
  const std::string png = "\x89PNG";
  const auto bytes = std::as_bytes(std::span(png.data(), png.size()));
  EXPECT_EQ(mcp::text_content("hi"), (object{{"type", "text"}, {"text", "hi"}}));
  EXPECT_EQ(mcp::image_content(bytes, "image/png"),
            (object{{"type", "image"}, {"data", "iVBORw=="}, {"mimeType", "image/png"}}));
  EXPECT_EQ(mcp::audio_content(bytes, "audio/wav").at("type"), "audio");
  EXPECT_EQ(mcp::resource_link_content({.uri = "file:///a", .name = "a", .size = 3}),
            (object{{"type", "resource_link"}, {"uri", "file:///a"}, {"name", "a"}, {"size", 3}}));
  EXPECT_EQ(mcp::embedded_text_resource("u://x", "body", "text/plain"),
            (object{{"type", "resource"},
                    {"resource",
                     object{{"uri", "u://x"}, {"mimeType", "text/plain"}, {"text", "body"}}}}));
  EXPECT_EQ(mcp::embedded_blob_resource("u://b", bytes).at("resource").at("blob"), "iVBORw==");
  auto annotated = mcp::text_content(
      "x", {.audience = {{"user"}}, .priority = 0.25, .last_modified = "2025-01-01T00:00:00Z"});
  EXPECT_EQ(annotated.at("annotations"), (object{{"audience", mcp::json::array{"user"}},
                                                 {"priority", 0.25},
                                                 {"lastModified", "2025-01-01T00:00:00Z"}}));
}

TEST(content, result_wire_form_omits_defaults) {
  mcp::call_tool_result r;
  EXPECT_EQ(r.to_json(), (object{{"content", mcp::json::array{}}}));
  auto e = mcp::tool_error_result("bad");
  EXPECT_EQ(e.to_json(),
            (object{{"content", mcp::json::array{mcp::text_content("bad")}}, {"isError", true}}));
  r.structured_content = object{{"a", 1}};
  r.meta = object{{"k", 2}};
  EXPECT_EQ(r.to_json().at("structuredContent"), (object{{"a", 1}}));
  EXPECT_EQ(r.to_json().at("_meta"), (object{{"k", 2}}));
}

}  // namespace
