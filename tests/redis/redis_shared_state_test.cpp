// The Redis shared state (mcp/redis.hpp, make_redis_shared_state), two of them on one Redis
// standing for two processes: session records (saved, read, kept alive, ended), the input-round
// key both read, single-use records, token buckets one process drains for both, and messages
// one publishes that both hear (and a dropped listener no longer does).
#include <mcp/redis.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "redis/redis_server.hpp"

namespace {

using namespace std::chrono_literals;
using mcp::test::redis_server;
using mcp::test::unique_prefix;

class redis_shared_state_test : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.running()) << "redis-server did not start"; }
  std::shared_ptr<mcp::shared_state> open(const std::string& prefix,
                                          mcp::redis_shared_state_options more = {}) {
    auto s = mcp::make_redis_shared_state({.url = server_.url(), .key_prefix = prefix}, more);
    if (!s) ADD_FAILURE() << s.error().message;
    return s ? *s : nullptr;
  }
  redis_server server_;
};

TEST_F(redis_shared_state_test, both_processes_have_the_stores_and_one_key) {
  const auto prefix = unique_prefix();
  auto a = open(prefix);
  auto b = open(prefix);
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(a->tasks());
  EXPECT_TRUE(a->events());
  EXPECT_EQ(a->sealing_key().size(), 32U);
  EXPECT_EQ(a->sealing_key(), b->sealing_key());
  auto other = open(unique_prefix());  // another service: another key
  ASSERT_TRUE(other);
  EXPECT_NE(other->sealing_key(), a->sealing_key());
}

TEST_F(redis_shared_state_test, a_session_saved_by_one_is_read_kept_and_ended_by_the_other) {
  const auto prefix = unique_prefix();
  auto a = open(prefix, {.session_ttl = 1s});
  auto b = open(prefix, {.session_ttl = 1s});
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(b->load_session("s1").value().has_value());
  EXPECT_FALSE(b->touch_session("s1").value());
  ASSERT_TRUE(a->save_session("s1", R"({"v":"2025-11-25"})"));
  EXPECT_EQ(b->load_session("s1").value().value_or(""), R"({"v":"2025-11-25"})");
  // Touched more often than its ttl, it lives on past it (1.2 s); left alone, it expires.
  for (int i = 0; i < 4; ++i) {
    std::this_thread::sleep_for(300ms);
    EXPECT_TRUE(b->touch_session("s1").value()) << i;
  }
  std::this_thread::sleep_for(1500ms);
  EXPECT_FALSE(a->touch_session("s1").value());
  ASSERT_TRUE(a->save_session("s2", "{}"));
  b->erase_session("s2");
  EXPECT_FALSE(a->load_session("s2").value().has_value());
}

TEST_F(redis_shared_state_test, a_single_use_record_is_first_only_once_across_processes) {
  const auto prefix = unique_prefix();
  auto a = open(prefix);
  auto b = open(prefix);
  ASSERT_TRUE(a && b);
  const auto expires = std::chrono::system_clock::now() + 10s;
  EXPECT_TRUE(a->first_use("n1", expires).value());
  EXPECT_FALSE(b->first_use("n1", expires).value());
  EXPECT_FALSE(a->first_use("n1", expires).value());
  EXPECT_TRUE(b->first_use("n2", expires).value());
}

TEST_F(redis_shared_state_test, one_bucket_for_every_process) {
  const auto prefix = unique_prefix();
  auto a = open(prefix);
  auto b = open(prefix);
  ASSERT_TRUE(a && b);
  int taken = 0;
  long long wait = 0;
  for (int i = 0; i < 20; ++i) {
    auto r = (i % 2 == 0 ? a : b)->take_token("rate:caller", 1, 6);
    ASSERT_TRUE(r) << r.error().message;
    if (*r == 0) {
      ++taken;
    } else {
      wait = *r;
    }
  }
  EXPECT_EQ(taken, 6);  // the burst, shared; 1/s refills nothing measurable meanwhile
  EXPECT_GT(wait, 0);
  EXPECT_LE(wait, 1001);
  // Another caller has a bucket of its own; nonsense rates are refused.
  EXPECT_EQ(a->take_token("rate:other", 1, 6).value(), 0);
  EXPECT_FALSE(a->take_token("rate:x", 0, 6));
}

/// The messages a listener heard, waited for.
struct heard {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> messages;
  void add(std::string_view m) {
    const std::lock_guard lock(mu);
    messages.emplace_back(m);
    cv.notify_all();
  }
  std::vector<std::string> wait_for(std::size_t n) {
    std::unique_lock lock(mu);
    cv.wait_for(lock, 5s, [&] { return messages.size() >= n; });
    return messages;
  }
};

TEST_F(redis_shared_state_test, a_message_one_publishes_is_heard_by_every_listener_of_its_topic) {
  const auto prefix = unique_prefix();
  auto a = open(prefix);
  auto b = open(prefix);
  auto other = open(unique_prefix());  // another service hears nothing
  ASSERT_TRUE(a && b && other);
  heard on_a;
  heard on_b;
  heard elsewhere;
  heard other_topic;
  auto la = a->listen("t", [&](std::string_view m) { on_a.add(m); });
  auto lb = b->listen("t", [&](std::string_view m) { on_b.add(m); });
  auto lo = other->listen("t", [&](std::string_view m) { elsewhere.add(m); });
  auto lt = b->listen("u", [&](std::string_view m) { other_topic.add(m); });
  ASSERT_TRUE(la && lb && lo && lt);
  ASSERT_TRUE(a->publish("t", "one"));
  ASSERT_TRUE(b->publish("t", std::string("two\0bytes", 9)));
  EXPECT_EQ(on_a.wait_for(2), (std::vector<std::string>{"one", std::string("two\0bytes", 9)}));
  EXPECT_EQ(on_b.wait_for(2), (std::vector<std::string>{"one", std::string("two\0bytes", 9)}));
  // Dropped: no more calls once the handle is gone.
  la.reset();
  ASSERT_TRUE(b->publish("t", "three"));
  EXPECT_EQ(on_b.wait_for(3).size(), 3U);
  EXPECT_EQ(on_a.wait_for(2).size(), 2U);
  EXPECT_TRUE(elsewhere.wait_for(0).empty());
  EXPECT_TRUE(other_topic.wait_for(0).empty());
}

}  // namespace
