// Internal: a span's record in a block of its own, which travels by pointer (tracing.cpp,
// otlp_exporter.cpp). The tracer writes a sampled span's record into a node at its start and
// finishes it at its end; with an exporter's own sink (`otlp_exporter::span_sink()`), the node
// itself is queued (a pointer, not the record's strings moved), encoded from where it is, and
// given back for later spans once sent: a span's record is written once and never moved.
#pragma once

#include <mcp/observe/otlp.hpp>
#include <mcp/observe/tracing.hpp>

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace mcp::observe::detail {

/// A span's record, as the tracer's state of the span (`span::state`) until it ends.
struct span_node final : span_state {
  span_record record;
};
using node_ptr = std::unique_ptr<span_node>;

/// The longest text a spare record keeps its room for; longer ones are freed (`trim`).
inline constexpr std::size_t max_kept_text = 256;

// A new field of span_record must be set for each span (tracing.cpp's on_start and on_end, the
// exporter's enqueue moves a whole record) and, if it holds memory, let go of in `trim`: a spare
// record must not carry a field's value or its memory over to another span.
static_assert(sizeof(void*) != 8 || sizeof(std::string) != 32 || sizeof(span_record) == 352,
              "span_record changed: set the new field for each span and trim it (span_node.hpp)");

/// Makes a used record ready to wait as a spare for another span: its shape let go (a shape of
/// its own is freed) and texts longer than `max_kept_text` freed, the others kept for their
/// room. The one place a spare's fields are cut back, wherever it is given back. Never throws.
inline void trim(span_record& r) noexcept {
  if (r.shape.use_count() != 0) r.shape.reset();  // an interned one is left: nothing written
  for (auto* t : {&r.context.trace_state, &r.request_id, &r.session_id, &r.peer_address,
                  &r.resource_uri, &r.error_type, &r.status_code, &r.status_message}) {
    if (t->capacity() > max_kept_text) std::string().swap(*t);
  }
}

/// What `otlp_exporter::span_sink()` returns: a named type, so that a tracer given it finds it in
/// its `std::function` (`target`) and queues its nodes with `enqueue_node` instead. Called as a
/// function, it queues the record as `otlp_exporter::export_span` does.
struct exporter_sink {
  std::shared_ptr<otlp_exporter::impl> im;
  void operator()(span_record&& s) const;
};

/// Queues `n` into the exporter (dropped and counted, as `export_span` says, when the queue is
/// full or the exporter is shut down). In the same hold of the queue's lock, moves nodes the
/// exporter has sent into `*spare` (within its capacity) when it holds fewer than a few, for
/// the caller's next spans (null: none). Never throws; `n` may be left holding a dropped span's
/// node, for the caller to reuse.
void enqueue_node(otlp_exporter::impl& im, node_ptr& n, std::vector<node_ptr>* spare) noexcept;

/// The record of a queued span, whether it is held in a node or not (the encoders take both).
[[nodiscard]] inline const span_record& record_of(const span_record& r) noexcept { return r; }
[[nodiscard]] inline const span_record& record_of(const node_ptr& n) noexcept { return n->record; }

/// `write_otlp_traces` of the records in `spans` (otlp_json.cpp).
void write_otlp_traces_nodes(std::span<const node_ptr> spans, const resource_attributes& resource,
                             std::string& out);
/// `write_otlp_traces_protobuf` of the records in `spans` (otlp_protobuf.cpp).
std::size_t write_otlp_traces_protobuf_nodes(std::span<const node_ptr> spans,
                                             const resource_attributes& resource, std::string& out);

}  // namespace mcp::observe::detail
