// OTLP/JSON request bodies (opentelemetry-proto's JSON mapping): lowerCamelCase keys, ids as
// hex, enums as integers, 64-bit integers as decimal strings, default values left out. Written
// as text, never through a DOM.
#include <mcp/observe/otlp.hpp>

#include <array>
#include <bit>
#include <charconv>
#include <cstring>
#include <variant>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "detail/plain_ascii.hpp"
#include "observe/otlp_write.hpp"
#include "observe/span_node.hpp"
#include "observe/span_shapes.hpp"

namespace mcp::observe {
namespace {

/// A 64-bit integer as proto3 JSON wants it: a quoted decimal.
void append_u64_string(std::string& out, std::uint64_t v) {
  char buf[24];
  buf[0] = '"';
  auto* end = std::to_chars(buf + 1, buf + sizeof buf - 1, v).ptr;
  *end++ = '"';
  out.append(buf, end);
}

void append_i64_string(std::string& out, std::int64_t v) {
  char buf[24];
  buf[0] = '"';
  auto* end = std::to_chars(buf + 1, buf + sizeof buf - 1, v).ptr;
  *end++ = '"';
  out.append(buf, end);
}

void append_double(std::string& out, double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void append_value(std::string& out, const attribute_value& v) {
  if (const auto* s = std::get_if<std::string>(&v)) {
    out += "{\"stringValue\":";
    append_json_string(out, *s);
  } else if (const auto* b = std::get_if<bool>(&v)) {
    out += *b ? "{\"boolValue\":true" : "{\"boolValue\":false";
  } else {
    out += "{\"intValue\":";
    append_i64_string(out, std::get<std::int64_t>(v));
  }
  out += '}';
}

void append_key_value(std::string& out, std::string_view key, const attribute_value& v) {
  out += "{\"key\":";
  append_json_string(out, key);
  out += ",\"value\":";
  append_value(out, v);
  out += '}';
}

/// `{"key":"<key>","value":` for attribute keys, made once per key: keys point to static storage
/// (the conventions' names), so the few there are are found by their address. The encoding
/// thread's own table; a key not in it (more than its size) is written out each time.
std::string_view key_prefix(std::string_view key) {
  struct entry {
    const char* data = nullptr;
    std::string key;  // checked too: an address may be reused for another key
    std::string prefix;
  };
  thread_local std::array<entry, 48> table{};
  thread_local std::size_t used = 0;
  entry* e = nullptr;
  for (std::size_t i = 0; i < used && e == nullptr; ++i) {
    if (table[i].data != key.data()) continue;
    if (table[i].key == key) return table[i].prefix;
    e = &table[i];  // the same address, another key now: made again
  }
  if (e == nullptr) {
    if (used == table.size()) return {};
    e = &table[used++];
  }
  e->data = key.data();
  e->key = key;
  auto& prefix = e->prefix;
  prefix = "{\"key\":";
  append_json_string(prefix, key);
  prefix += ",\"value\":";
  return prefix;
}

/// `"attributes":[...]` preceded by a comma, or nothing when there are none.
void append_attributes(std::string& out, const std::vector<attribute>& attrs) {
  if (attrs.empty()) return;
  out += ",\"attributes\":[";
  for (std::size_t i = 0; i < attrs.size(); ++i) {
    if (i > 0) out += ',';
    const auto prefix = key_prefix(attrs[i].key);
    if (prefix.empty()) {
      append_key_value(out, attrs[i].key, attrs[i].value);
      continue;
    }
    out += prefix;
    append_value(out, attrs[i].value);
    out += '}';
  }
  out += ']';
}

void append_resource(std::string& out, const resource_attributes& resource) {
  out += "\"resource\":{";
  if (!resource.empty()) {
    out += "\"attributes\":[";
    for (std::size_t i = 0; i < resource.size(); ++i) {
      if (i > 0) out += ',';
      append_key_value(out, resource[i].first, resource[i].second);
    }
    out += ']';
  }
  out += '}';
}

void append_scope(std::string& out) {
  out += "\"scope\":{\"name\":";
  append_json_string(out, scope_name());
  out += ",\"version\":";
  append_json_string(out, scope_version());
  out += '}';
}

/// Whether `v` goes into a JSON string as it is (ASCII from space up other than '"' and '\\'),
/// 8 bytes at a time (the last few padded with spaces).
bool plain_text(std::string_view v) noexcept {
  std::size_t i = 0;
  for (; i + 8 <= v.size(); i += 8) {
    if (!mcp::detail::plain_ascii_block(v.data() + i)) return false;
  }
  std::array<char, 8> last{' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};
  std::memcpy(last.data(), v.data() + i, v.size() - i);
  return mcp::detail::plain_ascii_block(last.data());
}

/// Writes spans with a pointer into `out`'s room (`detail::room_step`), in one pass: each piece
/// asks for the room it needs (`need`), which is made only when the room left is short; `done` cuts
/// `out` back to what is written.
class span_writer {
 public:
  explicit span_writer(std::string& out) : out_(&out), p_(out.data() + out.size()) {}

  /// Room for `n` more bytes at the write position.
  void need(std::size_t n) {
    const auto at = offset();
    if (out_->size() - at < n) [[unlikely]] {
      out_->resize(at + n + detail::room_step);
      p_ = out_->data() + at;
    }
  }
  /// Where the next byte goes, from the start of `out`.
  [[nodiscard]] std::size_t offset() const noexcept {
    return static_cast<std::size_t>(p_ - out_->data());
  }
  /// What was written at `at` (an earlier `offset()`).
  [[nodiscard]] const char* at(std::size_t at) const noexcept { return out_->data() + at; }
  /// Writing goes on at `at` (an earlier `offset()`): what was written from there is dropped.
  void back_to(std::size_t at) noexcept { p_ = out_->data() + at; }
  /// `out` cut back to what is written.
  void done() { out_->resize(offset()); }

  void put(char c) noexcept { *p_++ = c; }
  template <std::size_t N>
  void lit(const char (&s)[N]) {
    std::memcpy(p_, s, N - 1);
    p_ += N - 1;
  }
  /// `v`'s bytes (room made for them).
  [[gnu::always_inline]] void bytes(std::string_view v) noexcept {
    std::memcpy(p_, v.data(), v.size());
    p_ += v.size();
  }
  /// `v` as a JSON string, room made for it: a plain text copied, else escaped
  /// (`append_json_string`).
  void text(std::string_view v) {
    if (plain_text(v)) {
      need(v.size() + 2);
      *p_++ = '"';
      bytes(v);
      *p_++ = '"';
      return;
    }
    p_ = escaped(*out_, offset(), v);
  }
  /// The decimal of `v`, `n` (`detail::decimal_size(v)`) digits.
  void decimal(std::uint64_t v, std::size_t n) noexcept {
    p_ += n;
    detail::write_decimal_ending(p_, v);
  }
  /// `"hex"`: two digits per byte, 8 bytes at a time in SSE2 registers (each byte's two
  /// nibbles side by side, '0' added, and 'a' - '9' - 1 more to those over 9), else from a
  /// table of the 256 pairs.
  template <std::size_t N>
  void hex(const std::array<std::uint8_t, N>& bytes) {
    *p_++ = '"';
#if defined(__SSE2__)
    static_assert(N % 8 == 0);
    for (std::size_t i = 0; i < N; i += 8) {
      const __m128i x = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(bytes.data() + i));
      const __m128i low_nibbles = _mm_set1_epi8(0x0F);
      const __m128i nibbles = _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi16(x, 4), low_nibbles),
                                                _mm_and_si128(x, low_nibbles));
      const __m128i letters =
          _mm_and_si128(_mm_cmpgt_epi8(nibbles, _mm_set1_epi8(9)), _mm_set1_epi8('a' - '9' - 1));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(p_),
                       _mm_add_epi8(_mm_add_epi8(nibbles, _mm_set1_epi8('0')), letters));
      p_ += 16;
    }
#else
    for (const auto b : bytes) {
      std::memcpy(p_, &hex_pairs[2 * std::size_t{b}], 2);
      p_ += 2;
    }
#endif
    *p_++ = '"';
  }
  /// An unsigned decimal: eight digits at a time in one 64-bit word, the leading ones (at most
  /// eight) two at a time (`small`).
  void u64(std::uint64_t v) {
    constexpr std::uint64_t e8 = 100'000'000;
    if (v < e8) return small(v);
    const auto low = static_cast<std::uint32_t>(v % e8);
    v /= e8;
    if (v < e8) {
      small(v);
    } else {
      small(v / e8);  // at most 1,844: 2^64 has 20 digits
      store8(digits8(static_cast<std::uint32_t>(v % e8)));
    }
    store8(digits8(low));
  }
  /// `u64(v)` where `earlier` (written at `earlier_at`, in this writer's room, no byte of it
  /// since moved) has the same digits but the last eight, as a span's end time has its start's
  /// but for the last 0.1 s: those copied, the eight computed.
  void u64_after(std::uint64_t v, std::uint64_t earlier, const char* earlier_at) {
    constexpr std::uint64_t e8 = 100'000'000;
    if (v < e8 || v / e8 != earlier / e8) return u64(v);
    const std::size_t lead = detail::decimal_size(v / e8);
    std::memcpy(p_, earlier_at, 16);  // the leading digits (at most 12), and bytes after them
    p_ += lead;                       // that the last eight then overwrite, and room after
    store8(digits8(static_cast<std::uint32_t>(v % e8)));
  }

