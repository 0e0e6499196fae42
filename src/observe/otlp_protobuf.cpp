// OTLP/protobuf request bodies of spans (opentelemetry-proto's trace.proto, common.proto,
// resource.proto and trace_service.proto): the few messages an ExportTraceServiceRequest of
// this SDK's spans needs, written field by field into the reused body, without a protobuf
// library. A span is its ids and times (fixed-size fields written with a pointer), its shape's
// name, kind and constant attributes (encoded once per shape, span_shapes.cpp) and the call's
// own attributes. A span is written once, into room made a few spans at a time, where a two-byte
// length prefix leaves it (the usual size), the prefix written after it (moved only when its
// length takes another number of bytes); the two enclosing messages, whose length is only known
// once every span is written, take a five-byte varint (the same value with redundant
// continuation bits, which protobuf decoders read as any varint), so that nothing is moved. Five
// bytes hold a length under 2^35: a batch is written while it fits, and the spans that do not go in
// the next request (otlp_exporter.cpp).
#include <mcp/observe/otlp.hpp>

#include <algorithm>
#include <cstring>
#include <variant>

#include "observe/otlp_write.hpp"
#include "observe/protobuf_put.hpp"
#include "observe/span_node.hpp"
#include "observe/span_shapes.hpp"

namespace mcp::observe {
namespace {

using detail::protobuf::put_bytes;
using detail::protobuf::put_key_value;
using detail::protobuf::tag;
using detail::protobuf::varint_size;
using detail::protobuf::write_le32;
using detail::protobuf::write_le64;
using detail::protobuf::write_varint;

/// The length of a KeyValue's fields: `key` and an AnyValue of `any` bytes.
constexpr std::size_t key_value_body(std::string_view key, std::size_t any) {
  return 1 + varint_size(key.size()) + key.size() + 1 + varint_size(any) + any;
}

/// Writes the head of a KeyValue as Span field 9 at `p` (its value's AnyValue of `any` bytes
/// follows); returns where the AnyValue's fields go. Inlined where it is called with one of the
/// conventions' keys: the key's bytes and length are then constants, stored, not looked up.
[[gnu::always_inline]] inline char* key_value_head(char* p, std::string_view key, std::size_t any) {
  *p++ = tag(9, 2);
  p = write_varint(p, key_value_body(key, any));
  *p++ = tag(1, 2);
  p = write_varint(p, key.size());
  std::memcpy(p, key.data(), key.size());
  p += key.size();
  *p++ = tag(2, 2);
  return write_varint(p, any);
}

/// A call's own text attribute, `KeyValue{key, AnyValue{string_value}}` as Span field 9, written
/// at `p` (room for `call_attribute_room` bytes and the text); returns the end. Nothing for an
/// empty text.
[[gnu::always_inline]] inline char* call_text(char* p, std::string_view key, std::string_view v) {
  if (v.empty()) return p;
  p = key_value_head(p, key, 1 + varint_size(v.size()) + v.size());
  *p++ = tag(1, 2);
  p = write_varint(p, v.size());
  std::memcpy(p, v.data(), v.size());
  return p + v.size();
}

/// A length prefix of five bytes for `n` (at most `otlp_protobuf_max_length`, 2^35 - 1: the
/// encoder stops adding spans before a message would be longer): redundant continuation bits,
/// the same value.
void put_varint5(char* p, std::uint64_t n) {
  for (int i = 0; i < 4; ++i) {
    p[i] = static_cast<char>((n & 0x7FU) | 0x80U);
    n >>= 7U;
  }
  p[4] = static_cast<char>(n & 0x7FU);
}

/// The size of a span's fixed head: ids, the parent id when there is one, times and flags, with
/// their tags.
constexpr std::size_t span_head_size(bool parent) {
  return (2 + 16) + (2 + 8) + (parent ? 2 + 8 : 0) + (1 + 8) + (1 + 8) + (2 + 4);
}

/// The most bytes a call's own attribute takes beyond its value's: the KeyValue's, the key's
/// and the AnyValue's tags and lengths (at most 5 bytes each), and the longest key (24 bytes).
constexpr std::size_t call_attribute_room = 48;
static_assert(std::max({attr::request_id.size(), attr::session_id.size(),
                        attr::client_address.size(), attr::client_port.size(),
                        attr::resource_uri.size(), attr::error_type.size(),
                        attr::status_code.size()}) <= 24,
              "a call attribute's key grew: call_attribute_room must grow with it");

/// A span (ScopeSpans field 2) at `out[used]`, written in one pass by pointer into `out`'s room
/// (made longer when it is short of a bound of the span's size, `room_step`), its fields first
/// and then its length prefix: the fields go where a two-byte length leaves them (a span of 128
/// to 16,383 bytes, the usual) and are moved for a shorter or longer one, so that the length is
/// the shortest varint. Returns the end of what is written.
std::size_t put_span(std::string& out, std::size_t used, const span_record& s) {
  const std::string_view trace_state = s.context.trace_state;
  // The shape's name, kind and attributes; without one, kind SERVER.
  constexpr std::string_view no_shape("\x30\x02", 2);
  const std::string_view shape = s.shape ? std::string_view(s.shape->otlp_protobuf) : no_shape;
  // The request id: an integer's decimal written here, as a text's bytes are.
  const auto* id_number = std::get_if<std::int64_t>(&s.request_id);
  const std::string_view id_text =
      id_number != nullptr ? std::string_view() : *std::get_if<std::string>(&s.request_id);
  const std::string_view message = s.status_message;
  const std::size_t bound = 1 + 5 + span_head_size(true) + (1 + 5 + trace_state.size()) +
                            shape.size() + 7 * call_attribute_room + 20 + id_text.size() +
                            s.session_id.size() + s.peer_address.size() + 3 +
                            s.resource_uri.size() + s.error_type.size() + s.status_code.size() +
                            (1 + 5 + 1 + 5 + 2) + message.size();
  if (out.size() - used < bound) out.resize(used + std::max(bound, detail::room_step));
  char* const start = out.data() + used;
  char* const body = start + 3;  // after the tag and a two-byte length
  char* p = body;
  *p++ = tag(1, 2);  // trace_id
  *p++ = 16;
  std::memcpy(p, s.context.trace_id.data(), 16);
  p += 16;
  *p++ = tag(2, 2);  // span_id
  *p++ = 8;
  std::memcpy(p, s.context.span_id.data(), 8);
  p += 8;
  std::uint64_t parent = 0;
  std::memcpy(&parent, s.parent_span_id.data(), 8);
  if (parent != 0) {
    *p++ = tag(4, 2);  // parent_span_id
    *p++ = 8;
    std::memcpy(p, s.parent_span_id.data(), 8);
    p += 8;
  }
  *p++ = tag(7, 1);  // start_time_unix_nano
  write_le64(p, s.start_unix_ns);
  p += 8;
  *p++ = tag(8, 1);  // end_time_unix_nano
  write_le64(p, s.end_unix_ns);
  p += 8;
  const std::uint32_t flags = detail::otlp_span_flags(s);  // field 16, fixed32
  *p++ = static_cast<char>(0x85);
  *p++ = 0x01;
  write_le32(p, flags);
  p += 4;
  if (!trace_state.empty()) {
    *p++ = tag(3, 2);  // trace_state
    p = write_varint(p, trace_state.size());
    std::memcpy(p, trace_state.data(), trace_state.size());
    p += trace_state.size();
  }
  std::memcpy(p, shape.data(), shape.size());
  p += shape.size();
  if (id_number != nullptr) {
    const detail::integer_id number(*id_number);
    p = key_value_head(p, attr::request_id, 2 + number.size);
    *p++ = tag(1, 2);  // string_value
    *p++ = static_cast<char>(number.size);
    p = number.write(p);
  } else {
    p = call_text(p, attr::request_id, id_text);
  }
  p = call_text(p, attr::session_id, s.session_id);
  p = call_text(p, attr::client_address, s.peer_address);
  if (!s.peer_address.empty() && s.peer_port != 0) {
    p = key_value_head(p, attr::client_port, 1 + varint_size(s.peer_port));  // int_value
    *p++ = tag(3, 0);
    p = write_varint(p, s.peer_port);
  }
  p = call_text(p, attr::resource_uri, s.resource_uri);
  p = call_text(p, attr::error_type, s.error_type);
  p = call_text(p, attr::status_code, s.status_code);
  if (s.status == span_status::error) {  // Status (field 15): the message if any, code ERROR
    *p++ = tag(15, 2);
    p = write_varint(p,
                     (message.empty() ? 0 : 1 + varint_size(message.size()) + message.size()) + 2);
    if (!message.empty()) {
      *p++ = tag(2, 2);  // message
      p = write_varint(p, message.size());
      std::memcpy(p, message.data(), message.size());
      p += message.size();
    }
    *p++ = tag(3, 0);  // code ERROR
    *p++ = '\x02';
  }
  // The length prefix, before the fields: two bytes where they are, else the fields moved.
  const auto n = static_cast<std::size_t>(p - body);
  start[0] = tag(2, 2);  // ScopeSpans.spans
  const std::size_t prefix = varint_size(n);
  if (prefix != 2) [[unlikely]] {
    std::memmove(start + 1 + prefix, body, n);  // within the bound: the room has 5 bytes for it
  }
  write_varint(start + 1, n);
  return used + 1 + prefix + n;
}

}  // namespace

namespace detail {

void append_otlp_protobuf_shape(std::string& out, std::string_view name, kind side,
                                const std::vector<attribute>& attributes) {
  put_bytes(out, tag(5, 2), name);  // Span.name
  out += tag(6, 0);                 // Span.kind: 2 SERVER, 3 CLIENT
  out += side == kind::server ? '\x02' : '\x03';
  for (const auto& a : attributes) put_key_value(out, 9, a.key, a.value);
}

namespace {

/// `write_otlp_traces_protobuf_within` of records, or of pointers to them.
template <class Spans>
std::size_t write_traces(const Spans& spans, const resource_attributes& resource, std::string& out,
                         std::uint64_t max_length) {
  const std::size_t begin = out.size();
  out.reserve(out.size() + 512 + spans.size() * 320);
  out += tag(1, 2);  // ExportTraceServiceRequest.resource_spans
  const std::size_t resource_spans_at = out.size();
  out.append(5, '\0');
  detail::protobuf::put_resource(out, resource);  // ResourceSpans.resource
  out += tag(2, 2);                               // ResourceSpans.scope_spans
  const std::size_t scope_spans_at = out.size();
  out.append(5, '\0');
  detail::protobuf::put_scope(out);  // ScopeSpans.scope
  // ResourceSpans encloses the rest: its length is the largest, and bounds the batch.
  std::size_t used = out.size();
  const auto fits = [&] { return used - resource_spans_at - 5 <= max_length; };
  if (!fits()) {
    out.resize(begin);
    return 0;
  }
  std::size_t written = 0;
  for (const auto& s : spans) {
    const std::size_t span_end = put_span(out, used, record_of(s));
    if (span_end - resource_spans_at - 5 > max_length) break;  // it and the rest: another request
    used = span_end;
    ++written;
  }
  out.resize(used);
  if (written == 0 && !spans.empty()) {  // no request of spans that carries none
    out.resize(begin);
    return 0;
  }
  put_varint5(out.data() + scope_spans_at, out.size() - scope_spans_at - 5);
  put_varint5(out.data() + resource_spans_at, out.size() - resource_spans_at - 5);
  return written;
}

}  // namespace

std::size_t write_otlp_traces_protobuf_within(std::span<const span_record> spans,
                                              const resource_attributes& resource, std::string& out,
                                              std::uint64_t max_length) {
  return write_traces(spans, resource, out, max_length);
}

std::size_t write_otlp_traces_protobuf_records(std::span<const record_ptr> spans,
                                               const resource_attributes& resource,
                                               std::string& out) {
  return write_traces(spans, resource, out, otlp_protobuf_max_length);
}

}  // namespace detail

std::size_t write_otlp_traces_protobuf(std::span<const span_record> spans,
                                       const resource_attributes& resource, std::string& out) {
  return detail::write_otlp_traces_protobuf_within(spans, resource, out, otlp_protobuf_max_length);
}

}  // namespace mcp::observe
