// The clock reading a message reader shares with the engine's observation, per thread: a
// reader (read_lines) marks the start of each batch of messages it read, and the first received
// message the peer observes in the batch reads the clock once for all of them; the end of an
// operation answered on that thread refreshes it, so the next message of the batch starts when
// the previous one ended. Over stdio a batch of many messages thus costs one clock reading per
// operation (its end) instead of two, and nothing when observation is off.
#pragma once

#include <chrono>
#if defined(__linux__) && defined(__GLIBCXX__)
#include <time.h>  // NOLINT(modernize-deprecated-headers): clock_gettime
#endif

#include "detail/hot_tls.hpp"

namespace mcp::detail {

/// `std::chrono::steady_clock::now()`, read without the library's call around the clock: on
/// Linux with libstdc++, whose steady clock is CLOCK_MONOTONIC, `clock_gettime` is called here.
[[nodiscard]] inline std::chrono::steady_clock::time_point monotonic_now() noexcept {
#if defined(__linux__) && defined(__GLIBCXX__)
  timespec ts;  // NOLINT(cppcoreguidelines-pro-type-member-init): written by clock_gettime
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::chrono::steady_clock::time_point(std::chrono::seconds(ts.tv_sec) +
                                               std::chrono::nanoseconds(ts.tv_nsec));
#else
  return std::chrono::steady_clock::now();
#endif
}

struct read_clock {
  bool in_reader = false;                      ///< the thread is inside a reader's loop
  std::chrono::steady_clock::time_point at{};  ///< unset: not read since the last batch

  /// The reading of the current batch, taken now if not taken yet; unset outside a reader
  /// (the observer then reads the clock itself).
  [[nodiscard]] std::chrono::steady_clock::time_point batch_start() noexcept {
    if (!in_reader) return {};
    if (at == std::chrono::steady_clock::time_point{}) at = monotonic_now();
    return at;
  }

  /// The end of an operation: read now, and on a reader's thread the reading for what follows.
  [[nodiscard]] std::chrono::steady_clock::time_point end_now() noexcept {
    const auto now = monotonic_now();
    if (in_reader) at = now;
    return now;
  }
};

/// The calling thread's reading.
MCP_HOT_TLS inline thread_local read_clock this_thread_read_clock;

/// Inside a reader's loop for its lifetime (restoring what was before: readers may nest).
class reader_scope {
 public:
  reader_scope() noexcept : saved_(this_thread_read_clock) {
    this_thread_read_clock = {.in_reader = true, .at = {}};
  }
  ~reader_scope() { this_thread_read_clock = saved_; }
  reader_scope(const reader_scope&) = delete;
  reader_scope& operator=(const reader_scope&) = delete;

  /// A new batch was read: the next observed message reads the clock again.
  static void new_batch() noexcept { this_thread_read_clock.at = {}; }

 private:
  read_clock saved_;
};

}  // namespace mcp::detail
