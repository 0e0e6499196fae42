// The Redis task store (mcp/redis.hpp, make_redis_task_store): the contract every store keeps
// (unit/task_store_contract.hpp), then what only a shared store does: two stores on one Redis as
// two processes (a change through one seen and pushed to the other, compare-and-set across them),
// the ttl kept by Redis itself, key prefixes that keep services apart, a corrupt record.
#include <mcp/redis.hpp>
#include <mcp/server.hpp>
#include <mcp/transport/memory.hpp>

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "redis/redis_server.hpp"
#include "unit/task_store_contract.hpp"

namespace {

using namespace std::chrono_literals;
using mcp::task_status;
using mcp::test::make_task;
using mcp::test::redis_server;
using mcp::test::result_payload;
using mcp::test::unique_prefix;
using mcp::test::contract::store_maker;
using mcp::test::contract::task_store_contract;

/// One server for the tests of this process (each ctest test is a process of its own).
redis_server& shared_server() {
  static redis_server server;
  return server;
}

std::shared_ptr<mcp::task_store> redis_store(const std::string& prefix) {
  if (!shared_server().running()) {
    ADD_FAILURE() << "redis-server did not start";
    return nullptr;
  }
  auto s = mcp::make_redis_task_store({.url = shared_server().url(), .key_prefix = prefix});
  if (!s) ADD_FAILURE() << s.error().message;
  return s ? *s : nullptr;
}

INSTANTIATE_TEST_SUITE_P(redis, task_store_contract,
                         ::testing::Values(store_maker{
                             "redis", [](const auto&) { return redis_store(unique_prefix()); }}),
                         mcp::test::contract::maker_name);

std::shared_ptr<mcp::redis_client> raw_client() {
  auto c = mcp::make_redis_client({.url = shared_server().url(), .key_prefix = ""});
  if (!c) ADD_FAILURE() << c.error().message;
  return c ? *c : nullptr;
}

/// Collects the ids a watch reports.
struct watch_log {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> ids;
  std::thread::id thread;

  std::function<void(std::string_view)> callback() {
    return [this](std::string_view id) {
      const std::lock_guard lock(mu);
      ids.emplace_back(id);
      thread = std::this_thread::get_id();
      cv.notify_all();
    };
  }
  bool wait_for(std::size_t n, std::chrono::milliseconds timeout = 5s) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, timeout, [&] { return ids.size() >= n; });
  }
};

TEST(redis_task_store, a_change_through_one_store_wakes_a_watcher_of_another) {
  const std::string prefix = unique_prefix();
  auto a = redis_store(prefix);  // "process A" runs the task
  auto b = redis_store(prefix);  // "process B" waits for it
  ASSERT_TRUE(a && b);
  watch_log log;
  auto handle = b->watch(log.callback());
  ASSERT_NE(handle, nullptr);
  ASSERT_TRUE(a->create(make_task("t1")));
  EXPECT_FALSE(log.wait_for(1, 200ms)) << "creation is not a change of status";
  ASSERT_TRUE(a->update("t1", "alice",
                        {.status = task_status::completed, .payload = result_payload("done")}));
  ASSERT_TRUE(log.wait_for(1));
  {
    const std::lock_guard lock(log.mu);
    EXPECT_EQ(log.ids.front(), "t1");
    EXPECT_NE(log.thread, std::this_thread::get_id());
  }
  // B reads what A stored; an update that loses (terminal already) publishes nothing.
  const auto seen = b->get("t1", "alice").value();
  ASSERT_TRUE(seen.has_value());
  EXPECT_EQ(seen->status, task_status::completed);
  EXPECT_EQ(seen->payload, result_payload("done"));
  ASSERT_TRUE(a->update("t1", "alice", {.status = task_status::failed}));
  ASSERT_TRUE(a->create(make_task("t2", "bob")));
  ASSERT_TRUE(a->update("t2", "bob", {.status = task_status::input_required}));
  ASSERT_TRUE(log.wait_for(2));
  EXPECT_EQ(a->fail_unfinished("node A stopped").value(), 1U);
  ASSERT_TRUE(log.wait_for(3));
  {
    const std::lock_guard lock(log.mu);
    EXPECT_EQ(log.ids, (std::vector<std::string>{"t1", "t2", "t2"}));
  }
  // Dropping the handle stops the calls.
  handle.reset();
  ASSERT_TRUE(a->create(make_task("t3")));
  ASSERT_TRUE(a->update("t3", "alice", {.status = task_status::cancelled}));
  EXPECT_FALSE(log.wait_for(4, 300ms));
}

