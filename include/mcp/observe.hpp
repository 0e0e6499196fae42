// File: mcp/observe.hpp
//
// The observation seam: what the session engine reports of every request and notification it
// sends or receives (both sides of a session, every protocol era, every transport), and W3C
// trace context carried in `params._meta` (`traceparent`, `tracestate`, `baggage`, unprefixed,
// as the OpenTelemetry MCP conventions and SEP-414 say). This header is part of `mcp::mcp`: the
// engine needs nothing else. The sinks that ship with the SDK are in target `mcp::observe`:
// metrics with a Prometheus exposition (mcp/observe/metrics.hpp), spans recorded by the
// conventions and exported over OTLP/HTTP, or handed to an application's own tracer
// (mcp/observe/tracing.hpp, mcp/observe/otlp.hpp), and a /metrics endpoint
// (mcp/observe/metrics_server.hpp).
//
// Cost when off: the engine holds a null `observer*` and tests it once per message.
//
// Example (what the engine does with an incoming tools/call):
//
//   mcp::observe::span sp;
//   if (obs) [[unlikely]] {
//     sp = obs->on_start({.side = mcp::observe::kind::server, .method = "tools/call",
//                         .target = "get-weather", .request_id = "7",
//                         .transport = mcp::observe::network_transport::pipe,
//                         .remote = mcp::observe::extract(params_meta)});
//   }
//   ... handle it ...
//   if (sp) obs->on_end(sp, {.status = mcp::observe::status::tool_error});
#pragma once

#include <mcp/error.hpp>
#include <mcp/json.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mcp::observe {

// --- W3C trace context ------------------------------------------------------------------------

/// A span's place in a trace (W3C Trace Context level 1). A plain value; safe to copy between
/// threads.
struct trace_context {
  std::array<std::uint8_t, 16> trace_id{};  ///< the trace's id; all zero: invalid
  std::array<std::uint8_t, 8> span_id{};    ///< this span's id; all zero: invalid
  std::uint8_t flags = 0;                   ///< bit 0: sampled
  std::string trace_state{};  ///< a validated `tracestate` value (opaque); may be empty

  /// True when both ids are non-zero.
  [[nodiscard]] bool valid() const noexcept;
  /// True when the sampled flag is set.
  [[nodiscard]] bool sampled() const noexcept { return (flags & 1U) != 0; }
  /// `00-<trace id>-<span id>-<flags>` in lowercase hex (55 characters).
  [[nodiscard]] std::string traceparent() const;
  /// The trace id as 32 lowercase hex digits (for log lines).
  [[nodiscard]] std::string trace_id_hex() const;
  /// The span id as 16 lowercase hex digits.
  [[nodiscard]] std::string span_id_hex() const;
};

/// Limits applied to the propagation fields a peer sends.
inline constexpr std::size_t max_tracestate_members = 32;
inline constexpr std::size_t max_tracestate_bytes = 512;
inline constexpr std::size_t max_baggage_members = 64;
inline constexpr std::size_t max_baggage_bytes = 8192;

/// Parses a `traceparent` value: version 00 exactly 55 characters; a higher version (not ff)
/// its first four fields, followed by nothing or by `-` and more; lowercase hex only; all-zero
/// ids refused. `trace_state` is left empty. Thread-safe; never throws (but std::bad_alloc).
/// Errors: `errc::invalid_params` saying what is wrong.
[[nodiscard]] result<trace_context> parse_traceparent(std::string_view text);

/// Validates a `tracestate` value (list members `key=value` separated by commas with optional
/// spaces and tabs; keys as W3C says, unique; values of printable ASCII without `,` and `=`; at
/// most `max_tracestate_members` members and `max_tracestate_bytes` characters) and returns it
/// with surrounding whitespace trimmed. Errors: `errc::invalid_params`. Thread-safe.
[[nodiscard]] result<std::string> parse_tracestate(std::string_view text);

/// Validates a W3C `baggage` value for passing on unchanged: at most `max_baggage_bytes`
/// characters and `max_baggage_members` list members, printable ASCII, spaces and tabs only,
/// each member `key=value` with a non-empty key. Errors: `errc::invalid_params`. Thread-safe.
[[nodiscard]] result<std::string> parse_baggage(std::string_view text);

