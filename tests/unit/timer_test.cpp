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

/// Waits (up to 5 s) until `done()`; the timer thread may be slow to run on a loaded machine.
template <class Pred>
bool soon(Pred done) {
  const auto give_up = clock::now() + 5s;
  while (!done()) {
    if (clock::now() > give_up) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

// What a callback touches is shared with it: a timer that fires after the test has ended (a
// late timer thread, a failed wait) writes into the shared state, not into a later test's stack.

TEST(timer, an_earlier_timer_is_not_delayed_by_a_later_one) {
  const auto late = std::make_shared<std::atomic<bool>>(false);
  const auto early = std::make_shared<std::atomic<bool>>(false);
  const auto h = mcp::detail::schedule_timer(clock::now() + 60s, [late] { *late = true; });
  std::this_thread::sleep_for(10ms);  // the thread is now waiting for the 60 s timer
  mcp::detail::schedule_timer(clock::now() + 10ms, [early] { *early = true; });
  EXPECT_TRUE(soon([&] { return early->load(); }));
  EXPECT_FALSE(*late);
  mcp::detail::cancel_timer(h);
}

TEST(timer, cancelled_timers_do_not_fire) {
  const auto fired = std::make_shared<std::atomic<int>>(0);
  // Far enough ahead that the cancel comes first however slow this thread is; the cancelled
  // timer is due before the other, so it would have fired by the time the other has.
  const auto h = mcp::detail::schedule_timer(clock::now() + 300ms, [fired] { ++*fired; });
  mcp::detail::cancel_timer(h);
  mcp::detail::schedule_timer(clock::now() + 400ms, [fired] { *fired += 10; });
  EXPECT_TRUE(soon([&] { return fired->load() >= 10; }));
  EXPECT_EQ(fired->load(), 10);
}

TEST(timer, fire_in_deadline_order_whatever_the_order_of_scheduling) {
  struct state {
    std::mutex mu;
    std::vector<int> order;
  };
  const auto st = std::make_shared<state>();
  // Every timer is scheduled well before the first is due.
  const auto base = clock::now() + 300ms;
  for (const int k : {5, 1, 4, 2, 3, 0}) {
    mcp::detail::schedule_timer(base + std::chrono::milliseconds(4 * k), [st, k] {
      const std::lock_guard lock(st->mu);
      st->order.push_back(k);
    });
  }
  EXPECT_TRUE(soon([&] {
    const std::lock_guard lock(st->mu);
    return st->order.size() >= 6;
  }));
  const std::lock_guard lock(st->mu);
  EXPECT_EQ(st->order, (std::vector<int>{0, 1, 2, 3, 4, 5}));
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
  EXPECT_TRUE(soon([&] { return alive->load() != 0; }));
  EXPECT_EQ(alive->load(), 7U);
}

TEST(timer, a_stale_handle_does_not_cancel_the_timer_that_reuses_its_slot) {
  const auto fired = std::make_shared<std::atomic<int>>(0);
  const auto first = mcp::detail::schedule_timer(clock::now() + 1h, [] {});
  mcp::detail::cancel_timer(first);  // frees the slot
  const auto second = mcp::detail::schedule_timer(clock::now() + 10ms, [fired] { ++*fired; });
  EXPECT_NE(first, second);
  mcp::detail::cancel_timer(first);  // stale: must not touch the second timer
  EXPECT_TRUE(soon([&] { return fired->load() != 0; }));
  EXPECT_EQ(fired->load(), 1);
}

}  // namespace
