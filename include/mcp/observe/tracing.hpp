// File: mcp/observe/tracing.hpp
//
// Spans of MCP operations by the OpenTelemetry MCP conventions (target `mcp::observe`): named
// `{mcp.method.name} {target}`, kind CLIENT for what this endpoint sent and SERVER for what it
// received, parented by the trace context an incoming message carried in `params._meta` (or by
// the span the operation runs within), with the conventions' attributes, `error.type`,
// `rpc.response.status_code` and status. Two observers:
//
// - `make_tracer` records spans itself (ids from a per-thread generator seeded from the kernel's
//   CSPRNG, parent-based sampling with a ratio for new traces; a span left out by sampling gets
//   its ids and nothing else) and hands each finished one, by pointer, to a sink, e.g.
//   `otlp_exporter::span_sink()` (mcp/observe/otlp.hpp) or an application's function;
// - `make_callback_observer` hands span starts and ends to an application that already traces
//   with opentelemetry-cpp or another tracer: its tracer makes the span, and the ids it returns
//   are what goes into the outgoing `_meta` (docs/observation.md shows a bridge).
//
// Example:
//
//   auto exporter = mcp::observe::make_otlp_exporter({.endpoint = "http://127.0.0.1:4318"});
//   auto tracer = mcp::observe::make_tracer({.sink = (*exporter)->span_sink()});
//   auto observer = mcp::observe::combine({tracer, mcp::observe::make_metrics()});
//
//   // Or a sink of one's own (it owns each record it is given):
//   using mcp::observe::span_record;
//   auto logged = mcp::observe::make_tracer({.sink = [](std::unique_ptr<span_record> r) {
//     std::clog << r->name() << '\n';
//   }});
#pragma once

#include <mcp/jsonrpc.hpp>
#include <mcp/observe.hpp>
#include <mcp/observe/conventions.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mcp::observe {

/// A span's status: UNSET, or ERROR when `error.type` is set (never OK, as the conventions say).
enum class span_status : std::uint8_t { unset, error };

/// What many spans share: the name, the kind and the attributes that are the same for every
/// operation of one (side, method, target, protocol version, transport, peer server) set.
/// `make_tracer` interns these (up to 1,024 sets for the process's life; more are made per
/// span), so that a span costs neither the building nor the encoding of its constant part.
/// Immutable once made; safe to share between threads.
struct span_shape {
  std::string name{};        ///< `span_name(op)`: e.g. "tools/call get-weather"
  kind side = kind::server;  ///< SERVER for received operations, CLIENT for sent ones
  /// The conventions' attributes that do not vary per call: `mcp.method.name`, the target,
  /// `gen_ai.operation.name`, `mcp.protocol.version`, the `network` ones, and on the client side
  /// `server.address` and `server.port` (`operation_attributes` without the per-call ones).
  std::vector<attribute> attributes{};
  /// Their OTLP/JSON encoding, made once by `make_span_shape` (the exporter appends it).
  std::string otlp_name_kind{};   ///< `,"name":...,"kind":N`
  std::string otlp_attributes{};  ///< `attributes` as comma-separated KeyValue objects
  /// Their OTLP/protobuf encoding: the Span message's `name`, `kind` and `attributes` fields.
  std::string otlp_protobuf{};
};

/// A shape of these parts, its OTLP/JSON encoding made. Thread-safe; throws only
/// std::bad_alloc.
[[nodiscard]] std::shared_ptr<const span_shape> make_span_shape(std::string name, kind side,
                                                                std::vector<attribute> attributes);

/// A finished span: a shared shape and what is this call's own. Fixed in size (short texts need
/// no allocation); safe to move between threads. `make_tracer` writes a span's record once, in a
/// block of its own (the record is the span's `span::state` while it runs), and hands the
/// pointer to its sink: a record is not copied or moved on its way to the exporter.
struct span_record final : span_state {
  /// Name, kind and constant attributes (`make_span_shape`); null: an unnamed SERVER span
  /// without them.
  std::shared_ptr<const span_shape> shape{};
  trace_context context;                         ///< its own trace id, span id, flags, tracestate
  std::array<std::uint8_t, 8> parent_span_id{};  ///< all zero: a root span
  bool parent_remote = false;                    ///< the parent came from `_meta`
  std::uint64_t start_unix_ns = 0;               ///< wall-clock start, ns since the Unix epoch
  std::uint64_t end_unix_ns = 0;                 ///< wall-clock end (never before the start)
  // This call's attributes (empty: absent), in this order after the shape's:
  /// `jsonrpc.request.id`: the JSON-RPC id as it came, an integer or a text (an empty text:
  /// absent, e.g. a notification); the attribute is the id's text either way (an integer in
  /// decimal, as `std::to_chars` writes it).
  jsonrpc::request_id request_id{std::string()};
  std::string session_id{};     ///< `mcp.session.id`
  std::string peer_address{};   ///< `client.address` (server side; the client's is in the shape)
  std::uint16_t peer_port = 0;  ///< `client.port` (with `peer_address`); 0: absent
  std::string resource_uri{};   ///< `mcp.resource.uri`
  std::string error_type{};     ///< `error.type`
  std::string status_code{};    ///< `rpc.response.status_code`
  span_status status = span_status::unset;  ///< ERROR when the operation failed
  std::string status_message{};             ///< the JSON-RPC error's message, with status ERROR