TEST(redis_task_store, stores_of_other_prefixes_share_nothing) {
  auto a = redis_store(unique_prefix());
  auto b = redis_store(unique_prefix());
  ASSERT_TRUE(a && b);
  watch_log log;
  auto handle = b->watch(log.callback());
  ASSERT_TRUE(a->create(make_task("same-id")));
  ASSERT_TRUE(b->create(make_task("same-id")));  // no clash across prefixes
  ASSERT_TRUE(a->update("same-id", "alice", {.status = task_status::completed}));
  EXPECT_EQ(b->get("same-id", "alice").value()->status, task_status::working);
  EXPECT_FALSE(log.wait_for(1, 300ms));
  EXPECT_EQ(b->unfinished().value().size(), 1U);
}

TEST(redis_task_store, racing_transitions_from_two_stores_have_one_winner) {
  const std::string prefix = unique_prefix();
  auto a = redis_store(prefix);
  auto b = redis_store(prefix);
  ASSERT_TRUE(a && b);
  for (int round = 0; round < 20; ++round) {
    const std::string id = "race" + std::to_string(round);
    ASSERT_TRUE(a->create(make_task(id)));
    std::latch start(2);
    mcp::task_record ra, rb;
    std::thread ta([&] {
      start.arrive_and_wait();
      ra = a->update(id, "alice", {.status = task_status::completed, .status_message = "A"})
               .value()
               .value();
    });
    std::thread tb([&] {
      start.arrive_and_wait();
      rb = b->update(id, "alice", {.status = task_status::cancelled, .status_message = "B"})
               .value()
               .value();
    });
    ta.join();
    tb.join();
    mcp::test::expect_same(ra, rb);  // both see the one stored first
    EXPECT_TRUE(ra.status_message == "A" || ra.status_message == "B");
  }
}

TEST(redis_task_store, redis_expires_a_task_at_its_ttl) {
  const std::string prefix = unique_prefix();
  auto store = redis_store(prefix);
  auto raw = raw_client();
  ASSERT_TRUE(store && raw);
  auto t = make_task("short");
  t.ttl = 300ms;
  ASSERT_TRUE(store->create(t));
  auto forever = make_task("forever");
  ASSERT_TRUE(store->create(forever));
  const auto pttl = raw->command({"PTTL", prefix + "task:short"}).value();
  EXPECT_GT(pttl.integer, 0);
  EXPECT_LE(pttl.integer, 300);
  EXPECT_EQ(raw->command({"PTTL", prefix + "task:forever"}).value().integer, -1);
  std::this_thread::sleep_for(400ms);
  EXPECT_EQ(raw->command({"EXISTS", prefix + "task:short"}).value().integer, 0);  // Redis's own
  EXPECT_FALSE(store->get("short", "alice").value().has_value());
  // Its index entries go with the next sweep.
  EXPECT_EQ(store->purge_expired(std::chrono::system_clock::now()).value(), 0U);
  EXPECT_EQ(raw->command({"ZCARD", prefix + "tasks:expiry"}).value().integer, 0);
  const auto page = store->list("alice", "", 10).value();
  ASSERT_EQ(page.tasks.size(), 1U);
  EXPECT_EQ(page.tasks[0].id, "forever");
}

