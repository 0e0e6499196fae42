// File: mcp/json.hpp
//
// The JSON value type of mcp-cpp and its two edges: parsing with size and depth limits, and
// compact serialization. `mcp::json` is Boost.JSON; `mcp::json::value`, `json::object` and
// `json::array` are the types every public API takes and returns.
//
// Only Boost.JSON's value types come with this header (value, object, array, string, kind,
// storage_ptr); Boost's own parser and serializer are in <boost/json/parse.hpp> and
// <boost/json/serialize.hpp>, and `value_to`/`value_from` in their headers, for the code that
// uses them (the umbrella <boost/json.hpp> would make every tool's compile slower).
//
// The serializer writes compact JSON (no whitespace, no raw newlines, so it is safe for the
// stdio transport) with the shortest round-trip form of floating point numbers (21.5, not
// 2.15E1), and escapes only what JSON requires.
//
// Example:
//
//   auto v = mcp::parse_json(R"({"city":"Oslo","days":3})");
//   if (!v) return v.error();           // errc::parse_error or errc::limit_exceeded
//   std::string s = mcp::to_json_string(*v);  // {"city":"Oslo","days":3}
#pragma once

#include <mcp/error.hpp>

#include <boost/json/value.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace mcp {

namespace json = boost::json;

/// Bounds applied to untrusted JSON text. Both limits are checked before or while parsing, so
/// hostile input costs at most `max_size` bytes of work.
struct json_limits {
  std::size_t max_size = std::size_t{16} << 20U;  ///< bytes of text
  std::size_t max_depth = 128;                    ///< nesting of arrays and objects
};

/// Parses one JSON text. Invalid UTF-8, comments, trailing commas and trailing text are errors.
/// The value's memory comes from `storage` (default: the default resource).
/// Errors: `errc::parse_error` for invalid JSON, `errc::limit_exceeded` when a limit is hit.
/// Thread-safe (no shared state).
[[nodiscard]] result<json::value> parse_json(std::string_view text, const json_limits& limits = {},
                                             json::storage_ptr storage = {});

/// Appends the compact serialization of `v` to `out`. Thread-safe.
void append_json(std::string& out, const json::value& v);
/// The same for an object (no value wrapper needed).
void append_json(std::string& out, const json::object& o);

/// Returns the compact serialization of `v`. Thread-safe.
[[nodiscard]] std::string to_json_string(const json::value& v);

/// Appends `s` as a quoted, escaped JSON string to `out`. The output is always valid UTF-8:
/// each byte of `s` that is not part of a valid UTF-8 sequence is written as `\ufffd`.
/// Thread-safe.
void append_json_string(std::string& out, std::string_view s);

}  // namespace mcp
