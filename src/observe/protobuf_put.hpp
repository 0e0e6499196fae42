// Internal: the protobuf pieces the OTLP/protobuf encoders share (otlp_protobuf.cpp for spans,
// otlp_protobuf_metrics.cpp for metrics): tags, varints, length-delimited fields, fixed-size
// little-endian fields, KeyValue attributes and the request's resource and instrumentation
// scope. `write_*` write at a pointer into room made before; `put_*` append to a string (a
// nested message is written into a string of its own and then put with its length). Thread-safe:
// the functions touch only their arguments.
#pragma once

#include <mcp/observe.hpp>
#include <mcp/observe/metrics.hpp>

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <variant>

namespace mcp::observe::detail::protobuf {

/// A field's tag byte (fields below 16). Wire types: 0 varint, 1 fixed64, 2 length-delimited,
/// 5 fixed32.
constexpr char tag(unsigned field, unsigned wire) {
  return static_cast<char>((field << 3U) | wire);
}

/// The bytes `v` takes as a varint.
constexpr std::size_t varint_size(std::uint64_t v) {
  std::size_t n = 1;
  while (v >= 0x80) {
    v >>= 7U;
    ++n;
  }
  return n;
}

/// Writes `v` as a varint at `p` (room for `varint_size(v)` bytes); returns the end.
inline char* write_varint(char* p, std::uint64_t v) noexcept {
  while (v >= 0x80) {
    *p++ = static_cast<char>((v & 0x7FU) | 0x80U);
    v >>= 7U;
  }
  *p++ = static_cast<char>(v);
  return p;
}

/// `v` in little-endian order at `p` (fixed64, sfixed64, double's bits), in one store.
inline void write_le64(char* p, std::uint64_t v) noexcept {
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  std::memcpy(p, &v, 8);
}

/// `v` in little-endian order at `p` (fixed32), in one store.
inline void write_le32(char* p, std::uint32_t v) noexcept {
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  std::memcpy(p, &v, 4);
}

/// `v` as a varint, appended.
inline void put_varint(std::string& out, std::uint64_t v) {
  char buf[10];
  out.append(buf, static_cast<std::size_t>(write_varint(buf, v) - buf));
}

/// A length-delimited field: its tag, its length, its bytes.
inline void put_bytes(std::string& out, char field_tag, std::string_view s) {
  out += field_tag;
  put_varint(out, s.size());
  out.append(s);
}

/// `v` as 8 little-endian bytes (`write_le64`), appended.
inline void put_le64(std::string& out, std::uint64_t v) {
  char b[8];
  write_le64(b, v);
  out.append(b, 8);
}

/// A fixed64 field.
inline void put_fixed64(std::string& out, unsigned field, std::uint64_t v) {
  out += tag(field, 1);
  put_le64(out, v);
}

/// A double field.
inline void put_double(std::string& out, unsigned field, double v) {
  out += tag(field, 1);
  put_le64(out, std::bit_cast<std::uint64_t>(v));
}

/// `AnyValue` of `v`, length-prefixed, as field 2 of a `KeyValue`.
inline void put_any_value(std::string& out, const attribute_value& v) {
  out += tag(2, 2);
  std::string inner;
  if (const auto* s = std::get_if<std::string>(&v)) {
    put_bytes(inner, tag(1, 2), *s);  // string_value
  } else if (const auto* b = std::get_if<bool>(&v)) {
    inner += tag(2, 0);  // bool_value
    inner += *b ? '\x01' : '\x00';
  } else {
    inner += tag(3, 0);  // int_value: int64, negative numbers in ten bytes
    put_varint(inner, static_cast<std::uint64_t>(std::get<std::int64_t>(v)));
  }
  put_varint(out, inner.size());
  out += inner;
}

/// A `KeyValue` as field `field` (length-prefixed) of the enclosing message.
inline void put_key_value(std::string& out, unsigned field, std::string_view key,
                          const attribute_value& v) {
  std::string kv;
  put_bytes(kv, tag(1, 2), key);
  put_any_value(kv, v);
  put_bytes(out, tag(field, 2), kv);
}

/// The `Resource` of `resource` as field 1 of ResourceSpans or ResourceMetrics.
inline void put_resource(std::string& out, const resource_attributes& resource) {
  std::string res;
  for (const auto& [k, v] : resource) put_key_value(res, 1, k, attribute_value(v));
  put_bytes(out, tag(1, 2), res);
}

/// The `InstrumentationScope` (this SDK's name and version) as field 1 of ScopeSpans or
/// ScopeMetrics.
inline void put_scope(std::string& out) {
  std::string scope;
  put_bytes(scope, tag(1, 2), scope_name());
  put_bytes(scope, tag(2, 2), scope_version());
  put_bytes(out, tag(1, 2), scope);
}

}  // namespace mcp::observe::detail::protobuf
