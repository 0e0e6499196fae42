// Internal: strict UTF-8 decoding of one character, shared by the JSON Schema validator (code
// points for regexes) and the output checks of the call pipeline. No MCP knowledge.
#pragma once

#include <cstddef>
#include <string_view>

namespace mcp::detail {

/// One decoded character: its code point and its length in bytes (0 when invalid).
struct utf8_char {
  char32_t code_point = 0;
  std::size_t length = 0;
};

/// Decodes the character starting at `s[i]` (i < s.size()). Truncated sequences, bad
/// continuation bytes, overlong forms, surrogates and code points above U+10FFFF are invalid.
inline utf8_char decode_utf8(std::string_view s, std::size_t i) noexcept {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80U) return {c, 1};
  std::size_t len = 0;
  char32_t cp = 0;
  if ((c & 0xE0U) == 0xC0U) {
    len = 2;
    cp = c & 0x1FU;
  } else if ((c & 0xF0U) == 0xE0U) {
    len = 3;
    cp = c & 0x0FU;
  } else if ((c & 0xF8U) == 0xF0U) {
    len = 4;
    cp = c & 0x07U;
  } else {
    return {};
  }
  if (i + len > s.size()) return {};
  for (std::size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0U) != 0x80U) return {};
    cp = (cp << 6U) | (byte(i + k) & 0x3FU);
  }
  static constexpr char32_t min_cp[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < min_cp[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {};
  return {cp, len};
}

/// True when all of `s` is valid UTF-8.
inline bool valid_utf8(std::string_view s) noexcept {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = decode_utf8(s, i).length;
    if (n == 0) return false;
    i += n;
  }
  return true;
}

}  // namespace mcp::detail
