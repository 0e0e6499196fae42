// Internal: one background thread that runs callbacks at deadlines (debounce, deadlines,
// request timeouts). Callbacks must be short; they run on the timer thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

namespace mcp::detail {

using clock = std::chrono::steady_clock;

/// Schedules `fn` at `when`; returns a handle for `cancel_timer`. Thread-safe.
std::uint64_t schedule_timer(clock::time_point when, std::function<void()> fn);
/// Cancels a timer that has not fired yet; no effect otherwise. Thread-safe.
void cancel_timer(std::uint64_t handle);

}  // namespace mcp::detail
