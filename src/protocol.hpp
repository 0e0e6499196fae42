// Internal: the one table of protocol eras. Every difference between MCP revisions that the
// SDK acts on is a column here; code asks `traits(e).column`, never compares version strings.
// The wire module (wire.hpp) writes objects per era from these columns; the session, the
// features and the HTTP transport read the rest. Adding a revision is adding a row (and the
// methods it brings); docs/design.md shows what the 2026-07-28 row will hold.
#pragma once

#include <mcp/protocol.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace mcp::detail {

/// A protocol revision, oldest first (the values index per-era caches).
enum class era : std::uint8_t { v2024_11_05, v2025_03_26, v2025_06_18, v2025_11_25, v2026_07_28 };
inline constexpr std::size_t era_count = 5;

/// What one revision has.
struct era_traits {
  era id;
  std::string_view version;  ///< the `protocolVersion` string
  // Framing and transport.
  bool batches;      ///< JSON-RPC batches are accepted (and answered with one array)
  bool sse_priming;  ///< Streamable HTTP: a priming event and `retry` start each SSE stream
  // Fields of Tool, Resource, ResourceTemplate, Prompt, Implementation and results.
  bool tool_annotations;          ///< Tool.annotations
  bool titles;                    ///< `title` on the objects above and `_meta` on their entries
  bool structured_output;         ///< Tool.outputSchema and CallToolResult.structuredContent
  bool result_meta;               ///< `_meta` on CallToolResult
  bool icons;                     ///< `icons`; Implementation.description and websiteUrl
  bool annotation_last_modified;  ///< Annotations.lastModified
  bool tool_execution;            ///< Tool.execution (taskSupport)
  // Content blocks.
  bool audio;          ///< AudioContent
  bool resource_link;  ///< ResourceLink
  // Features.
  bool tasks;  ///< the tasks utility (tasks/*, `params.task` on tools/call)
  // Lifecycle (2026-07-28 is stateless).
  /// Every request carries its revision, the client's capabilities and info in `_meta`; there
  /// is no initialize, no session and no server-to-client request (handlers ask for input in
  /// rounds: input_required results), and every result says its `resultType` and carries
  /// `_meta` serverInfo.
  bool per_request_meta;
  /// discover, the lists and resources/read say how long they may be cached (`ttlMs`,
  /// `cacheScope`).
  bool cacheable_results;
  /// The JSON-RPC code for a resource that does not exist (-32002 before 2026-07-28, then -32602).
  int resource_not_found_code;
};

inline constexpr std::array<era_traits, era_count> era_table{{
    {.id = era::v2024_11_05,
     .version = "2024-11-05",
     .batches = false,
     .sse_priming = false,
     .tool_annotations = false,
     .titles = false,
     .structured_output = false,
     .result_meta = false,
     .icons = false,
     .annotation_last_modified = false,
     .tool_execution = false,
     .audio = false,
     .resource_link = false,
     .tasks = false,
     .per_request_meta = false,
     .cacheable_results = false,
     .resource_not_found_code = -32002},
    {.id = era::v2025_03_26,
     .version = "2025-03-26",
     .batches = true,
     .sse_priming = false,
     .tool_annotations = true,
     .titles = false,
     .structured_output = false,
     .result_meta = false,
     .icons = false,
     .annotation_last_modified = false,
     .tool_execution = false,
     .audio = true,
     .resource_link = false,
     .tasks = false,
     .per_request_meta = false,
     .cacheable_results = false,
     .resource_not_found_code = -32002},
    {.id = era::v2025_06_18,
     .version = "2025-06-18",
     .batches = false,
     .sse_priming = false,
     .tool_annotations = true,
     .titles = true,
     .structured_output = true,
     .result_meta = true,
     .icons = false,
     .annotation_last_modified = true,
     .tool_execution = false,
     .audio = true,
     .resource_link = true,
     .tasks = false,
     .per_request_meta = false,
     .cacheable_results = false,
     .resource_not_found_code = -32002},
    {.id = era::v2025_11_25,
     .version = "2025-11-25",
     .batches = false,
     .sse_priming = true,
     .tool_annotations = true,
     .titles = true,
     .structured_output = true,
     .result_meta = true,
     .icons = true,
     .annotation_last_modified = true,
     .tool_execution = true,
     .audio = true,
     .resource_link = true,
     .tasks = true,
     .per_request_meta = false,
     .cacheable_results = false,
     .resource_not_found_code = -32002},
    {.id = era::v2026_07_28,
     .version = "2026-07-28",
     .batches = false,
     .sse_priming = false,
     .tool_annotations = true,
     .titles = true,
     .structured_output = true,
     .result_meta = true,
     .icons = true,
     .annotation_last_modified = true,
     .tool_execution = false,
     .audio = true,
     .resource_link = true,
     .tasks = false,
     .per_request_meta = true,
     .cacheable_results = true,
     .resource_not_found_code = -32602},
}};

/// The row of `e`.
[[nodiscard]] constexpr const era_traits& traits(era e) noexcept {
  return era_table[static_cast<std::size_t>(e)];
}

/// The era of a supported version string; nothing for any other string.
[[nodiscard]] constexpr std::optional<era> find_era(std::string_view version) noexcept {
  for (const auto& t : era_table) {
    if (t.version == version) return t.id;
  }
  return std::nullopt;
}

/// The era of a version string, for a version that was negotiated or checked already (an
/// unknown string is read as the latest era).
[[nodiscard]] constexpr era era_of(std::string_view version) noexcept {
  return find_era(version).value_or(era_table.back().id);
}

/// The newest era.
inline constexpr era latest_era = era_table.back().id;
/// The newest era with an initialize handshake: what `initialize` counter-offers, and what a
/// session that has not negotiated reads as.
inline constexpr era latest_legacy_era = era::v2025_11_25;

/// Streamable HTTP: the version a request without `MCP-Protocol-Version` (and no session to
/// tell) is read as (basic/transports, "Protocol Version Header").
inline constexpr std::string_view http_version_without_header = "2025-03-26";

/// False for content blocks a client of era `e` does not know: they are left out of what it
/// receives (tool results, prompt messages).
[[nodiscard]] constexpr bool content_type_known(std::string_view type, era e) noexcept {
  if (type == "resource_link") return traits(e).resource_link;
  if (type == "audio") return traits(e).audio;
  return true;
}

}  // namespace mcp::detail
