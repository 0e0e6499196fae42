// Value helpers shared by the compiler and the evaluator: JSON equality with numbers compared
// by value, exact numeric comparison and multipleOf, code point counting, message snippets and
// JSON Pointer escaping.
#pragma once

#include <mcp/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace mcp::json_schema::detail {

/// True for int64, uint64 and double values.
[[nodiscard]] inline bool is_number(const json::value& v) noexcept { return v.is_number(); }

/// True when `v` is a number with no fractional part (1.0 counts).
[[nodiscard]] bool is_integer(const json::value& v) noexcept;

/// The number as a long double (exact for every int64, uint64 and double on x86-64).
[[nodiscard]] long double to_long_double(const json::value& v) noexcept;

/// JSON equality: numbers by value (1 == 1.0), objects regardless of member order. Recursion is
/// bounded by `max_depth`: deeper values compare unequal and set `too_deep`.
[[nodiscard]] bool json_equal(const json::value& a, const json::value& b, bool& too_deep,
                              std::size_t max_depth = 512) noexcept;

/// Finds two equal items of `a` (json_equal); false when all are unique. Sorts hashes for
/// arrays of more than 16 items. Sets `too_deep` when items are nested too deeply to compare.
[[nodiscard]] bool find_duplicate(const json::array& a, std::size_t& first, std::size_t& second,
                                  bool& too_deep);

/// True when `value` is an integer multiple of `divisor` (> 0), computed on the shortest
/// decimal forms of both, so 0.3 is a multiple of 0.1 and 19.99 of 0.01.
[[nodiscard]] bool is_multiple_of(const json::value& value, const json::value& divisor) noexcept;

/// Number of Unicode code points in UTF-8 `s`.
[[nodiscard]] std::size_t code_points(std::string_view s) noexcept;

/// Compact JSON of `v`, cut to about `max` characters with "..." (for messages).
[[nodiscard]] std::string snippet(const json::value& v, std::size_t max = 60);

/// The JSON type name of `v` as `type` spells it ("integer" for integral numbers).
[[nodiscard]] const char* type_name(const json::value& v) noexcept;

/// Appends "/" + `token` escaped as a JSON Pointer reference token (~0, ~1).
void append_pointer_token(std::string& out, std::string_view token);

}  // namespace mcp::json_schema::detail