 private:
  /// Writes the eight characters of `w` (the first in its lowest byte).
  void store8(std::uint64_t w) noexcept {
    if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
    std::memcpy(p_, &w, 8);
    p_ += 8;
  }
  /// The eight decimal digits of `x` (< 10^8, leading zeros included), the first in the lowest
  /// byte: split into two halves of four digits in 32-bit lanes, each into two pairs in 16-bit
  /// lanes, each into two digits in bytes, dividing by 100 and by 10 in every lane at once with
  /// a multiply and a shift (exact below 10,000 and 100).
  static std::uint64_t digits8(std::uint32_t x) noexcept {
    const std::uint64_t halves = x / 10'000U | std::uint64_t{x % 10'000U} << 32U;
    const std::uint64_t hundreds = ((halves * 10'486U) >> 20U) & 0x0000'007F'0000'007FULL;
    const std::uint64_t pairs = hundreds | (halves - hundreds * 100U) << 16U;
    const std::uint64_t tens = ((pairs * 103U) >> 10U) & 0x000F'000F'000F'000FULL;
    const std::uint64_t digits = tens | (pairs - tens * 10U) << 8U;
    return digits + 0x3030'3030'3030'3030ULL;
  }
  /// A decimal of fewer than nine digits, written in place (`detail::write_decimal_ending`).
  void small(std::uint64_t v) { decimal(v, detail::decimal_size(v)); }

#if !defined(__SSE2__)
  static constexpr auto hex_pairs = [] {
    std::array<char, 512> t{};
    constexpr char digits[] = "0123456789abcdef";
    for (std::size_t i = 0; i < 256; ++i) {
      t[2 * i] = digits[i >> 4U];
      t[2 * i + 1] = digits[i & 0xFU];
    }
    return t;
  }();
#endif
  /// `out` cut back to `at`, then `v` appended as a JSON string with its escapes; returns the
  /// new end. Out of line: the writer's pointer stays in a register where it is inlined.
  [[gnu::noinline]] static char* escaped(std::string& out, std::size_t at, std::string_view v) {
    out.resize(at);
    append_json_string(out, v);
    return out.data() + out.size();
  }

  std::string* out_;
  char* p_;
};

/// The longest the fixed-size head of a span can be: ids, flags, times and their keys.
constexpr std::size_t span_head_room = 256;

/// One of the call's own text attributes, with its key's encoding made at compile time: a
/// comma unless it is the first, then `key_json`, the text as a JSON string and `}}`. Nothing
/// for an empty text, tested where it is called (most of a span's are empty).
[[gnu::always_inline]] inline void call_text(span_writer& w, bool& first, std::string_view key_json,
                                             std::string_view v) {
  if (v.empty()) return;
  w.need(1 + key_json.size());
  if (!first) w.put(',');
  first = false;
  w.bytes(key_json);
  w.text(v);
  w.need(2);
  w.lit("}}");
}

/// A call's own attribute whose value is a decimal written as a JSON string (`jsonrpc.request.id`
/// of an integer id, `client.port` as protobuf's JSON mapping writes an int64).
[[gnu::always_inline]] inline void call_decimal(span_writer& w, bool& first,
                                                std::string_view key_json, bool negative,
                                                std::uint64_t magnitude) {
  const std::size_t n = detail::decimal_size(magnitude);
  w.need(1 + key_json.size() + 1 + 1 + n + 3);
  if (!first) w.put(',');
  first = false;
  w.bytes(key_json);
  w.put('"');
  if (negative) w.put('-');
  w.decimal(magnitude, n);
  w.lit("\"}}");
}

/// A span, in one pass into the writer's room; returns the writer where it is. (The writer is
/// a copy of its own here, in registers: written through a reference, its pointer would be
/// stored and loaded again around every byte written, as a char may alias it.)
span_writer put_span(span_writer w, const span_record& s) {
  w.need(span_head_room);
  w.lit("{\"traceId\":");
  w.hex(s.context.trace_id);
  w.lit(",\"spanId\":");
  w.hex(s.context.span_id);
  std::uint64_t parent = 0;
  std::memcpy(&parent, s.parent_span_id.data(), 8);
  if (parent != 0) {
    w.lit(",\"parentSpanId\":");
    w.hex(s.parent_span_id);
  }
  w.lit(",\"flags\":");
  if (s.context.flags <= 1) {  // sampled or not, no other W3C flag: one of four texts
    static constexpr char texts[4][4] = {"256", "257", "768", "769"};
    w.bytes({texts[s.context.flags | (s.parent_remote ? 2U : 0U)], 3});
  } else {
    w.u64(detail::otlp_span_flags(s));
  }
  w.lit(",\"startTimeUnixNano\":\"");
  const std::size_t start_at = w.offset();
  w.u64(s.start_unix_ns);
  w.lit("\",\"endTimeUnixNano\":\"");
  w.u64_after(s.end_unix_ns, s.start_unix_ns, w.at(start_at));
  w.put('"');
  if (!s.context.trace_state.empty()) {
    w.need(16);
    w.lit(",\"traceState\":");
    w.text(s.context.trace_state);
  }
  // The shape's name, kind and attributes.
  const std::string_view name_kind =
      s.shape ? std::string_view(s.shape->otlp_name_kind) : std::string_view(",\"kind\":2");
  const std::string_view shape_attributes =
      s.shape ? std::string_view(s.shape->otlp_attributes) : std::string_view();
  w.need(name_kind.size() + 16 + shape_attributes.size());
  w.bytes(name_kind);
  const std::size_t open = w.offset();
  w.lit(",\"attributes\":[");
  if (!shape_attributes.empty()) w.bytes(shape_attributes);  // an empty view's data may be null
  bool first = shape_attributes.empty();
  constexpr std::string_view id_key = R"({"key":"jsonrpc.request.id","value":{"stringValue":)";
  if (const auto* n = std::get_if<std::int64_t>(&s.request_id)) {  // its decimal, written here
    const detail::integer_id id(*n);
    call_decimal(w, first, id_key, id.negative, id.magnitude);
  } else {
    call_text(w, first, id_key, *std::get_if<std::string>(&s.request_id));
  }
  call_text(w, first, R"({"key":"mcp.session.id","value":{"stringValue":)", s.session_id);
  call_text(w, first, R"({"key":"client.address","value":{"stringValue":)", s.peer_address);
  if (!s.peer_address.empty() && s.peer_port != 0) {
    call_decimal(w, first, R"({"key":"client.port","value":{"intValue":)", false, s.peer_port);
  }
  call_text(w, first, R"({"key":"mcp.resource.uri","value":{"stringValue":)", s.resource_uri);
  call_text(w, first, R"({"key":"error.type","value":{"stringValue":)", s.error_type);
  call_text(w, first, R"({"key":"rpc.response.status_code","value":{"stringValue":)",
            s.status_code);
  if (first) {
    w.back_to(open);  // no attributes at all
  } else {
    w.need(1);
    w.put(']');
  }
  if (s.status == span_status::error) {
    w.need(32);
    w.lit(",\"status\":{");
    if (!s.status_message.empty()) {
      w.lit("\"message\":");
      w.text(s.status_message);
      w.need(16);
      w.put(',');
    }
    w.lit("\"code\":2}");
  }
  w.need(1);
  w.put('}');
  return w;
}

void append_histogram(std::string& out, const metric_data& m, std::uint64_t now) {
  out += ",\"histogram\":{\"aggregationTemporality\":2,\"dataPoints\":[";
  for (std::size_t i = 0; i < m.histogram_points.size(); ++i) {
    const auto& p = m.histogram_points[i];
    if (i > 0) out += ',';
    out += '{';
    out += "\"startTimeUnixNano\":";
    append_u64_string(out, p.start_unix_ns);
    out += ",\"timeUnixNano\":";
    append_u64_string(out, now);
    append_attributes(out, p.attributes);
    out += ",\"count\":";
    append_u64_string(out, p.count);
    out += ",\"sum\":";
    append_double(out, p.sum);
    out += ",\"bucketCounts\":[";
    for (std::size_t b = 0; b < p.bucket_counts.size(); ++b) {
      if (b > 0) out += ',';
      append_u64_string(out, p.bucket_counts[b]);
    }
    out += "],\"explicitBounds\":[";
    for (std::size_t b = 0; b < duration_bounds.size(); ++b) {
      if (b > 0) out += ',';
      append_double(out, duration_bounds[b]);
    }
    out += "]}";
  }
  out += "]}";
}

void append_sum(std::string& out, const metric_data& m, std::uint64_t now) {
  out += ",\"sum\":{\"aggregationTemporality\":2";
  if (m.type == metric_type::counter) out += ",\"isMonotonic\":true";
  out += ",\"dataPoints\":[";
  for (std::size_t i = 0; i < m.number_points.size(); ++i) {
    const auto& p = m.number_points[i];
    if (i > 0) out += ',';
    out += "{\"startTimeUnixNano\":";
    append_u64_string(out, p.start_unix_ns);
    out += ",\"timeUnixNano\":";
    append_u64_string(out, now);
    append_attributes(out, p.attributes);
    out += ",\"asInt\":";
    append_i64_string(out, p.value);
    out += '}';
  }
  out += "]}";
}

/// The `ExportTraceServiceRequest` of `spans`: records, or pointers to them.
template <class Spans>
void write_traces(const Spans& spans, const resource_attributes& resource, std::string& out) {
  out.reserve(out.size() + 512 + spans.size() * 768);
  out += "{\"resourceSpans\":[{";
  append_resource(out, resource);
  out += ",\"scopeSpans\":[{";
  append_scope(out);
  out += ",\"spans\":[";
  span_writer w(out);
  for (std::size_t i = 0; i < spans.size(); ++i) {
    if (i > 0) {
      w.need(1);
      w.put(',');
    }
    w = put_span(w, detail::record_of(spans[i]));
  }
  w.done();
  out += "]}]}]}";
}

}  // namespace

