// Internal: one background thread that runs callbacks at deadlines (debounce, deadlines,
// request timeouts). Callbacks must be short; they run on the timer thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

namespace mcp::detail {

using clock = std::chrono::steady_clock;

/// Schedules `fn` at `when`; returns a handle (never 0) for `cancel_timer`. Thread-safe.
std::uint64_t schedule_timer(clock::time_point when, std::function<void()> fn);

/// A callback of a targeted timer: the target (alive) and the argument it was scheduled with.
using targeted_fn = void (*)(const std::shared_ptr<void>& target, std::uint64_t arg);
/// Schedules `fn(target, arg)` at `when`, run only if `target` is still alive then. Allocates
/// nothing once the timer table has grown: the form for per-call timers. Thread-safe.
std::uint64_t schedule_timer(clock::time_point when, std::weak_ptr<void> target, targeted_fn fn,
                             std::uint64_t arg);

/// Cancels a timer that has not fired yet; no effect otherwise (a stale handle is ignored).
/// Thread-safe.
void cancel_timer(std::uint64_t handle);

}  // namespace mcp::detail