/// The propagation fields of a message's `params._meta`, as sent (unvalidated views into the
/// message; valid while it lives).
struct carrier {
  std::string_view traceparent{};  ///< `traceparent`; empty when absent
  std::string_view tracestate{};   ///< `tracestate`; empty when absent
  std::string_view baggage{};      ///< `baggage`; empty when absent
};

/// Reads `traceparent`, `tracestate` and `baggage` from a `_meta` object; members that are
/// absent or not strings are left empty. Null reads nothing. Thread-safe; never throws.
[[nodiscard]] carrier extract(const json::object* meta) noexcept;

/// A remote parent from a carrier: the parsed `traceparent` with its `tracestate` (dropped when
/// invalid), or an invalid context when `traceparent` is absent or invalid. `baggage` gets the
/// carrier's baggage when valid, else is cleared. Thread-safe; never throws (but bad_alloc).
[[nodiscard]] trace_context remote_parent(const carrier& c, std::string* baggage = nullptr);

/// New random ids from the kernel's CSPRNG (buffered per thread). Thread-safe.
/// Throws `std::system_error` only if the kernel refuses.
[[nodiscard]] std::array<std::uint8_t, 16> new_trace_id();
[[nodiscard]] std::array<std::uint8_t, 8> new_span_id();

// --- what the engine reports --------------------------------------------------------------------

struct span;

/// The direction of an operation, as OpenTelemetry's span kinds put it: `client` when this
/// endpoint sent the request or notification (a client's call, or a server's sampling request
/// or notification), `server` when it received it. For a session: the endpoint's role.
enum class kind : std::uint8_t { client, server };

/// `network.transport`: `pipe` for stdio, `tcp` for HTTP.
enum class network_transport : std::uint8_t { unknown, pipe, tcp, quic, unix_socket, udp };

/// One request or notification, as the engine knows it when it starts (sent, or received and
/// decoded). Every view must stay valid for the duration of `on_start` only: observers copy
/// what they keep.
struct operation {
  kind side = kind::server;         ///< `client`: this endpoint sent it; `server`: it received it
  std::string_view method{};        ///< `mcp.method.name`, as on the wire
  std::string_view target{};        ///< the tool (tools/call) or prompt (prompts/get) name
  std::string_view request_id{};    ///< the JSON-RPC id as text; empty for a notification
  std::string_view resource_uri{};  ///< resources/read, (un)subscribe, resources/updated
  std::string_view protocol_version{};  ///< the negotiated MCP version; empty before it is known
  std::string_view session_id{};        ///< the MCP session id (Streamable HTTP up to 2025-11-25)
  network_transport transport = network_transport::unknown;  ///< `network.transport`
  std::string_view network_protocol_name{};                  ///< "http" over HTTP; empty for stdio
  std::string_view network_protocol_version{};               ///< "1.1", "2"
  std::string_view peer_address{};  ///< the server's (side client) or client's (side server)
  std::uint16_t peer_port = 0;      ///< with `peer_address`; 0: unknown
  /// Incoming messages: the trace context the message carried in `params._meta` (`extract`).
  carrier remote{};
  /// When it started, if the engine has read the clock already; default: the observer reads it.
  std::chrono::steady_clock::time_point start{};
  /// The span this operation runs within in this process, e.g. a tools/call whose handler
  /// sends sampling/createMessage (its `context` and `baggage` are used); null: none (then
  /// `remote`, or a new trace).
  const span* parent = nullptr;
  /// A number the engine gives each set of start attributes it reports: operations with the
  /// same non-zero number have the same `side`, `method`, `target`, `protocol_version`,
  /// `transport`, `network_protocol_name`, `network_protocol_version`, and on the client side
  /// `peer_address` and `peer_port` (not necessarily the same ids, times, resource URI, session
  /// id, or client address on the server side). An observer may key what it resolved for
  /// those attributes (a metrics series, a span shape) by the number alone, instead of comparing
  /// them. 0: not numbered (compare the attributes). The SDK's engine numbers the operations of
  /// a session from its second one on; numbers are never reused within the process.
  std::uint64_t attribute_set = 0;
  /// A new trace's ids and sampled flag that this observer decided already in `start_root`
  /// (which then asked for the operation): used as they are. Null: the observer decides.
  const trace_context* root = nullptr;
};

