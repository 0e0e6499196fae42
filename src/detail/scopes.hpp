// Internal: OAuth scope tokens (RFC 6749 §3.3), as tools declare them and challenges list them.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace mcp::detail {

/// One or more of %x21 / %x23-5B / %x5D-7E: printable ASCII without space, `"` and `\`.
[[nodiscard]] inline bool is_scope_token(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return c >= 0x21 && c <= 0x7e && c != '"' && c != '\\';
  });
}

/// The scopes separated by spaces, as OAuth writes them.
[[nodiscard]] inline std::string join_scopes(const std::vector<std::string>& scopes) {
  std::string out;
  for (const auto& scope : scopes) {
    if (!out.empty()) out.push_back(' ');
    out += scope;
  }
  return out;
}

}  // namespace mcp::detail
