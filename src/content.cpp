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
  std::string out((bytes.size() + 2) / 3 * 4, '=');
  char* o = out.data();
  std::size_t i = 0;
  auto at = [&](std::size_t k) { return static_cast<std::uint32_t>(bytes[k]); };
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t n = (at(i) << 16U) | (at(i + 1) << 8U) | at(i + 2);
    *o++ = alphabet[(n >> 18U) & 63U];
    *o++ = alphabet[(n >> 12U) & 63U];
    *o++ = alphabet[(n >> 6U) & 63U];
    *o++ = alphabet[n & 63U];
  }
  if (const std::size_t rest = bytes.size() - i; rest > 0) {
    std::uint32_t n = at(i) << 16U;
    if (rest == 2) n |= at(i + 1) << 8U;
    *o++ = alphabet[(n >> 18U) & 63U];
    *o++ = alphabet[(n >> 12U) & 63U];
    if (rest == 2) *o = alphabet[(n >> 6U) & 63U];  // the rest stays '='
  }
  return out;
}

std::string base64_encode(std::string_view bytes) {
  return base64_encode(std::as_bytes(std::span(bytes.data(), bytes.size())));
}

namespace {

/// Each character's 6-bit value, or 64 for a character outside the alphabet.
constexpr std::array<std::uint8_t, 256> decode_table = [] {
  std::array<std::uint8_t, 256> t{};
  t.fill(64);
  for (std::size_t i = 0; i < alphabet.size(); ++i) {
    t[static_cast<unsigned char>(alphabet[i])] = static_cast<std::uint8_t>(i);
  }
  return t;
}();

std::uint8_t sextet(char c) noexcept { return decode_table[static_cast<unsigned char>(c)]; }

}  // namespace

bool is_valid_base64(std::string_view s) noexcept {
  if (s.size() % 4 != 0) return false;
  std::size_t end = s.size();
  if (end > 0 && s[end - 1] == '=') --end;
  if (end > 0 && end + 1 == s.size() && s[end - 1] == '=') --end;
  for (std::size_t i = 0; i < end; ++i) {
    if (sextet(s[i]) == 64) return false;
  }
  return true;
}

std::optional<std::string> base64_decode(std::string_view s) {
  if (!is_valid_base64(s)) return std::nullopt;
  while (!s.empty() && s.back() == '=') s.remove_suffix(1);
  std::string out(s.size() * 3 / 4, '\0');
  std::size_t o = 0;
  std::size_t i = 0;
  for (; i + 4 <= s.size(); i += 4) {
    const std::uint32_t n = (std::uint32_t{sextet(s[i])} << 18U) |
                            (std::uint32_t{sextet(s[i + 1])} << 12U) |
                            (std::uint32_t{sextet(s[i + 2])} << 6U) | sextet(s[i + 3]);
    out[o++] = static_cast<char>(n >> 16U);
    out[o++] = static_cast<char>((n >> 8U) & 0xFFU);
    out[o++] = static_cast<char>(n & 0xFFU);
  }
  std::uint32_t buf = 0;
  unsigned bits = 0;
  for (; i < s.size(); ++i) {
    buf = (buf << 6U) | sextet(s[i]);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = static_cast<char>((buf >> bits) & 0xFFU);
    }
  }
  out.resize(o);
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
