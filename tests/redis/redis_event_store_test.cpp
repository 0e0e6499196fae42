// The Redis event store (mcp/redis.hpp, make_redis_event_store): what the memory event store
// promises (tests/http/sse_test.cpp: replay after an id, evicted events refused, another session
// sees nothing, a session's end forgets it), then resumption on another store of the same Redis
// (another process), the ttl per session, and a gap (a lost event) refused.
#include <mcp/redis.hpp>

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "redis/redis_server.hpp"

namespace {

using namespace std::chrono_literals;
using mcp::test::redis_server;
using mcp::test::unique_prefix;

class redis_event_store_test : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.running()) << "redis-server did not start"; }

  std::shared_ptr<mcp::event_store> open(const std::string& prefix,
                                         mcp::redis_event_store_limits limits = {}) {
    auto s = mcp::make_redis_event_store({.url = server_.url(), .key_prefix = prefix}, limits);
    if (!s) ADD_FAILURE() << s.error().message;
    return s ? *s : nullptr;
  }
  std::shared_ptr<mcp::redis_client> raw() {
    return mcp::make_redis_client({.url = server_.url(), .key_prefix = ""}).value();
  }

  redis_server server_;
};

TEST_F(redis_event_store_test, replays_after_an_id_and_reports_evicted_events) {
  auto store = open(unique_prefix(), {.max_events_per_stream = 3});
  ASSERT_TRUE(store);
  for (std::uint64_t i = 1; i <= 5; ++i) store->append("s", 1, i, "m" + std::to_string(i));
  auto after4 = store->events_after("s", 1, 4);
  ASSERT_TRUE(after4);
  ASSERT_EQ(after4->size(), 1U);
  EXPECT_EQ(after4->front().seq, 5U);
  EXPECT_EQ(after4->front().data, "m5");
  const auto after2 = store->events_after("s", 1, 2);  // 3 is the oldest kept: nothing lost
  ASSERT_TRUE(after2);
  ASSERT_EQ(after2->size(), 3U);
  EXPECT_EQ(after2->front().data, "m3");
  EXPECT_TRUE(store->events_after("s", 1, 5)->empty());
  EXPECT_FALSE(store->events_after("s", 1, 1));  // 2 was evicted: replay would lose it
  EXPECT_FALSE(store->events_after("other", 1, 4));
  EXPECT_FALSE(store->events_after("s", 2, 0));
  store->erase_session("s");
  EXPECT_FALSE(store->events_after("s", 1, 4));
}

TEST_F(redis_event_store_test, a_stream_resumes_on_another_process) {
  const std::string prefix = unique_prefix();
  auto node_a = open(prefix);
  auto node_b = open(prefix);
  ASSERT_TRUE(node_a && node_b);
  const std::string binary = std::string("{\"x\":\"\0\r\n\"}", 11);
  node_a->append("sess", 7, 1, "first");
  node_a->append("sess", 7, 2, binary);
  node_a->append("sess", 8, 1, "other stream");
  // A's writes are in Redis once A has read them back (a read waits for the writer).
  ASSERT_TRUE(node_a->events_after("sess", 7, 0));
  const auto on_b = node_b->events_after("sess", 7, 1);
  ASSERT_TRUE(on_b);
  ASSERT_EQ(on_b->size(), 1U);
  EXPECT_EQ(on_b->front().seq, 2U);
  EXPECT_EQ(on_b->front().data, binary);
  node_b->erase_session("sess");
  ASSERT_FALSE(node_b->events_after("sess", 8, 0));
  EXPECT_FALSE(node_a->events_after("sess", 7, 0));
  auto r = raw();
  EXPECT_TRUE(r->command({"KEYS", prefix + "*"})->elements.empty());
}

TEST_F(redis_event_store_test, a_session_expires_after_its_ttl) {
  const std::string prefix = unique_prefix();
  auto store = open(prefix, {.session_ttl = 300ms});
  ASSERT_TRUE(store);
  store->append("s", 1, 1, "a");
  store->append("s", 2, 1, "b");
  ASSERT_TRUE(store->events_after("s", 1, 0));
  auto r = raw();
  for (const std::string& key : {prefix + "sse:s", prefix + "sse:s:1", prefix + "sse:s:2"}) {
    const auto pttl = r->command({"PTTL", key}).value().integer;
    EXPECT_GT(pttl, 0) << key;
    EXPECT_LE(pttl, 300) << key;
  }
  std::this_thread::sleep_for(400ms);
  EXPECT_FALSE(store->events_after("s", 1, 0));
  EXPECT_TRUE(r->command({"KEYS", prefix + "*"})->elements.empty());
}

TEST_F(redis_event_store_test, a_lost_event_makes_the_replay_refused) {
  const std::string prefix = unique_prefix();
  auto store = open(prefix);
  ASSERT_TRUE(store);
  store->append("s", 1, 1, "one");
  store->append("s", 1, 3, "three");  // 2 never arrived
  ASSERT_FALSE(store->events_after("s", 1, 0));
  ASSERT_FALSE(store->events_after("s", 1, 1));
  const auto after2 = store->events_after("s", 1, 2);
  ASSERT_TRUE(after2);
  EXPECT_EQ(after2->size(), 1U);
  // A full queue drops an event, and the stream says so on this process.
  auto tiny = open(prefix, {.max_queued_bytes = 10});
  ASSERT_TRUE(tiny);
  tiny->append("q", 1, 1, std::string(100, 'x'));
  EXPECT_FALSE(tiny->events_after("q", 1, 0));
}

TEST_F(redis_event_store_test, streams_appended_from_many_threads_replay_whole) {
  auto store = open(unique_prefix(), {.max_events_per_stream = 1000});
  ASSERT_TRUE(store);
  std::vector<std::thread> threads;
  for (std::uint64_t stream = 1; stream <= 4; ++stream) {
    threads.emplace_back([&, stream] {
      for (std::uint64_t i = 1; i <= 300; ++i) {
        store->append("s", stream, i, std::to_string(stream) + ":" + std::to_string(i));
      }
    });
  }
  for (auto& t : threads) t.join();
  for (std::uint64_t stream = 1; stream <= 4; ++stream) {
    const auto all = store->events_after("s", stream, 0);
    ASSERT_TRUE(all) << stream;
    ASSERT_EQ(all->size(), 300U);
    EXPECT_EQ(all->back().data, std::to_string(stream) + ":300");
  }
}

}  // namespace
