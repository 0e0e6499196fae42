// Internal: the translation of an ECMA-262 pattern (with the `u` flag) to Boost.Regex perl
// syntax over code points, so that Boost.Regex matches what ECMA-262 would.
#pragma once

#include <optional>
#include <string>

namespace mcp::json_schema::detail {

/// The Boost perl form of ECMA-262 pattern `p` (code points), or nothing with `error` set for
/// an invalid pattern or one nesting groups deeper than `max_group_depth`. Thread-safe.
std::optional<std::u32string> translate_ecma(const std::u32string& p, std::string& error);

}  // namespace mcp::json_schema::detail
