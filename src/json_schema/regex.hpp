// ECMA-262 regular expressions for `pattern`, `patternProperties` and the `regex` format.
//
// Patterns are translated to Boost.Regex (perl syntax) over UTF-32 code points, so `.` and
// character classes see code points as ECMA-262 with the `u` flag does, and `\d`, `\w`, `\s`,
// `^`, `$` and `.` get their ECMA meaning. A search has a budget linear in the subject's
// length (100,000 character reads plus a hundred per code point): catastrophic backtracking
// ends there, in milliseconds, as `match_result::too_complex`.
// Simple patterns (anchored sequences of ASCII classes with counted repetition, the shape most
// tool schemas use) run on a small backtracking-free matcher instead.
#pragma once

#include <locale>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace mcp::json_schema::detail {

enum class match_result { match, no_match, too_complex };

/// Groups may nest this deep in a pattern; deeper ones are refused when compiled (the parsers
/// of both matchers recurse once per group).
inline constexpr std::size_t max_group_depth = 128;

class ecma_regex {
 public:
  /// Compiles `pattern`; on an invalid pattern (or one nesting groups deeper than
  /// `max_group_depth`) returns nullptr and sets `error`.
  static std::shared_ptr<const ecma_regex> compile(std::string_view pattern, std::string& error);

  /// Searches `subject` (UTF-8) for a match anywhere, as ECMA-262 `RegExp.prototype.test`.
  /// Thread-safe.
  [[nodiscard]] match_result search(std::string_view subject) const;
  /// The same search on the Boost.Regex translation only, even when the fast matcher handles
  /// the pattern: the two must agree (the differential test and fuzz target check it).
  /// Thread-safe.
  [[nodiscard]] match_result search_translated(std::string_view subject) const;
  /// True when `search` runs the fast matcher.
  [[nodiscard]] bool has_fast_path() const noexcept { return simple_ != nullptr; }

  [[nodiscard]] const std::string& source() const noexcept { return source_; }

  struct impl;
  struct simple;
  ecma_regex(std::string source, std::u32string translated, std::shared_ptr<const impl> i,
             std::shared_ptr<const simple> s);

 private:
  /// The Boost.Regex form; built on first use when the fast matcher handles the pattern.
  const impl* boost_regex() const;

  std::string source_;
  std::u32string translated_;             ///< the pattern in Boost perl syntax
  std::shared_ptr<const simple> simple_;  ///< non-null when the fast matcher handles the pattern
  mutable std::once_flag impl_once_;
  mutable std::shared_ptr<const impl> impl_;
};

/// The C.UTF-8 locale (classic if unavailable), whose ctype classifies non-ASCII code points.
/// Thread-safe.
const std::locale& unicode_locale();

/// Decodes UTF-8 into code points (invalid bytes map to U+FFFD). Appends to `out`.
void utf8_to_utf32(std::string_view s, std::u32string& out);

}  // namespace mcp::json_schema::detail
