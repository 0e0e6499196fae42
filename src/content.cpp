#include <mcp/content.hpp>

#include <array>

#include "wire.hpp"

namespace mcp {

namespace {

constexpr std::string_view alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void add_annotations(json::object& block, const content_annotations& a) {
  if (!a.audience && !a.priority && !a.last_modified) return;
  block["annotations"] = detail::wire::annotations(a);
}

json::object binary_block(std::string_view type, std::span<const std::byte> bytes,
                          std::string_view mime_type, const content_annotations& a) {
  json::object o;
  o["type"] = type;
  o["data"] = base64_encode(bytes);
  o["mimeType"] = mime_type;
  add_annotations(o, a);
  return o;
}

json::object embedded(std::string_view uri, std::optional<std::string_view> mime_type,
                      std::string_view key, std::string value, const content_annotations& a) {
  json::object r;
  r["uri"] = uri;
  if (mime_type) r["mimeType"] = *mime_type;
  r[key] = std::move(value);
  json::object o;
  o["type"] = "resource";
  o["resource"] = std::move(r);
  add_annotations(o, a);
  return o;
}

}  // namespace

std::string base64_encode(std::span<const std::byte> bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  auto at = [&](std::size_t k) { return static_cast<std::uint32_t>(bytes[k]); };
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t n = (at(i) << 16U) | (at(i + 1) << 8U) | at(i + 2);
    out.push_back(alphabet[(n >> 18U) & 63U]);
    out.push_back(alphabet[(n >> 12U) & 63U]);
    out.push_back(alphabet[(n >> 6U) & 63U]);
    out.push_back(alphabet[n & 63U]);
  }
  if (const std::size_t rest = bytes.size() - i; rest > 0) {
    std::uint32_t n = at(i) << 16U;
    if (rest == 2) n |= at(i + 1) << 8U;
    out.push_back(alphabet[(n >> 18U) & 63U]);
    out.push_back(alphabet[(n >> 12U) & 63U]);
    out.push_back(rest == 2 ? alphabet[(n >> 6U) & 63U] : '=');
    out.push_back('=');
  }
  return out;
}

std::string base64_encode(std::string_view bytes) {
  return base64_encode(std::as_bytes(std::span(bytes.data(), bytes.size())));
}

bool is_valid_base64(std::string_view s) noexcept {
  if (s.size() % 4 != 0) return false;
  std::size_t pad = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '=') {
      if (i < s.size() - 2) return false;
      ++pad;
      continue;
    }
    if (pad > 0 || alphabet.find(c) == std::string_view::npos) return false;
  }
  return true;
}

std::optional<std::string> base64_decode(std::string_view s) {
  if (!is_valid_base64(s)) return std::nullopt;
  std::string out;
  out.reserve(s.size() / 4 * 3);
  std::uint32_t buf = 0;
  unsigned bits = 0;
  for (const char c : s) {
    if (c == '=') break;
    buf = (buf << 6U) | static_cast<std::uint32_t>(alphabet.find(c));
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buf >> bits) & 0xFFU));
    }
  }
  return out;
}

json::object text_content(std::string_view text, const content_annotations& a) {
  // One allocation for the object's table (an initializer list costs three).
  json::object o;
  o.reserve(3);
  o.emplace("type", "text");
  o.emplace("text", text);
  add_annotations(o, a);
  return o;
}

json::object image_content(std::span<const std::byte> bytes, std::string_view mime_type,
                           const content_annotations& a) {
  return binary_block("image", bytes, mime_type, a);
}

json::object audio_content(std::span<const std::byte> bytes, std::string_view mime_type,
                           const content_annotations& a) {
  return binary_block("audio", bytes, mime_type, a);
}

json::object resource_link_content(const resource_link& link, const content_annotations& a) {
  json::object o;
  o["type"] = "resource_link";
  o["uri"] = link.uri;
  o["name"] = link.name;
  if (link.title) o["title"] = *link.title;
  if (link.description) o["description"] = *link.description;
  if (link.mime_type) o["mimeType"] = *link.mime_type;
  if (link.size) o["size"] = *link.size;
  add_annotations(o, a);
  return o;
}

json::object embedded_text_resource(std::string_view uri, std::string_view text,
                                    std::optional<std::string_view> mime_type,
                                    const content_annotations& a) {
  return embedded(uri, mime_type, "text", std::string(text), a);
}

json::object embedded_blob_resource(std::string_view uri, std::span<const std::byte> bytes,
                                    std::optional<std::string_view> mime_type,
                                    const content_annotations& a) {
  return embedded(uri, mime_type, "blob", base64_encode(bytes), a);
}

json::object call_tool_result::to_json() const& { return call_tool_result(*this).to_json(); }

json::object call_tool_result::to_json() && {
  json::object o;
  o.reserve(4);
  o["content"] = std::move(content);
  if (structured_content) o["structuredContent"] = std::move(*structured_content);
  if (is_error) o["isError"] = true;
  if (!meta.empty()) o["_meta"] = std::move(meta);
  return o;
}

call_tool_result tool_error_result(std::string_view message) {
  call_tool_result r;
  r.content.push_back(text_content(message));
  r.is_error = true;
  return r;
}

}  // namespace mcp
