// Redis failing under the client and the stores: killed mid-test (operations fail at once with an
// error, the pool reconnects when it is back, scripts are sent again, the subscriber subscribes
// again and says that it may have missed messages), paused (operations time out instead of
// hanging), and an event store whose Redis is gone (appends never block).
#include <mcp/redis.hpp>

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "redis/redis_server.hpp"
#include "unit/task_store_fixture.hpp"

namespace {

using namespace std::chrono_literals;
using mcp::task_status;
using mcp::test::make_task;
using mcp::test::redis_server;
using mcp::test::unique_prefix;
using steady = std::chrono::steady_clock;

/// Retries `f` until it succeeds or `timeout` passes; true when it did.
template <class F>
bool eventually(F&& f, std::chrono::milliseconds timeout = 10s) {
  const auto deadline = steady::now() + timeout;
  while (steady::now() < deadline) {
    if (f()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

TEST(redis_failure, a_killed_redis_fails_operations_and_the_pool_reconnects_when_it_is_back) {
  redis_server server;
  ASSERT_TRUE(server.running());
  const mcp::redis_options opts{.url = server.url(),
                                .connect_timeout = 500ms,
                                .command_timeout = 1000ms,
                                .pool_size = 2,
                                .key_prefix = unique_prefix()};
  auto client = mcp::make_redis_client(opts).value();
  auto store = mcp::make_redis_task_store(client).value();
  ASSERT_TRUE(store->create(make_task("before")));
  ASSERT_TRUE(client->command({"SET", "k", "v"}));

  server.kill();
  for (int i = 0; i < 5; ++i) {
    const auto start = steady::now();
    const auto r = store->get("before", "alice");
    const auto took = steady::now() - start;
    ASSERT_FALSE(r);
    EXPECT_TRUE(r.error().is(mcp::errc::internal_error)) << r.error().message;
    EXPECT_LT(took, 1500ms) << "an error, not a hang";
    const auto c = client->command({"GET", "k"});
    ASSERT_FALSE(c);
    EXPECT_TRUE(c.error().is(mcp::errc::connection_closed)) << c.error().message;
  }

  ASSERT_TRUE(server.restart());
  // A fresh Redis (nothing persisted, no scripts cached): the pool reconnects, EVAL loads the
  // scripts again, and the store works.
  ASSERT_TRUE(eventually([&] { return client->command({"PING"}).has_value(); }));
  EXPECT_TRUE(client->command({"GET", "k"})->is_nil());
  EXPECT_FALSE(store->get("before", "alice").value().has_value());
  ASSERT_TRUE(store->create(make_task("after")));
  EXPECT_EQ(store->update("after", "alice", {.status = task_status::completed}).value()->status,
            task_status::completed);
}

TEST(redis_failure, a_paused_redis_times_out_instead_of_hanging) {
  redis_server server;
  ASSERT_TRUE(server.running());
  auto client = mcp::make_redis_client({.url = server.url(), .command_timeout = 300ms}).value();
  ASSERT_TRUE(client->command({"PING"}));
  server.pause(true);
  const auto start = steady::now();
  const auto r = client->command({"PING"});
  const auto took = steady::now() - start;
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(mcp::errc::request_timeout)) << r.error().message;
  EXPECT_GE(took, 250ms);
  EXPECT_LT(took, 1500ms);
  server.pause(false);
  // The connection that timed out was closed (its answer may still come); a new one works.
  ASSERT_TRUE(eventually([&] { return client->command({"PING"}).has_value(); }));
}

TEST(redis_failure, a_watch_hears_of_the_gap_and_goes_on_after_a_restart) {
  redis_server server;
  ASSERT_TRUE(server.running());
  const mcp::redis_options opts{.url = server.url(), .key_prefix = unique_prefix()};
  auto a = mcp::make_redis_task_store(opts).value();
  auto b = mcp::make_redis_task_store(opts).value();
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> ids;
  auto handle = b->watch([&](std::string_view id) {
    const std::lock_guard lock(mu);
    ids.emplace_back(id);
    cv.notify_all();
  });
  const auto wait_for = [&](std::size_t n) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, 10s, [&] { return ids.size() >= n; });
  };
  ASSERT_TRUE(a->create(make_task("t1")));
  ASSERT_TRUE(a->update("t1", "alice", {.status = task_status::input_required}));
  ASSERT_TRUE(wait_for(1));
  server.kill();
  ASSERT_TRUE(server.restart());
  ASSERT_TRUE(wait_for(2));  // subscribed again: "" means "re-read what you wait for"
  {
    const std::lock_guard lock(mu);
    EXPECT_EQ(ids[1], "");
  }
  ASSERT_TRUE(eventually([&] { return a->create(make_task("t2")).has_value(); }));
  ASSERT_TRUE(a->update("t2", "alice", {.status = task_status::failed}));
  ASSERT_TRUE(wait_for(3));
  const std::lock_guard lock(mu);
  EXPECT_EQ(ids[2], "t2");
}

TEST(redis_failure, an_event_store_without_redis_never_blocks_an_append) {
  redis_server server;
  ASSERT_TRUE(server.running());
  auto store = mcp::make_redis_event_store({.url = server.url(),
                                            .connect_timeout = 300ms,
                                            .command_timeout = 300ms,
                                            .key_prefix = unique_prefix()})
                   .value();
  store->append("s", 1, 1, "kept");
  ASSERT_TRUE(store->events_after("s", 1, 0));
  server.kill();
  const auto start = steady::now();
  for (std::uint64_t i = 2; i < 1000; ++i) store->append("s", 1, i, "lost");
  EXPECT_LT(steady::now() - start, 200ms);
  EXPECT_FALSE(store->events_after("s", 1, 0));
  ASSERT_TRUE(server.restart());
  // Redis came back empty: the stream is unknown there; a new stream works.
  std::uint64_t stream = 0;  // a stream whose event was lost stays refused: a new one each try
  ASSERT_TRUE(eventually([&] {
    store->append("fresh", ++stream, 1, "x");
    return store->events_after("fresh", stream, 0).has_value();
  }));
  EXPECT_FALSE(store->events_after("s", 1, 0));
}

}  // namespace
