// OTLP/JSON request bodies (opentelemetry-proto's JSON mapping): lowerCamelCase keys, ids as
// hex, enums as integers, 64-bit integers as decimal strings, default values left out. Written
// as text, never through a DOM.
#include <mcp/observe/otlp.hpp>

#include <array>
#include <charconv>

namespace mcp::observe {
namespace {

void append_u64(std::string& out, std::uint64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

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

template <std::size_t N>
void append_hex(std::string& out, const std::array<std::uint8_t, N>& bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  char buf[2 * N + 2];
  buf[0] = '"';
  for (std::size_t i = 0; i < N; ++i) {
    buf[1 + 2 * i] = digits[bytes[i] >> 4U];
    buf[2 + 2 * i] = digits[bytes[i] & 0xFU];
  }
  buf[2 * N + 1] = '"';
  out.append(buf, sizeof buf);
}

template <std::size_t N>
bool all_zero(const std::array<std::uint8_t, N>& a) {
  for (const auto b : a) {
    if (b != 0) return false;
  }
  return true;
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

void append_span(std::string& out, const span_record& s) {
  out += "{\"traceId\":";
  append_hex(out, s.context.trace_id);
  out += ",\"spanId\":";
  append_hex(out, s.context.span_id);
  if (!all_zero(s.parent_span_id)) {
    out += ",\"parentSpanId\":";
    append_hex(out, s.parent_span_id);
  }
  if (!s.context.trace_state.empty()) {
    out += ",\"traceState\":";
    append_json_string(out, s.context.trace_state);
  }
  // Low byte: the W3C flags; 0x100: whether the parent is remote is known; 0x200: it is.
  std::uint32_t flags = s.context.flags | 0x100U;
  if (s.parent_remote) flags |= 0x200U;
  out += ",\"flags\":";
  append_u64(out, flags);
  out += ",\"name\":";
  append_json_string(out, s.name);
  out += s.side == kind::server ? ",\"kind\":2" : ",\"kind\":3";
  out += ",\"startTimeUnixNano\":";
  append_u64_string(out, s.start_unix_ns);
  out += ",\"endTimeUnixNano\":";
  append_u64_string(out, s.end_unix_ns);
  append_attributes(out, s.attributes);
  if (s.status == span_status::error) {
    out += ",\"status\":{";
    if (!s.status_message.empty()) {
      out += "\"message\":";
      append_json_string(out, s.status_message);
      out += ',';
    }
    out += "\"code\":2}";
  }
  out += '}';
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

}  // namespace

void write_otlp_traces(std::span<const span_record> spans, const resource_attributes& resource,
                       std::string& out) {
  out.reserve(out.size() + 512 + spans.size() * 768);
  out += "{\"resourceSpans\":[{";
  append_resource(out, resource);
  out += ",\"scopeSpans\":[{";
  append_scope(out);
  out += ",\"spans\":[";
  for (std::size_t i = 0; i < spans.size(); ++i) {
    if (i > 0) out += ',';
    append_span(out, spans[i]);
  }
  out += "]}]}]}";
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
