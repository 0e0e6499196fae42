// The exporter's lock-free queue of span records (src/observe/span_ring.hpp): order, a full
// ring's refusal, laps around the ring, and many threads adding while one takes.
#include "observe/span_ring.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

namespace {

using mcp::observe::span_record;
using mcp::observe::detail::record_ptr;
using mcp::observe::detail::record_ring;

record_ptr marked(std::uint64_t mark) {
  auto r = std::make_unique<span_record>();
  r->start_unix_ns = mark;
  return r;
}

TEST(SpanRing, AFullRingRefusesAndRecordsComeOutInOrderLapAfterLap) {
  record_ring ring(3);  // not a power of two: positions taken modulo 3
  std::uint64_t next_in = 0;
  std::uint64_t next_out = 0;
  for (int lap = 0; lap < 5; ++lap) {
    while (ring.size() < 3) {
      auto r = marked(next_in);
      std::uint64_t at = 99;
      ASSERT_TRUE(ring.push(r, at));
      EXPECT_EQ(at, next_in);
      EXPECT_EQ(r, nullptr);
      ++next_in;
    }
    auto extra = marked(1000);
    std::uint64_t at = 0;
    EXPECT_FALSE(ring.push(extra, at));
    ASSERT_NE(extra, nullptr);  // refused: still the caller's
    EXPECT_EQ(extra->start_unix_ns, 1000U);
    std::vector<record_ptr> out;
    out.reserve(8);
    ASSERT_EQ(ring.take(out, 2), 2U);  // leave one behind: the next lap wraps around it
    for (const auto& r : out) EXPECT_EQ(r->start_unix_ns, next_out++);
  }
  EXPECT_EQ(ring.size(), 1U);
  EXPECT_EQ(ring.clear(), 1U);
  std::vector<record_ptr> none;
  none.reserve(4);
  EXPECT_EQ(ring.take(none, 4), 0U);
  EXPECT_EQ(ring.size(), 0U);
  // Within the room the caller made: a vector of room for one takes one.
  for (std::uint64_t i = 0; i < 2; ++i) {
    auto r = marked(i);
    std::uint64_t at = 0;
    ASSERT_TRUE(ring.push(r, at));
  }
  std::vector<record_ptr> one;
  one.reserve(1);
  const std::size_t room = one.capacity();
  EXPECT_EQ(ring.take(one, 4), std::min<std::size_t>(room, 2));
  EXPECT_LE(one.size(), room);
  EXPECT_EQ(ring.size(), 2U - one.size());
}

TEST(SpanRing, ARingOfOneHoldsTwo) {
  record_ring ring(1);
  std::uint64_t at = 0;
  for (std::uint64_t i = 0; i < 2; ++i) {
    auto r = marked(i);
    ASSERT_TRUE(ring.push(r, at));
    EXPECT_EQ(at, i);
  }
  auto third = marked(2);
  EXPECT_FALSE(ring.push(third, at));  // full: not written over the first
  std::vector<record_ptr> out;
  out.reserve(4);
  ASSERT_EQ(ring.take(out, 4), 2U);
  EXPECT_EQ(out[0]->start_unix_ns, 0U);
  EXPECT_EQ(out[1]->start_unix_ns, 1U);
}

TEST(SpanRing, ManyThreadsAddWhileOneTakesAndNothingIsLostOrReordered) {
  constexpr std::uint64_t threads = 4;
  constexpr std::uint64_t per_thread = 20000;
  auto ring = std::make_shared<record_ring>(64);
  std::vector<std::thread> adders;
  for (std::uint64_t t = 0; t < threads; ++t) {
    adders.emplace_back([ring, t] {
      for (std::uint64_t i = 0; i < per_thread; ++i) {
        auto r = marked((t << 32U) | i);
        std::uint64_t at = 0;
        while (!ring->push(r, at)) std::this_thread::yield();  // full: wait for the taker
      }
    });
  }
  std::vector<std::uint64_t> next(threads, 0);
  std::uint64_t taken = 0;
  std::vector<record_ptr> out;
  out.reserve(16);
  bool in_order = true;
  while (taken < threads * per_thread) {
    out.clear();
    if (ring->take(out, 16) == 0) {
      std::this_thread::yield();
      continue;
    }
    for (const auto& r : out) {
      const auto t = r->start_unix_ns >> 32U;
      const auto i = r->start_unix_ns & 0xFFFFFFFFU;
      if (t >= threads || i != next[t]) {
        in_order = false;
        continue;
      }
      next[t] = i + 1;
    }
    taken += out.size();
  }
  for (auto& a : adders) a.join();
  EXPECT_TRUE(in_order);
  for (std::uint64_t t = 0; t < threads; ++t) EXPECT_EQ(next[t], per_thread) << "thread " << t;
  EXPECT_EQ(ring->size(), 0U);
}

}  // namespace