void detail::append_otlp_key_value(std::string& out, std::string_view key,
                                   const attribute_value& v) {
  append_key_value(out, key, v);
}

void write_otlp_traces(std::span<const span_record> spans, const resource_attributes& resource,
                       std::string& out) {
  write_traces(spans, resource, out);
}

void detail::write_otlp_traces_records(std::span<const record_ptr> spans,
                                       const resource_attributes& resource, std::string& out) {
  write_traces(spans, resource, out);
}

void write_otlp_metrics(const metrics_snapshot& snap, const resource_attributes& resource,
                        std::string& out) {
  out += "{\"resourceMetrics\":[{";
  append_resource(out, resource);
  out += ",\"scopeMetrics\":[{";
  append_scope(out);
  out += ",\"metrics\":[";
  for (std::size_t i = 0; i < snap.metrics.size(); ++i) {
    const auto& m = snap.metrics[i];
    if (i > 0) out += ',';
    out += "{\"name\":";
    append_json_string(out, m.name);
    out += ",\"description\":";
    append_json_string(out, m.description);
    out += ",\"unit\":";
    append_json_string(out, m.unit);
    if (m.type == metric_type::histogram) {
      append_histogram(out, m, snap.time_unix_ns);
    } else {
      append_sum(out, m, snap.time_unix_ns);
    }
    out += '}';
  }
  out += "]}]}]}";
}

}  // namespace mcp::observe
