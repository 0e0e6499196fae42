// Internal: what the two OTLP span writers share (otlp_json.cpp, otlp_protobuf.cpp): room made
// a few spans at a time, a span's OTLP flags, and decimals written by pointer (an integer
// request id's text, written on the exporter's thread). Thread-safe: the functions touch only
// their arguments.
#pragma once

#include <mcp/observe/tracing.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace mcp::observe::detail {

/// Room for a few spans at a time: an encoder makes its string longer than what it writes by
/// this many bytes (beyond what a span or a piece needs), so that the zeroes a longer string
/// gets are written for several spans in one call (under the 2 KiB from which glibc's memset
/// turns to `rep stosb`); the end is cut back once the spans are in.
inline constexpr std::size_t room_step = 1536;

/// A span's OTLP `flags`: the W3C flags in the low byte; 0x100: whether the parent is remote is
/// known (always); 0x200: it is.
[[nodiscard]] constexpr std::uint32_t otlp_span_flags(const span_record& s) noexcept {
  return s.context.flags | 0x100U | (s.parent_remote ? 0x200U : 0U);
}

/// The number of decimal digits of `v` (1 to 20): from its bit width, with one comparison.
[[nodiscard]] inline std::size_t decimal_size(std::uint64_t v) noexcept {
  // 10^n for n from 1 (0 for n = 0: 0 has a digit too).
  static constexpr std::array<std::uint64_t, 20> powers = [] {
    std::array<std::uint64_t, 20> t{};
    std::uint64_t p = 1;
    for (std::size_t i = 1; i < t.size(); ++i) t[i] = p *= 10;
    return t;
  }();
  // t = floor(bits * log10 2) (1233 / 4096: exact for bits up to 64); `v` has t or t + 1 digits.
  const auto t = (static_cast<std::size_t>(std::bit_width(v | 1U)) * 1233U) >> 12U;
  return t + (v >= powers[t] ? 1 : 0);
}

/// Writes the decimal digits of `v` so that they end at `end` (`decimal_size(v)` of them), two
/// at a time from a table.
inline void write_decimal_ending(char* end, std::uint64_t v) noexcept {
  static constexpr auto pairs = [] {
    std::array<char, 200> t{};
    for (std::size_t i = 0; i < 100; ++i) {
      t[2 * i] = static_cast<char>('0' + i / 10);
      t[2 * i + 1] = static_cast<char>('0' + i % 10);
    }
    return t;
  }();
  while (v >= 100) {
    end -= 2;
    std::memcpy(end, &pairs[2 * static_cast<std::size_t>(v % 100)], 2);
    v /= 100;
  }
  if (v >= 10) {
    std::memcpy(end - 2, &pairs[2 * static_cast<std::size_t>(v)], 2);
  } else {
    end[-1] = static_cast<char>('0' + v);
  }
}

/// An integer request id's text (`jsonrpc.request.id` is a string): its decimal, a '-' first
/// for a negative one, as `std::to_chars` writes it. The encoders write it on their own thread,
/// so that the thread ending a span keeps an integer id as it is.
struct integer_id {
  std::uint64_t magnitude = 0;
  bool negative = false;
  std::size_t size = 0;  ///< of the text: at most 20 ("-9223372036854775808")

  explicit integer_id(std::int64_t v) noexcept
      : magnitude(v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v)),
        negative(v < 0),
        size(decimal_size(magnitude) + (negative ? 1 : 0)) {}
  /// Writes the text at `p` (room for `size` bytes); returns its end.
  char* write(char* p) const noexcept {
    *p = '-';  // overwritten by the last digit when there is no sign
    write_decimal_ending(p + size, magnitude);
    return p + size;
  }
};

}  // namespace mcp::observe::detail
