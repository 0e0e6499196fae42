// Internal: a test of 8 bytes at once (16 with SSE2) for JSON string text that needs no escape,
// shared by the JSON writer (append_json_string) and the plain tools/call reader (call_scan.cpp).
// No MCP knowledge.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mcp::detail {

/// The 8 bytes at `p` (in memory order, the first lowest) with the high bit of each that a JSON
/// string cannot hold as it is set: '"', '\\', a control character or a byte of 0x80 and up.
/// The lowest bit set is exactly the first such byte; bits above it may be set for bytes that
/// are fine. Zero: all 8 are ASCII from space up other than '"' and '\\'. Thread-safe, never
/// throws.
inline std::uint64_t special_ascii_bytes(const char* p) noexcept {
  constexpr std::uint64_t ones = 0x0101010101010101U, highs = 0x8080808080808080U;
  std::uint64_t w = 0;
  std::memcpy(&w, p, sizeof w);
  if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
  const auto has_zero = [](std::uint64_t v) { return (v - ones) & ~v & highs; };
  const std::uint64_t control = (w - ones * 0x20U) & ~w;  // a byte below 0x20 (or >= 0x80)
  return (control | w | has_zero(w ^ (ones * '"')) | has_zero(w ^ (ones * '\\'))) & highs;
}

/// Whether the 8 bytes at `p` are all ASCII from space up other than '"' and '\\' (what a JSON
/// string holds as it is). Thread-safe, never throws.
inline bool plain_ascii_block(const char* p) noexcept { return special_ascii_bytes(p) == 0; }

#if defined(__SSE2__)
/// The 16 bytes at `p`, one bit each (bit i for byte i) set when the byte is one a JSON string
/// cannot hold as it is: '"', '\\', a control character or a byte of 0x80 and up. Zero: all 16
/// are plain. Only where SSE2 is (every x86-64): elsewhere, `special_ascii_bytes`.
/// Thread-safe, never throws.
inline unsigned special_ascii_16(const char* p) noexcept {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  // Signed bytes: below 0x20 are the controls and everything from 0x80 up.
  const __m128i low = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
  const __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
  const __m128i slash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
  return static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(low, _mm_or_si128(quote, slash))));
}
#endif

}  // namespace mcp::detail