/// What the engine knows of a received request that begins a new trace (`observer::start_root`),
/// without an `operation`. Views valid for the duration of the call only.
struct root_start {
  /// The word the engine keeps for the operation's set (`observer::starts_roots`); 0: none.
  std::uintptr_t word = 0;
  /// The observer's `root_word` for the set; 0: none, and then the texts below are empty.
  std::uintptr_t set = 0;
  /// When it started, if the engine has read the clock already; default: the observer reads it.
  std::chrono::steady_clock::time_point start{};
  // With `set`: what `operation` would carry that the set's number does not say.
  std::int64_t request_id = 0;      ///< the integer JSON-RPC id (`operation::request_id`)
  std::string_view session_id{};    ///< `operation::session_id`
  std::string_view peer_address{};  ///< `operation::peer_address` (the client's)
  std::uint16_t peer_port = 0;      ///< `operation::peer_port`
};

/// How an operation ended.
enum class status : std::uint8_t {
  ok,          ///< a result (or a notification sent or handled)
  rpc_error,   ///< a JSON-RPC error response (`code`, `message`)
  tool_error,  ///< a tools/call result with `isError: true`
  failed,      ///< no response: timeout, cancellation, transport failure (`error_type`)
};

/// How an operation ended, as the engine reports it to `on_end`. Views must stay valid for the
/// duration of `on_end` only.
struct outcome {
  observe::status status = observe::status::ok;  ///< which of the fields below apply
  int code = 0;                                  ///< rpc_error: the JSON-RPC error code
  std::string_view message{};     ///< rpc_error: the error's message (the span status text)
  std::string_view error_type{};  ///< failed: low-cardinality reason ("timeout"); empty: _OTHER
  /// When it ended, if the engine has read the clock already; default: the observer reads it.
  std::chrono::steady_clock::time_point end{};
};

/// `t`, or now when `t` is the default (the clock's epoch).
[[nodiscard]] inline std::chrono::steady_clock::time_point now_if_unset(
    std::chrono::steady_clock::time_point t) noexcept {
  return t == std::chrono::steady_clock::time_point{} ? std::chrono::steady_clock::now() : t;
}

/// A session, reported once its protocol version is known (after initialize).
struct session_info {
  kind side = kind::server;             ///< this endpoint's role in the session
  std::string_view protocol_version{};  ///< the negotiated MCP version
  network_transport transport = network_transport::unknown;  ///< `network.transport`
  std::string_view network_protocol_name{};                  ///< "http" over HTTP; empty for stdio
  std::string_view network_protocol_version{};               ///< "1.1", "2"
  std::string_view peer_address{};                           ///< the server's, on the client side
  std::uint16_t peer_port = 0;                               ///< with `peer_address`; 0: unknown
};

/// A call refused by a policy or an interceptor (or, on a client, by the user).
struct denial {
  kind side = kind::server;   ///< the side that refused it
  std::string_view method{};  ///< e.g. tools/call
  std::string_view target{};  ///< the tool
  std::string_view reason{};  ///< low-cardinality: "deny", "scope", "role", "rate_limit", ...
};

/// Data an observer keeps with a span it started (its own type, derived from this).
class span_state {
 public:
  virtual ~span_state() = default;
};

/// What `on_start` returns: the engine keeps it with the request (or session) and hands it back
/// to `on_end`. Move-only. Empty (false) when no observer started anything.
struct span {
  /// The ids to propagate and to correlate logs with; invalid when nothing traces.
  trace_context context{};
  std::string baggage{};  ///< W3C baggage to propagate (the parent's); may be empty
  std::chrono::steady_clock::time_point start{};  ///< when the operation (or session) started
  std::uintptr_t word = 0;                        ///< for the observer's own use
  std::unique_ptr<span_state> state{};            ///< for the observer's own use
  bool active = false;  ///< set by an observer that started something; `on_end` clears it

  /// `active`: whether the engine must hand the span back to `on_end`.
  [[nodiscard]] explicit operator bool() const noexcept { return active; }
};

/// Receives the engine's reports. Sinks implement it; `combine` fans out to several.
///
/// Thread-safety: every member may be called from any thread, also at once, and must not
/// throw; `on_end` for a span may run on another thread than its `on_start`. The engine calls
/// `on_end` exactly once for every active span `on_start` or `start_root` returned (also when
/// the session closes: `failed`, "connection_closed"), and `on_session_end` likewise.
class observer {
 public:
  virtual ~observer() = default;

