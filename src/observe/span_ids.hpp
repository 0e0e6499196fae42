// Internal: the tracer's span and trace ids, from a fast generator per thread (xoshiro256**)
// seeded from the kernel's CSPRNG, reseeded in a forked child (span_ids.cpp).
#pragma once

#include <array>
#include <cstdint>

namespace mcp::observe::detail {

/// A new trace id (16 bytes, never all zero). Thread-safe (one generator per thread); throws
/// `std::system_error` only when the kernel refuses the seed.
[[nodiscard]] std::array<std::uint8_t, 16> fast_trace_id();
/// A new span id (8 bytes, never all zero). As `fast_trace_id`.
[[nodiscard]] std::array<std::uint8_t, 8> fast_span_id();

}  // namespace mcp::observe::detail
