// Internal: span records travel by pointer (tracing.cpp, otlp_exporter.cpp). The tracer writes a
// sampled span's record in a block of its own at the span's start (the record is the span's
// state) and finishes it at its end, then hands the pointer to its sink; the exporter queues the
// pointer, encodes the record from where it is and, once it is sent, gives the block back to the
// threads that make spans: a span's record is written once and never moved.
#pragma once

#include <mcp/observe/otlp.hpp>
#include <mcp/observe/tracing.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace mcp::observe::detail {

using record_ptr = std::unique_ptr<span_record>;

/// The longest text a spare record keeps its room for; longer ones are freed (`trim`).
inline constexpr std::size_t max_kept_text = 256;

// A new field of span_record must be set for each span (tracing.cpp's on_start and on_end) and,
// if it holds memory, let go of in `trim`: a spare record must not carry a field's value or its
// memory over to another span.
static_assert(sizeof(void*) != 8 || sizeof(std::string) != 32 || sizeof(span_record) == 368,
              "span_record changed: set the new field for each span and trim it (span_node.hpp)");

/// Makes a used record ready to wait as a spare for another span: its shape let go (a shape of
/// its own is freed) and texts longer than `max_kept_text` freed, the others kept for their
/// room. The one place a spare's fields are cut back, wherever it is given back. Never throws.
inline void trim(span_record& r) noexcept {
  if (r.shape.use_count() != 0) r.shape.reset();  // an interned one is left: nothing written
  // Field by field (a list of the fields' addresses would be built on the stack for each record).
  const auto cut = [](std::string& t) {
    if (t.capacity() > max_kept_text) std::string().swap(t);
  };
  cut(r.context.trace_state);
  if (auto* id = std::get_if<std::string>(&r.request_id)) cut(*id);
  cut(r.session_id);
  cut(r.peer_address);
  cut(r.resource_uri);
  cut(r.error_type);
  cut(r.status_code);
  cut(r.status_message);
}

/// How many spare records a thread keeps.
inline constexpr std::size_t kept_records = 64;

/// This thread's spare records (for any tracer: a record is only room), which the tracer takes
/// for its spans and the exporter refills with sent ones when a span is queued on the thread;
/// null once the thread's own objects are being destroyed, or when making the list failed (then
/// records come from and go to malloc). Never throws.
[[nodiscard]] std::vector<record_ptr>* spare_records() noexcept;

/// Keeps `r` (cut back, `trim`) in `spare`, within its reserve; else frees it. Never throws.
inline void give_back(std::vector<record_ptr>* spare, record_ptr r) noexcept {
  if (spare != nullptr && r && spare->size() < spare->capacity()) {
    trim(*r);
    spare->push_back(std::move(r));  // within the reserve
  }
}

/// `write_otlp_traces` of the records in `spans` (otlp_json.cpp).
void write_otlp_traces_records(std::span<const record_ptr> spans,
                               const resource_attributes& resource, std::string& out);
/// `write_otlp_traces_protobuf` of the records in `spans` (otlp_protobuf.cpp).
std::size_t write_otlp_traces_protobuf_records(std::span<const record_ptr> spans,
                                               const resource_attributes& resource,
                                               std::string& out);

/// The record of a queued span, whether it is held by pointer or not (the encoders take both).
[[nodiscard]] inline const span_record& record_of(const span_record& r) noexcept { return r; }
[[nodiscard]] inline const span_record& record_of(const record_ptr& n) noexcept { return *n; }

}  // namespace mcp::observe::detail
