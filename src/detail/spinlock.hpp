// Internal: a lock for critical sections of a few instructions that are almost never contended
// (the bookkeeping of one tool call). Cheaper than a mutex when uncontended; yields when not.
#pragma once

#include <atomic>
#include <thread>

namespace mcp::detail {

class spinlock {
 public:
  void lock() noexcept {
    while (flag_.exchange(true, std::memory_order_acquire)) {
      while (flag_.load(std::memory_order_relaxed)) std::this_thread::yield();
    }
  }
  void unlock() noexcept { flag_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> flag_{false};
};

}  // namespace mcp::detail