  /// A request or notification starts: sent (`side` client) or received (`side` server).
  [[nodiscard]] virtual span on_start(const operation& op) = 0;
  /// It ended: the response arrived or was sent, the notification was sent or handled, or it
  /// failed. The duration is measured from `s.start`.
  virtual void on_end(span& s, const outcome& o) = 0;

  /// A session started (its protocol version is known). Default: nothing.
  [[nodiscard]] virtual span on_session_start(const session_info& info);
  /// The session ended; `error_type` non-empty when it ended with an error. Default: nothing.
  virtual void on_session_end(span& s, std::string_view error_type);

  /// A call was refused by a policy or an interceptor. Default: nothing.
  virtual void on_denial(const denial& d);
  /// A task of `tool` reached `task_status` (working, input_required, completed, failed,
  /// cancelled). Default: nothing.
  virtual void on_task_status(std::string_view tool, std::string_view task_status);
  /// A stream (an SSE stream of Streamable HTTP) opened (`delta` +1) or closed (-1). Default:
  /// nothing.
  virtual void on_stream(kind side, int delta);

  /// Writes the span's `traceparent` (and `tracestate`, and `baggage` when there is one) into
  /// an outgoing message's `params._meta`, replacing what was there; nothing when the span's
  /// context is invalid.
  virtual void inject(const span& s, json::object& meta) const;

  /// Whether `on_start` reads `operation::request_id`. Default true; an observer that does not
  /// (the metrics) answers false, and the engine then leaves it empty rather than write an
  /// integer id as text. The engine asks once, when it is given the observer.
  [[nodiscard]] virtual bool reads_request_id() const noexcept;

  /// Whether this observer's span of an operation with a non-zero `operation::attribute_set`
  /// depends on that number alone: `active`, `start` (the operation's, or the observer's clock
  /// reading when unset) and a non-zero `word` that is the same for every operation of the set,
  /// no `state`, no context, no baggage. The engine may then keep that `word` with the set and
  /// start the set's later spans itself (reading the clock once, building no `operation`,
  /// calling no `on_start`) for the requests and notifications it receives and the requests it
  /// sends; other operations (notifications it sends, sets whose names are over 128 bytes, a
  /// session's sets past 128) call `on_start` as always. `on_end` is called for every one.
  /// Default false; the metrics answer true (unless they record resource URIs). The engine asks
  /// once, when it is given the observer; `combine` does the same for its second of two parts.
  [[nodiscard]] virtual bool spans_by_attribute_set() const noexcept;

  /// Whether `start_root` may start the span of an operation that begins a new trace (a
  /// received request whose params' `_meta` carries no trace context) without the operation.
  /// Default false; the tracer (mcp/observe/tracing.hpp) answers true, and so does
  /// `combine({tracer, metrics})`, in that order, when the metrics do not record resource URIs.
  /// The engine asks once, when it is given the observer, and then keeps the non-zero `word`
  /// of such an observer's span of a numbered operation with its set: it must be the same for
  /// every operation of the set (`combine`'s is the metrics'), and likewise `root_word`.
  [[nodiscard]] virtual bool starts_roots() const noexcept;
  /// What an observer that `starts_roots` resolves once for the set of `op` (a received request
  /// with a non-zero `attribute_set`, after its `on_start`), for `start_root` to start the
  /// set's later new traces from (`root_start::set`): it must stay valid for the process's life
  /// and depend on the set's attributes alone. Default 0: none (the tracer's is its span shape).
  [[nodiscard]] virtual std::uintptr_t root_word(const operation& op);
  /// The span of an operation that begins a new trace (`r`: what the engine knows of it).
  /// Usually the new trace's ids, unsampled; sampled, recorded from `r.set` when non-zero. An
  /// inactive span asks for the operation: the engine then calls `on_start` with
  /// `operation::root` at the returned span's context when it is valid (the decision made
  /// here, e.g. sampled, kept). Default: inactive.
  [[nodiscard]] virtual span start_root(const root_start& r);
};

/// One observer that forwards every report to each of `parts` in order (null entries are
/// skipped; none left: null). The first part whose span has a valid context gives the combined
/// span its context, so put the tracer first. Of two parts, a second that answers
/// `spans_by_attribute_set` is treated as the engine treats it: its `on_start` is called once
/// per numbered set and thread, its `on_end` for every span. Throws nothing (but bad_alloc).
[[nodiscard]] std::shared_ptr<observer> combine(std::vector<std::shared_ptr<observer>> parts);

}  // namespace mcp::observe
