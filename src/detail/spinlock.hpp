// Internal: a lock for critical sections of a few instructions that are almost never contended
// (the bookkeeping of one tool call). Cheaper than a mutex when uncontended; yields when not.
#pragma once

#include <atomic>
#include <thread>

namespace mcp::detail {

class spinlock {
 public:
  void lock() noexcept {
    if (!flag_.exchange(true, std::memory_order_acquire)) [[likely]] {
      return;
    }
    wait();
  }
  void unlock() noexcept { flag_.store(false, std::memory_order_release); }

 private:
  /// The contended path, out of line: every locked section stays a few instructions.
  [[gnu::cold, gnu::noinline]] void wait() noexcept {
    do {
      while (flag_.load(std::memory_order_relaxed)) std::this_thread::yield();
    } while (flag_.exchange(true, std::memory_order_acquire));
  }

  std::atomic<bool> flag_{false};
};

}  // namespace mcp::detail
