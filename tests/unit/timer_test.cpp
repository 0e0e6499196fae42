// The internal timer thread (src/detail/timer.hpp): ordering, cancellation, and an earlier
// timer scheduled while a later one is pending.
#include "detail/timer.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace {

using namespace std::chrono_literals;
using mcp::detail::clock;

TEST(timer, an_earlier_timer_is_not_delayed_by_a_later_one) {
  std::atomic<bool> late{false};
  std::atomic<bool> early{false};
  const auto h = mcp::detail::schedule_timer(clock::now() + 60s, [&] { late = true; });
  std::this_thread::sleep_for(10ms);  // the thread is now waiting for the 60 s timer
  mcp::detail::schedule_timer(clock::now() + 10ms, [&] { early = true; });
  for (int i = 0; i < 200 && !early; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_TRUE(early);
  EXPECT_FALSE(late);
  mcp::detail::cancel_timer(h);
}

TEST(timer, cancelled_timers_do_not_fire) {
  std::atomic<int> fired{0};
  const auto h = mcp::detail::schedule_timer(clock::now() + 20ms, [&] { ++fired; });
  mcp::detail::cancel_timer(h);
  mcp::detail::schedule_timer(clock::now() + 30ms, [&] { fired += 10; });
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(fired.load(), 10);
}

}  // namespace
