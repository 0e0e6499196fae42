// File: mcp/protocol.hpp
//
// The MCP protocol revisions this SDK speaks. Servers answer `initialize` with the version the
// client asked for when it is one of these, else with the latest; clients ask for the latest
// unless told otherwise. Each session then speaks the revision it negotiated: an older client
// never receives a field or a content block its revision lacks.
//
// Example:
//
//   for (auto v : mcp::supported_protocol_versions()) std::puts(std::string(v).c_str());
//   bool ok = mcp::is_supported_protocol_version("2025-06-18");   // true
#pragma once

#include <span>
#include <string_view>

namespace mcp {

/// The newest revision, asked for and offered by default.
inline constexpr std::string_view latest_protocol_version = "2025-11-25";

/// The revisions this SDK speaks, newest first. Thread-safe (a constant table).
[[nodiscard]] std::span<const std::string_view> supported_protocol_versions() noexcept;

/// True when `version` is exactly one of `supported_protocol_versions()`.
[[nodiscard]] bool is_supported_protocol_version(std::string_view version) noexcept;

}  // namespace mcp
