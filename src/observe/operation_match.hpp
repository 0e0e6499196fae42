// Internal: an operation's start attributes kept as the operation gave them, and compared with
// a new operation member by member (word loads for the short texts of attributes), with a slot
// hash from a few words of the parts that vary. The metrics' series and the tracer's span shapes
// find their per-thread cache entries with these, building no key on a hit.
#pragma once

#include <mcp/observe.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace mcp::observe::series {

/// An operation group's start attributes as the operation gave them, compared member by member
/// with a new operation on the per-thread cache's fast path (no key is built there).
struct operation_fields {
  std::string method;
  std::string target;         ///< empty unless the method has one (`target_key`)
  bool target_keyed = false;  ///< whether the method has one
  std::string protocol_version;
  std::string network_protocol_name;
  std::string network_protocol_version;
  std::string peer_address;  ///< client side only
  std::string resource_uri;  ///< only when the metrics record it
  network_transport transport = network_transport::unknown;
  std::uint16_t peer_port = 0;  ///< client side only
};

/// The start attributes of `op` that its group or shape is made of and compared by: the
/// target only when the method has one (`target_keyed`), the peer's address and port only on
/// the client side, the resource URI only when `with_uri` (the metrics' opt-in).
inline operation_fields fields_of(const operation& op, bool target_keyed, bool with_uri = false) {
  operation_fields f;
  f.method = op.method;
  f.target_keyed = target_keyed;
  if (target_keyed) f.target = op.target;
  f.protocol_version = op.protocol_version;
  f.network_protocol_name = op.network_protocol_name;
  f.network_protocol_version = op.network_protocol_version;
  f.transport = op.transport;
  if (op.side == kind::client) {
    f.peer_address = op.peer_address;
    f.peer_port = op.peer_port;
  }
  if (with_uri) f.resource_uri = op.resource_uri;
  return f;
}

/// `n` (at most 8) bytes from `p` as a word.
template <std::size_t N>
[[gnu::always_inline]] inline std::uint64_t load(const char* p) noexcept {
  static_assert(N == 4 || N == 8);
  if constexpr (N == 8) {
    std::uint64_t w;  // NOLINT(cppcoreguidelines-init-variables): filled by memcpy
    std::memcpy(&w, p, 8);
    return w;
  } else {
    std::uint32_t w;  // NOLINT(cppcoreguidelines-init-variables): filled by memcpy
    std::memcpy(&w, p, 4);
    return w;
  }
}

/// Up to the first eight bytes of `s` as a word (overlapping loads; short strings padded).
[[gnu::always_inline]] inline std::uint64_t head8(std::string_view s) noexcept {
  const auto n = s.size();
  if (n >= 8) return load<8>(s.data());
  if (n >= 4) return load<4>(s.data()) | (load<4>(s.data() + n - 4) << 32U);
  std::uint64_t w = 0;
  for (std::size_t i = 0; i < n; ++i) {
    w |= std::uint64_t{static_cast<unsigned char>(s[i])} << (8U * i);
  }
  return w;
}

/// The last eight bytes of `s` as a word; zero when it is shorter (`head8` has it all).
[[gnu::always_inline]] inline std::uint64_t tail8(std::string_view s) noexcept {
  return s.size() >= 8 ? load<8>(s.data() + s.size() - 8) : 0;
}

/// `a == b`, inline for the short texts of attributes (overlapping word loads), memcmp beyond.
[[gnu::always_inline]] inline bool same_text(std::string_view a, std::string_view b) noexcept {
  const auto n = a.size();
  if (n != b.size()) return false;
  const char* x = a.data();
  const char* y = b.data();
  if (n > 16) return std::memcmp(x, y, n) == 0;
  if (n >= 8) return load<8>(x) == load<8>(y) && load<8>(x + n - 8) == load<8>(y + n - 8);
  if (n >= 4) return load<4>(x) == load<4>(y) && load<4>(x + n - 4) == load<4>(y + n - 4);
  for (std::size_t i = 0; i < n; ++i) {
    if (x[i] != y[i]) return false;
  }
  return true;
}

/// A slot hash for an operation's start attributes from a few words of the parts that vary
/// (method, target, version, transport); a collision costs only a miss, since the slot's
/// group is compared member by member.
[[gnu::always_inline]] inline std::size_t operation_hash(const operation& op) noexcept {
  std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ head8(op.method) ^ (op.method.size() << 56U);
  h = (h ^ head8(op.target)) * 0xff51afd7ed558ccdULL;
  h = (h ^ tail8(op.target) ^ (op.target.size() << 48U)) * 0xc4ceb9fe1a85ec53ULL;
  h = (h ^ head8(op.protocol_version) ^ static_cast<std::uint64_t>(op.transport) ^
       (op.network_protocol_version.size() << 40U)) *
      0xff51afd7ed558ccdULL;
  return static_cast<std::size_t>(h ^ (h >> 29U));
}

/// Whether `op` has the start attributes `f` was made of (what `operation_key` keys).
inline bool same_operation(const operation_fields& f, const operation& op, bool with_uri) noexcept {
  if (!same_text(op.method, f.method) || !same_text(op.protocol_version, f.protocol_version) ||
      op.transport != f.transport ||
      !same_text(op.network_protocol_name, f.network_protocol_name) ||
      !same_text(op.network_protocol_version, f.network_protocol_version)) {
    return false;
  }
  if (f.target_keyed && !same_text(op.target, f.target)) return false;
  if (op.side == kind::client &&
      (!same_text(op.peer_address, f.peer_address) || op.peer_port != f.peer_port)) {
    return false;
  }
  return !with_uri || same_text(op.resource_uri, f.resource_uri);
}

}  // namespace mcp::observe::series
