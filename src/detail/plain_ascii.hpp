// Internal: a test of 8 bytes at once for JSON string text that needs no escape, shared by the
// JSON writer (append_json_string) and the plain tools/call reader (call_scan.cpp). No MCP
// knowledge.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

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

}  // namespace mcp::detail
