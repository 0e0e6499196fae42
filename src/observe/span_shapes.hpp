// Internal: the span shapes the tracer interns (span_shapes.cpp), and the OTLP/JSON pieces
// they are encoded with (otlp_json.cpp, otlp_protobuf.cpp).
#pragma once

#include <mcp/observe/otlp.hpp>
#include <mcp/observe/tracing.hpp>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace mcp::observe::detail {

/// The shape of `op`'s spans: found in this thread's cache by comparing the operation's start
/// attributes member by member (no key built), else in the process's table under a lock, else
/// made and added (up to 1,024 shapes; beyond that, made for this span alone). The pointer
/// returned for an interned shape owns nothing (the table keeps every shape for the process's
/// life), so copying it touches no reference count. Thread-safe; throws only std::bad_alloc.
[[nodiscard]] std::shared_ptr<const span_shape> interned_shape(const operation& op);

/// The OTLP/protobuf Span fields `name`, `kind` and `attributes` of a shape, appended to `out`
/// (otlp_protobuf.cpp).
void append_otlp_protobuf_shape(std::string& out, std::string_view name, kind side,
                                const std::vector<attribute>& attributes);

/// `write_otlp_traces_protobuf` with `max_length` in place of `otlp_protobuf_max_length` (any
/// smaller bound, for tests): the spans are written in order while the ResourceSpans message
/// stays within it; returns how many were. Nothing is appended when even no span fits.
std::size_t write_otlp_traces_protobuf_within(std::span<const span_record> spans,
                                              const resource_attributes& resource, std::string& out,
                                              std::uint64_t max_length);

/// `{"key":<key>,"value":{...}}`, appended to `out`.
void append_otlp_key_value(std::string& out, std::string_view key, const attribute_value& v);

}  // namespace mcp::observe::detail
