// The internal timer thread (src/detail/timer.hpp): ordering, cancellation, an earlier timer
// scheduled while a later one is pending, targeted timers, and stale handles of reused slots.
#include "detail/timer.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

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

TEST(timer, fire_in_deadline_order_whatever_the_order_of_scheduling) {
  std::mutex mu;
  std::vector<int> order;
  std::atomic<int> done{0};
  const auto base = clock::now() + 30ms;
  for (const int k : {5, 1, 4, 2, 3, 0}) {
    mcp::detail::schedule_timer(base + std::chrono::milliseconds(4 * k), [&, k] {
      std::lock_guard lock(mu);
      order.push_back(k);
      ++done;
    });
  }
  for (int i = 0; i < 400 && done < 6; ++i) std::this_thread::sleep_for(5ms);
  std::lock_guard lock(mu);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5}));
}

void count_target(const std::shared_ptr<void>& target, std::uint64_t arg) {
  *static_cast<std::atomic<std::uint64_t>*>(target.get()) += arg;
}

TEST(timer, a_targeted_timer_runs_only_while_its_target_lives) {
  auto alive = std::make_shared<std::atomic<std::uint64_t>>(0);
  auto gone = std::make_shared<std::atomic<std::uint64_t>>(0);
  std::weak_ptr<std::atomic<std::uint64_t>> watch = gone;
  mcp::detail::schedule_timer(clock::now() + 10ms, std::weak_ptr<void>(alive), &count_target, 7);
  mcp::detail::schedule_timer(clock::now() + 10ms, std::weak_ptr<void>(gone), &count_target, 9);
  gone.reset();  // the timer holds it weakly: it is destroyed now, and the timer does nothing
  EXPECT_TRUE(watch.expired());
  for (int i = 0; i < 200 && alive->load() == 0; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(alive->load(), 7U);
}

TEST(timer, a_stale_handle_does_not_cancel_the_timer_that_reuses_its_slot) {
  std::atomic<int> fired{0};
  const auto first = mcp::detail::schedule_timer(clock::now() + 1h, [] {});
  mcp::detail::cancel_timer(first);  // frees the slot
  const auto second = mcp::detail::schedule_timer(clock::now() + 10ms, [&] { ++fired; });
  EXPECT_NE(first, second);
  mcp::detail::cancel_timer(first);  // stale: must not touch the second timer
  for (int i = 0; i < 200 && fired == 0; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(fired.load(), 1);
}

}  // namespace