TEST(redis_task_store, a_corrupt_record_is_an_error_not_a_crash) {
  const std::string prefix = unique_prefix();
  auto store = redis_store(prefix);
  auto raw = raw_client();
  ASSERT_TRUE(store && raw);
  ASSERT_TRUE(store->create(make_task("t1")));
  for (const auto& [field, value] : std::vector<std::pair<std::string, std::string>>{
           {"s", "sleeping"}, {"d", "{not json"}, {"c", "yesterday"}, {"d", "[1,2]"}}) {
    ASSERT_TRUE(raw->command({"HSET", prefix + "task:t1", field, value}));
    const auto r = store->get("t1", "alice");
    ASSERT_FALSE(r) << field;
    EXPECT_TRUE(r.error().is(mcp::errc::internal_error));
    EXPECT_NE(r.error().message.find("corrupt"), std::string::npos) << r.error().message;
    ASSERT_TRUE(raw->command({"DEL", prefix + "task:t1"}));
    ASSERT_TRUE(store->create(make_task("t1")));
  }
  // A key of the wrong type where a task should be: Redis's own error, as an error.
  ASSERT_TRUE(raw->command({"DEL", prefix + "task:t1"}));
  ASSERT_TRUE(raw->command({"SET", prefix + "task:t1", "x"}));
  const auto r = store->get("t1", "alice");
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(mcp::errc::internal_error));
  EXPECT_NE(r.error().message.find("WRONGTYPE"), std::string::npos) << r.error().message;
}

TEST(redis_task_store, ids_and_owners_are_binary_safe) {
  auto store = redis_store(unique_prefix());
  ASSERT_TRUE(store);
  const std::string id = std::string("a\0b\r\n:*$", 9);
  const std::string owner = std::string("o:1\0x", 5);
  auto t = make_task(id, owner);
  t.ttl = 1h;
  ASSERT_TRUE(store->create(t));
  mcp::test::expect_same(store->get(id, owner).value().value(), t);
  EXPECT_FALSE(store->get(id, "o:1").value().has_value());
  const auto page = store->list(owner, "", 10).value();
  ASSERT_EQ(page.tasks.size(), 1U);
  EXPECT_EQ(page.tasks[0].id, id);
  EXPECT_EQ(store->purge_expired(std::chrono::system_clock::now() + 2h).value(), 1U);
  EXPECT_FALSE(store->get(id, owner).value().has_value());
}

TEST(redis_task_store, a_store_needs_a_redis_that_answers) {
  auto bad_url = mcp::make_redis_task_store({.url = "http://127.0.0.1:6379"});
  ASSERT_FALSE(bad_url);
  EXPECT_TRUE(bad_url.error().is(mcp::errc::invalid_params));
  // Nothing listens on the port of a server that was stopped.
  redis_server gone;
  ASSERT_TRUE(gone.running());
  const std::string url = gone.url();
  gone.stop();
  auto s = mcp::make_redis_task_store({.url = url, .connect_timeout = 500ms});
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.error().is(mcp::errc::internal_error));
  EXPECT_NE(s.error().message.find("cannot connect"), std::string::npos) << s.error().message;
}

}  // namespace

TEST(redis_task_store, a_server_starting_on_it_leaves_the_unfinished_tasks_of_others_alone) {
  // Another process's task, working; this process's store is built on its own (not through a
  // shared_state): the store says it is shared, so the server's start fails nothing.
  const std::string prefix = unique_prefix();
  auto other = redis_store(prefix);
  auto mine = redis_store(prefix);
  ASSERT_TRUE(other && mine);
  EXPECT_TRUE(mine->shared_between_processes());
  EXPECT_FALSE(mcp::make_memory_task_store()->shared_between_processes());
  ASSERT_TRUE(other->create(make_task("elsewhere")));
  mcp::server server(mcp::server_options{.task_store = mine});
  auto [server_end, client_end] = mcp::make_memory_pair();
  auto session = server.open_session(server_end);  // the first session: the server recovers
  ASSERT_TRUE(session);
  auto t = other->get("elsewhere", "alice");
  ASSERT_TRUE(t && *t);
  EXPECT_EQ((*t)->status, task_status::working);
  session->close();
}
