// Internal: how a thread that sent a request sleeps until its answer (peer::request). A
// condition variable costs three futex calls per answer (wait, wake, and the wake of the
// mutex the waiter re-takes contended); this costs one each way, and none when the answer
// came before the sender went to sleep. No spinning: on a small machine the answering thread
// needs the core.
#pragma once

#include <atomic>
#include <climits>

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace mcp::detail {

/// A one-way state for one waiter: starts `pending` (0); other threads move it on with `set`.
/// Thread-safe; exactly one thread calls `wait_while`.
class answer_wait {
 public:
  static constexpr int pending = 0;

  /// Sleeps while the state is `from`; returns the state it moved to.
  int wait_while(int from) noexcept {
    for (;;) {
      int v = state_.load(std::memory_order_acquire);
      if ((v & ~sleeping) != from) return v & ~sleeping;
      if ((v & sleeping) == 0 && !state_.compare_exchange_weak(v, v | sleeping)) continue;
      sleep(v | sleeping);
    }
  }
  /// Moves the state to `to` (not 0) unconditionally, waking the waiter.
  void set(int to) noexcept {
    if ((state_.exchange(to, std::memory_order_acq_rel) & sleeping) != 0) wake();
  }
  /// Moves the state from `from` to `to`; false when it was no longer `from`.
  bool set_if(int from, int to) noexcept {
    int v = state_.load(std::memory_order_acquire);
    while ((v & ~sleeping) == from) {
      if (state_.compare_exchange_weak(v, to, std::memory_order_acq_rel)) {
        if ((v & sleeping) != 0) wake();
        return true;
      }
    }
    return false;
  }

 private:
  static constexpr int sleeping = 1 << 30;

  void sleep(int expected) noexcept {
#if defined(__linux__)
    (void)::syscall(SYS_futex, reinterpret_cast<int*>(&state_), FUTEX_WAIT_PRIVATE, expected,
                    nullptr, nullptr, 0);
#else
    state_.wait(expected, std::memory_order_acquire);
#endif
  }
  void wake() noexcept {
#if defined(__linux__)
    (void)::syscall(SYS_futex, reinterpret_cast<int*>(&state_), FUTEX_WAKE_PRIVATE, INT_MAX,
                    nullptr, nullptr, 0);
#else
    state_.notify_all();
#endif
  }

  std::atomic<int> state_{pending};
  static_assert(sizeof(std::atomic<int>) == sizeof(int) && std::atomic<int>::is_always_lock_free);
};

}  // namespace mcp::detail
