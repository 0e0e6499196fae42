// Internal: 2026-07-28 standard headers that mirror the body. A tool's input property annotated
// `"x-mcp-header": "Name"` is sent by HTTP clients as `Mcp-Param-Name: <value>` beside the
// arguments (so that gateways can route on it without parsing the body); the server checks that
// the two agree. Values are plain (strings as they are, integers in decimal, booleans as
// true/false) or, when they hold what a header cannot (non-ASCII, controls, edge whitespace, or a
// plain value that looks like the sentinel), `=?base64?<base64 of the UTF-8>?=`. `Mcp-Name`
// follows the same encoding.
#pragma once

#include <mcp/error.hpp>
#include <mcp/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcp::detail {

/// One annotated property of a tool's inputSchema.
struct param_header {
  std::string property;  ///< the argument's name
  std::string header;    ///< the annotation: the header is "Mcp-Param-" + this
  enum class kind { string, integer, boolean } type = kind::string;
};

/// The annotated properties of `input_schema` (top-level `properties` only). Throws
/// std::invalid_argument naming tool `tool` when an annotation is not a non-empty RFC 9110
/// token, is used twice (case-insensitively), or sits on a property that is not a string,
/// integer or boolean.
[[nodiscard]] std::vector<param_header> param_headers_of(const json::object& input_schema,
                                                         std::string_view tool);

/// A header's value as it was meant: leading and trailing spaces and tabs removed, a
/// `=?base64?...?=` value decoded (its content must be valid, padded base64). Nothing when the
/// value is malformed: a control character or a byte outside ASCII, or a bad base64 sentinel.
[[nodiscard]] std::optional<std::string> decode_header_value(std::string_view value);

/// True when header value `value` decodes (as `decode_header_value` does) to exactly `want`;
/// a plain value is compared in place, without a copy.
[[nodiscard]] bool header_value_is(std::string_view value, std::string_view want);

/// `value` as a header carries it (the inverse of `decode_header_value`): as it is when it is
/// printable ASCII without leading or trailing spaces or tabs and does not look like the
/// sentinel, else `=?base64?<base64 of its bytes>?=`. Used for `Mcp-Name` and `Mcp-Param-*`.
[[nodiscard]] std::string encode_header_value(std::string_view value);

/// The `Mcp-Param-*` headers (name, encoded value) a client sends with a tools/call of a tool
/// whose annotated properties are `params`, for `arguments`: one per present, non-null
/// argument, strings as they are, integers in decimal, booleans as true/false. An argument of
/// another JSON type than its property's gets no header (the server refuses the call).
[[nodiscard]] std::vector<std::pair<std::string, std::string>> param_header_values(
    const std::vector<param_header>& params, const json::object& arguments);

/// The -32020 error when the `Mcp-Param-*` headers disagree with `arguments` (see
/// server::check_param_headers), else nothing.
[[nodiscard]] std::optional<error> check_param_headers(
    const std::vector<param_header>& params, const json::object& arguments,
    const std::function<std::optional<std::string_view>(std::string_view)>& header);

}  // namespace mcp::detail
