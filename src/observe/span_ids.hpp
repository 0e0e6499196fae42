// Internal: the tracer's span and trace ids, from a fast generator per thread (two wyrand streams)
// seeded from the kernel's CSPRNG, reseeded in a forked child (span_ids.cpp).
#pragma once

#include <array>
#include <cstdint>

namespace mcp::observe::detail {

/// A new span id (8 bytes, never all zero) into `span` and, when `trace` is not null, a new
/// trace id (16 bytes, never all zero) into `*trace`: one look-up of this thread's generator for
/// both. Thread-safe (one generator per thread); never throws (a seed the kernel refuses is made
/// of the clock, the process id and the thread instead: unique ids, not unpredictable ones).
void fast_ids(std::array<std::uint8_t, 16>* trace, std::array<std::uint8_t, 8>& span) noexcept;

}  // namespace mcp::observe::detail
