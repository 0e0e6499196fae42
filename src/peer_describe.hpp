// Internal: what the engine's observation (peer_observe.cpp) reads of a message to describe its
// operation: its method compared inline, its target and resource URI, and the trace context of
// its `params._meta`. Thread-safe: the functions touch only their arguments.
#pragma once

#include <mcp/jsonrpc.hpp>
#include <mcp/observe.hpp>

#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

#include "peer_attribute_sets.hpp"

namespace mcp::detail::peer_text {

inline std::string_view string_member(const json::object& params, std::string_view key) noexcept {
  const auto* v = params.if_contains(key);
  return v != nullptr && v->is_string() ? std::string_view(v->get_string()) : std::string_view{};
}

/// `W` bytes from `p` as a word.
template <std::size_t W>
[[gnu::always_inline]] inline auto word(const char* p) noexcept {
  using type = std::conditional_t<W == 8, std::uint64_t, std::uint32_t>;
  type w;  // NOLINT(cppcoreguidelines-init-variables): filled by memcpy
  std::memcpy(&w, p, W);
  return w;
}

/// Whether the `N - 1` bytes at `p` are `lit`'s, by overlapping word loads up to 16 bytes: the
/// compiler does not inline a memcmp of a constant length here, and the call to the library's
/// costs more than these comparisons of method names and keys.
template <std::size_t N>
[[gnu::always_inline]] inline bool same_bytes(const char* p, const char (&lit)[N]) noexcept {
  constexpr std::size_t n = N - 1;
  if constexpr (n > 16) {
    return std::memcmp(p, lit, n) == 0;
  } else if constexpr (n >= 8) {
    return word<8>(p) == word<8>(lit) && word<8>(p + n - 8) == word<8>(lit + n - 8);
  } else if constexpr (n >= 4) {
    return word<4>(p) == word<4>(lit) && word<4>(p + n - 4) == word<4>(lit + n - 4);
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      if (p[i] != lit[i]) return false;
    }
    return true;
  }
}

/// `s == lit`, compared inline.
template <std::size_t N>
[[gnu::always_inline]] inline bool is(std::string_view s, const char (&lit)[N]) noexcept {
  return s.size() == N - 1 && same_bytes(s.data(), lit);
}

/// `s.starts_with(lit)`, compared inline.
template <std::size_t N>
[[gnu::always_inline]] inline bool begins(std::string_view s, const char (&lit)[N]) noexcept {
  return s.size() >= N - 1 && same_bytes(s.data(), lit);
}

inline bool has_resource_uri(std::string_view method) noexcept {
  return begins(method, "resources/") || is(method, "notifications/resources/updated");
}

/// The member `key` (a literal) of `params`, by a pass over its few members compared inline
/// (several times cheaper than the object's lookup by key); null when it has none.
template <std::size_t N>
[[gnu::always_inline]] inline const json::value* small_member(const json::object& params,
                                                              const char (&key)[N]) noexcept {
  for (const auto& member : params) {
    if (is(member.key(), key)) return &member.value();
  }
  return nullptr;
}

/// The `name` member of `params` (`small_member`); empty when none is a string.
[[gnu::noinline]] inline std::string_view name_member(const json::object& params) noexcept {
  const auto* v = small_member(params, "name");
  return v != nullptr && v->is_string() ? std::string_view(v->get_string()) : std::string_view{};
}

/// The tool or prompt name of a message of class `c` (`targeted_of` its method), else empty:
/// its `name` member, compared inline where a request has it (first).
[[gnu::always_inline]] inline std::string_view target_of(targeted c,
                                                         const json::object& params) noexcept {
  if (c == targeted::none) return {};
  if (!params.empty()) {
    const auto& first = *params.begin();
    if (const std::string_view key = first.key(); is(key, "name") && first.value().is_string()) {
      return first.value().get_string();
    }
  }
  return name_member(params);
}

/// Whether a request's `_meta` carries a trace context (what `observe::extract` reads of it):
/// a 2026-07-28 request's `_meta`, always there, usually carries none.
inline bool carries_trace_context(const json::value& meta) noexcept {
  const auto c = observe::extract(meta.if_object());
  return !c.traceparent.empty() || !c.tracestate.empty() || !c.baggage.empty();
}

/// The method's target (the tool or prompt name) and resource URI, as the conventions name them.
inline void describe(observe::operation& op, std::string_view method, const json::object& params) {
  op.method = method;
  op.target = target_of(targeted_of(method), params);
  if (has_resource_uri(method)) op.resource_uri = string_member(params, "uri");
}

/// `describe` and the trace context of `params._meta` (`observe::extract`) for a received
/// message: the resource URI and `_meta` read in one pass over the params' members (a lookup by
/// key searches them anyway, once per key).
inline void describe_received(observe::operation& op, std::string_view method,
                              const json::object& params) noexcept {
  op.method = method;
  op.target = target_of(targeted_of(method), params);
  const bool uri = has_resource_uri(method);
  const json::object* meta = nullptr;
  for (const auto& member : params) {
    const std::string_view key = member.key();
    const auto& v = member.value();
    switch (key.size()) {
      case 3:
        if (uri && is(key, "uri") && v.is_string()) op.resource_uri = v.get_string();
        break;
      case 5:
        if (is(key, "_meta") && v.is_object()) meta = &v.get_object();
        break;
      default:
        break;
    }
  }
  op.remote = observe::extract(meta);
}

}  // namespace mcp::detail::peer_text
