// The official meta-schemas, built in: draft 2020-12 (the dialect schema and its seven
// vocabulary schemas) and draft-07.
#pragma once

#include <mcp/json.hpp>

#include <string_view>

namespace mcp::json_schema::detail {

/// The built-in document with absolute URI `uri` (no fragment), or nullptr. The documents are
/// parsed once, on first use, and live for the whole program. Thread-safe.
[[nodiscard]] const json::value* builtin_schema(std::string_view uri);

}  // namespace mcp::json_schema::detail
