// Internal: ASCII case-insensitive equality, for what RFCs define as case-insensitive ASCII:
// HTTP header names and tokens, authentication schemes, challenge parameter names, host names
// as written. No MCP knowledge.
#pragma once

#include <algorithm>
#include <string_view>

namespace mcp::detail {

/// True when `a` and `b` are equal ignoring the case of ASCII letters; other bytes compare as
/// they are (no locale). Thread-safe, never throws.
inline bool iequals(std::string_view a, std::string_view b) noexcept {
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [&](char x, char y) {
           return x == y || lower(x) == lower(y);
         });
}

}  // namespace mcp::detail
