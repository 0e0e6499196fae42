// File: mcp/protocol.hpp
//
// The MCP protocol revisions this SDK speaks. A server serves every one of them at once: a
// request that names 2026-07-28 in its `_meta` is served in that revision, statelessly;
// `initialize` negotiates one of the older ones (the version the client asked for when it is
// one of them, else 2025-11-25) for the session it opens. Each request or session is then served
// in its revision: an older client never receives a field or a content block its revision lacks.
//
// Example:
//
//   for (auto v : mcp::supported_protocol_versions()) std::puts(std::string(v).c_str());
//   bool ok = mcp::is_supported_protocol_version("2025-06-18");   // true
#pragma once

#include <span>
#include <string_view>

namespace mcp {

/// The newest revision (stateless: every request carries its revision and the client's
/// capabilities, without an initialize handshake or a session).
inline constexpr std::string_view latest_protocol_version = "2026-07-28";
/// The newest revision with an initialize handshake: what a server offers in `initialize`, and
/// what a client asks for there.
inline constexpr std::string_view latest_legacy_protocol_version = "2025-11-25";

/// The revisions this SDK speaks, newest first. Thread-safe (a constant table).
[[nodiscard]] std::span<const std::string_view> supported_protocol_versions() noexcept;

/// True when `version` is exactly one of `supported_protocol_versions()`.
[[nodiscard]] bool is_supported_protocol_version(std::string_view version) noexcept;

}  // namespace mcp
