// Checks for the `format` values the validator can assert. Each takes the string instance
// (UTF-8) and answers whether it is a valid member of the format.
#pragma once

#include <string_view>

#include "json_schema/program.hpp"

namespace mcp::json_schema::detail {

/// The format named `name`, or format_kind::none when unknown (unknown formats always pass).
[[nodiscard]] format_kind format_from_name(std::string_view name) noexcept;

/// The name of `f` as written in schemas.
[[nodiscard]] const char* format_name(format_kind f) noexcept;

/// True when `s` is valid for `f`. Thread-safe.
[[nodiscard]] bool check_format(format_kind f, std::string_view s);

}  // namespace mcp::json_schema::detail
