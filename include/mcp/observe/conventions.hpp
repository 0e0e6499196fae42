// File: mcp/observe/conventions.hpp
//
// The OpenTelemetry semantic conventions for MCP (semconv 1.39-1.41 `docs/gen-ai/mcp.md`, with
// the server-side error rule of semantic-conventions-genai) as the sinks of target
// `mcp::observe` apply them: attribute names, the span name, which outcome is an error, and
// the duration histograms' bucket boundaries. An application bridging another tracer gets
// these attributes already computed (mcp/observe/tracing.hpp); this header says how.
//
// Example:
//
//   mcp::observe::operation op{.side = mcp::observe::kind::server, .method = "tools/call",
//                              .target = "get-weather"};
//   mcp::observe::span_name(op);              // "tools/call get-weather"
//   auto attrs = mcp::observe::operation_attributes(op, mcp::observe::attribute_use::span);
//   // mcp.method.name=tools/call, gen_ai.tool.name=get-weather,
//   // gen_ai.operation.name=execute_tool
#pragma once

#include <mcp/observe.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mcp::observe {

/// Attribute names of the conventions (and the three counters' own).
namespace attr {
/// The JSON-RPC method, as on the wire.
inline constexpr std::string_view method_name = "mcp.method.name";
/// Why an operation failed: the JSON-RPC error code as text, "tool_error", or a
/// low-cardinality reason ("timeout"; "_OTHER" when none was given).
inline constexpr std::string_view error_type = "error.type";
/// The prompt of a prompts/get.
inline constexpr std::string_view prompt_name = "gen_ai.prompt.name";
/// The tool of a tools/call.
inline constexpr std::string_view tool_name = "gen_ai.tool.name";
/// "execute_tool" on a tools/call.
inline constexpr std::string_view operation_name = "gen_ai.operation.name";
/// The JSON-RPC id, as text (requests only).
inline constexpr std::string_view request_id = "jsonrpc.request.id";
/// The resource of resources/read, (un)subscribe and notifications/resources/updated.
inline constexpr std::string_view resource_uri = "mcp.resource.uri";
/// Renamed `rpc.status_code` in semconv after 1.44 (unreleased); the conventions for MCP still
/// say this.
inline constexpr std::string_view status_code = "rpc.response.status_code";
/// The negotiated MCP version.
inline constexpr std::string_view protocol_version = "mcp.protocol.version";
/// The MCP session id (Streamable HTTP).
inline constexpr std::string_view session_id = "mcp.session.id";
/// "http" over HTTP; absent for stdio.
inline constexpr std::string_view network_protocol_name = "network.protocol.name";
/// The HTTP version: "1.1", "2".
inline constexpr std::string_view network_protocol_version = "network.protocol.version";
/// "pipe" (stdio), "tcp" (HTTP), ...: `transport_name`.
inline constexpr std::string_view network_transport = "network.transport";
/// The server's address, on the client side.
inline constexpr std::string_view server_address = "server.address";
/// The server's port, on the client side.
inline constexpr std::string_view server_port = "server.port";
/// The client's address, on the server side.
inline constexpr std::string_view client_address = "client.address";
/// The client's port, on the server side.
inline constexpr std::string_view client_port = "client.port";
/// The SDK's own (not in the conventions): why a call was refused.
inline constexpr std::string_view denial_reason = "mcp.denial.reason";
/// The SDK's own (not in the conventions): a task's status ("working", "completed", ...).
inline constexpr std::string_view task_status = "mcp.task.status";
/// OpenTelemetry's cardinality-limit marker.
inline constexpr std::string_view overflow = "otel.metric.overflow";
}  // namespace attr

/// An attribute value: a string, an integer (ports) or a boolean.
using attribute_value = std::variant<std::string, std::int64_t, bool>;

/// One attribute. `key` points to static storage (the names above). Plain value.
struct attribute {
  std::string_view key{};  ///< one of the `attr` names
  attribute_value value;   ///< its value

  friend bool operator==(const attribute&, const attribute&) = default;
};

/// Explicit bucket boundaries of the four duration histograms, in seconds (the conventions'
/// "ExplicitBucketBoundaries"); with +Inf there are 15 buckets.
inline constexpr std::array<double, 14> duration_bounds = {0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1,
                                                           2,    5,    10,   30,  60,  120, 300};
inline constexpr std::size_t duration_buckets = duration_bounds.size() + 1;

/// `network.transport` values: "pipe", "tcp", "quic", "unix", "udp"; empty for unknown.
[[nodiscard]] std::string_view transport_name(network_transport t) noexcept;

/// The attribute that names an operation's target: `gen_ai.tool.name` for tools/call,
/// `gen_ai.prompt.name` for prompts/get, empty otherwise.
[[nodiscard]] std::string_view target_key(std::string_view method) noexcept;

/// `{mcp.method.name} {target}` when the method has a target (tools/call, prompts/get) and one
/// was given, else the method.
[[nodiscard]] std::string span_name(const operation& op);

/// Which attribute set to build: spans carry ids and the peer's side; metrics do not.
enum class attribute_use : std::uint8_t { span, metric };

/// The attributes known at the start of an operation, in a fixed order; empty values are left
/// out. Spans: also `jsonrpc.request.id`, `mcp.session.id`, `mcp.resource.uri` and the peer
/// (`server.*` on the client side, `client.*` on the server side). Metrics: `server.*` on the
/// client side only, `mcp.resource.uri` only when `with_resource_uri` (opt-in).
[[nodiscard]] std::vector<attribute> operation_attributes(const operation& op, attribute_use use,
                                                          bool with_resource_uri = false);

/// The session histograms' attributes: `mcp.protocol.version`, `network.*`, and on the client
/// side `server.address`/`server.port`.
[[nodiscard]] std::vector<attribute> session_attributes(const session_info& info);

/// How an outcome is recorded.
struct error_classification {
  std::string error_type{};   ///< `error.type`; empty: none
  std::string status_code{};  ///< `rpc.response.status_code`; empty: none
  bool error = false;         ///< span status ERROR
};

/// The conventions' rules: a tool error is `error.type=tool_error`; a JSON-RPC error has its
/// code as `rpc.response.status_code` and, unless it is one the receiver may answer without
/// being at fault (on the server side -32700, -32600, -32601, -32602, -32002), as `error.type`
/// with status ERROR; `failed` is `error.type` = its reason (or "_OTHER").
[[nodiscard]] error_classification classify(kind side, const outcome& o);

/// True for the JSON-RPC codes that, on the server side, say the caller sent something the
/// server could not serve (not a server error): -32700, -32600, -32601, -32602, -32002.
[[nodiscard]] bool caller_error_code(int code) noexcept;

}  // namespace mcp::observe