  /// The span's name (the shape's; empty without one).
  [[nodiscard]] std::string_view name() const noexcept {
    return shape ? std::string_view(shape->name) : std::string_view();
  }
  /// SERVER or CLIENT (the shape's; SERVER without one).
  [[nodiscard]] kind side() const noexcept { return shape ? shape->side : kind::server; }
  /// Calls `f(std::string_view key, const attribute_value&)` for each attribute: the shape's,
  /// then this call's. Values made for the call are temporaries: copy what you keep.
  template <class F>
  void for_each_attribute(F&& f) const {
    if (shape) {
      for (const auto& a : shape->attributes) f(a.key, a.value);
    }
    const auto text = [&f](std::string_view key, const std::string& v) {
      if (!v.empty()) f(key, attribute_value(v));
    };
    if (const auto* n = std::get_if<std::int64_t>(&request_id)) {
      f(attr::request_id, attribute_value(std::to_string(*n)));
    } else {
      text(attr::request_id, std::get<std::string>(request_id));
    }
    text(attr::session_id, session_id);
    text(attr::client_address, peer_address);
    if (!peer_address.empty() && peer_port != 0) {
      f(attr::client_port, attribute_value(std::int64_t{peer_port}));
    }
    text(attr::resource_uri, resource_uri);
    text(attr::error_type, error_type);
    text(attr::status_code, status_code);
  }
  /// Every attribute, as `for_each_attribute` lists them (a copy). Throws only std::bad_alloc.
  [[nodiscard]] std::vector<attribute> attributes() const {
    std::vector<attribute> out;
    for_each_attribute([&out](std::string_view k, const attribute_value& v) {
      out.push_back({k, v});
    });
    return out;
  }
};

/// What `make_tracer` records spans with.
struct tracer_options {
  /// Receives every finished, sampled span by pointer (never null), on the thread that ended it,
  /// and owns it from then on: it may keep it, hand it to another thread or let it go. Must be
  /// quick and must not throw (`otlp_exporter::span_sink()` only queues the pointer). A sink of
  /// its own reads the span's name and attributes through `span_record::name()` and
  /// `for_each_attribute`. Required. A record the sink frees is made anew for a later span
  /// (`otlp_exporter::span_sink()` gives sent records back to the threads' spares instead).
  std::function<void(std::unique_ptr<span_record>)> sink{};
  /// The probability that a new trace (no parent) is sampled; a span with a parent follows the
  /// parent's sampled flag. Unsampled spans still propagate their context (new ids, flag 00)
  /// but cost no clock read, no record and no export.
  double root_sample_ratio = 1.0;
};

/// A span recorder. Throws `std::invalid_argument` when `sink` is empty or the ratio is not in
/// [0, 1].
[[nodiscard]] std::shared_ptr<observer> make_tracer(tracer_options opts);

/// What an application's tracer is told when a span starts. The references are valid during
/// the call only.
struct span_start_event {
  const operation& op;                       ///< the operation, as the engine reported it
  std::string_view name{};                   ///< `span_name(op)`
  const trace_context& parent;               ///< invalid: no parent (a new trace)
  bool parent_remote = false;                ///< the parent came from `_meta`
  std::string_view baggage{};                ///< the parent's baggage (validated)
  const std::vector<attribute>& attributes;  ///< `operation_attributes(op, span)`
};

/// What the application's tracer answers: the ids it gave the span (propagated in `_meta`;
/// invalid: propagate nothing) and whatever it needs again at the end.
struct bridged_span {
  trace_context context{};       ///< the span's ids; invalid: propagate nothing
  std::shared_ptr<void> user{};  ///< the tracer's own data, handed back in `span_end_event`
};

/// What it is told when the span ends.
struct span_end_event {
  const bridged_span& span;           ///< what `on_start` answered for this span
  const outcome& result;              ///< how the operation ended
  const error_classification& error;  ///< `error.type` and `rpc.response.status_code` to add
  std::chrono::nanoseconds duration;  ///< from the operation's start to its end (steady clock)
};

/// The application's tracer, as two functions (`make_callback_observer`).
struct callback_options {
  /// Called when a span starts; required. An exception is swallowed (the span is not traced).
  std::function<bridged_span(const span_start_event&)> on_start{};
  /// Called when it ends; required. An exception is swallowed.
  std::function<void(const span_end_event&)> on_end{};
};

/// An observer that hands span events to an application's tracer. Both functions may be
/// called from any thread, also at once. Throws `std::invalid_argument` when one is empty.
[[nodiscard]] std::shared_ptr<observer> make_callback_observer(callback_options opts);

}  // namespace mcp::observe
