// File: mcp/content.hpp
//
// Tool results and the content blocks they carry (MCP 2025-11-25 `ContentBlock`,
// `CallToolResult`): text, image, audio, resource_link and embedded resources, each with
// optional annotations. Blocks are plain JSON objects built by the helpers below, so every
// field the spec adds later can be set by hand.
//
// Example:
//
//   mcp::call_tool_result r;
//   r.content.push_back(mcp::text_content("Sunny, 21.5 °C"));
//   r.content.push_back(mcp::image_content(png_bytes, "image/png",
//                                          {.audience = {{"user"}}, .priority = 0.5}));
//   auto err = mcp::tool_error_result("city not found: Osloo");  // isError: true
#pragma once

#include <mcp/json.hpp>

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mcp {

/// Content annotations (`audience`, `priority` in [0,1], `lastModified` ISO-8601).
struct content_annotations {
  std::optional<std::vector<std::string>> audience{};  ///< "user" and/or "assistant"
  std::optional<double> priority{};                    ///< 0 (least important) to 1 (most)
  std::optional<std::string> last_modified{};          ///< ISO-8601, e.g. "2025-01-12T15:00:58Z"
};

/// Standard base64 of `bytes` (RFC 4648, with padding).
[[nodiscard]] std::string base64_encode(std::span<const std::byte> bytes);
/// Same, for text or binary held in a string.
[[nodiscard]] std::string base64_encode(std::string_view bytes);
/// Decodes padded base64; nothing when `s` is not valid base64.
[[nodiscard]] std::optional<std::string> base64_decode(std::string_view s);
/// True when `s` is canonical padded base64 (what image, audio and blob data must be).
[[nodiscard]] bool is_valid_base64(std::string_view s) noexcept;

/// `{"type":"text","text":...}`.
[[nodiscard]] json::object text_content(std::string_view text, const content_annotations& a = {});
/// `{"type":"image","data":base64,"mimeType":...}` from raw bytes.
[[nodiscard]] json::object image_content(std::span<const std::byte> bytes,
                                         std::string_view mime_type,
                                         const content_annotations& a = {});
/// `{"type":"audio","data":base64,"mimeType":...}` from raw bytes.
[[nodiscard]] json::object audio_content(std::span<const std::byte> bytes,
                                         std::string_view mime_type,
                                         const content_annotations& a = {});

/// A link to a resource (`resource_link`).
struct resource_link {
  std::string uri;                           ///< the resource's URI (required)
  std::string name;                          ///< its programmatic name (required)
  std::optional<std::string> title{};        ///< display name
  std::optional<std::string> description{};  ///< what it holds
  std::optional<std::string> mime_type{};    ///< e.g. "text/plain"
  std::optional<std::uint64_t> size{};       ///< bytes, before base64
};
/// `{"type":"resource_link","uri":...,"name":...}` with the link's optional members.
[[nodiscard]] json::object resource_link_content(const resource_link& link,
                                                 const content_annotations& a = {});

/// An embedded text resource (`{"type":"resource","resource":{uri, mimeType?, text}}`).
[[nodiscard]] json::object embedded_text_resource(std::string_view uri, std::string_view text,
                                                  std::optional<std::string_view> mime_type = {},
                                                  const content_annotations& a = {});
/// An embedded binary resource (`blob` is the base64 of `bytes`).
[[nodiscard]] json::object embedded_blob_resource(std::string_view uri,
                                                  std::span<const std::byte> bytes,
                                                  std::optional<std::string_view> mime_type = {},
                                                  const content_annotations& a = {});

/// The result of tools/call. `content` may be empty; `structured_content`, when set, must be a
/// JSON object conforming to the tool's outputSchema.
struct call_tool_result {
  json::array content{};  ///< content blocks (`text_content`, `image_content`, ...)
  std::optional<json::object> structured_content{};  ///< `structuredContent`
  bool is_error = false;  ///< `isError`: a tool execution error the model can read
  json::object meta{};    ///< `_meta`, omitted when empty

  /// The wire form (`isError` omitted when false, `_meta` when empty).
  [[nodiscard]] json::object to_json() const&;
  /// The wire form, moving the content out of this result.
  [[nodiscard]] json::object to_json() &&;
};

/// A result with `isError: true` and one text block: a tool execution error the model can read.
[[nodiscard, gnu::cold]] call_tool_result tool_error_result(std::string_view message);

}  // namespace mcp
