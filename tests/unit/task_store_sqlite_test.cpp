// The SQLite task store alone (include/mcp/task_store.hpp, make_sqlite_task_store): durability
// across reopening, two stores sharing one file, refusing a file that is not its own, upgrading
// the first layout, an unopenable path. The contract both stores keep: task_store_test.cpp.
#include <mcp/task_store.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <latch>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "unit/task_store_fixture.hpp"
#include <sqlite3.h>

namespace {

using namespace std::chrono_literals;
using mcp::task_record;
using mcp::task_status;
using mcp::task_update;
using mcp::test::expect_same;
using mcp::test::make_task;
using mcp::test::now_ms;
using mcp::test::result_payload;
using mcp::test::temp_db;

std::shared_ptr<mcp::task_store> open_store(const std::string& path) {
  auto s = mcp::make_sqlite_task_store(path);
  if (!s) ADD_FAILURE() << s.error().message;
  return s ? *s : nullptr;
}

TEST(task_store_sqlite, everything_survives_reopening_the_file) {
  const temp_db db;
  auto t1 = make_task("t1");
  t1.ttl = 1h;
  t1.poll_interval = 500ms;
  auto t2 = make_task("t2", "bob");
  t2.status = task_status::input_required;
  t2.status_message = "waiting";
  t2.input_request = mcp::json::object{{"method", "sampling/createMessage"},
                                       {"params", mcp::json::object{{"maxTokens", 5}}}};
  task_record done_before;
  {
    auto store = open_store(db.path());
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->create(t1));
    ASSERT_TRUE(store->create(t2));
    ASSERT_TRUE(store->create(make_task("t3")));
    done_before = store
                      ->update("t3", "alice",
                               {.status = task_status::completed,
                                .status_message = "ok",
                                .payload = result_payload("kept")})
                      .value()
                      .value();
  }
  auto store = open_store(db.path());
  ASSERT_NE(store, nullptr);
  expect_same(store->get("t1", "alice").value().value(), t1);
  expect_same(store->get("t2", "bob").value().value(), t2);
  expect_same(store->get("t3", "alice").value().value(), done_before);
  const auto page = store->list("alice", "", 10).value();
  ASSERT_EQ(page.tasks.size(), 2U);
  EXPECT_EQ(page.tasks[0].id, "t1");
  EXPECT_EQ(page.tasks[1].id, "t3");
  // Ids stay unique and sequence numbers keep growing across opens.
  EXPECT_TRUE(store->create(make_task("t1")).error().is(mcp::errc::invalid_params));
  ASSERT_TRUE(store->create(make_task("t4")));
  const auto first = store->list("alice", "", 1).value();
  const auto rest = store->list("alice", first.next_cursor, 10).value();
  ASSERT_EQ(rest.tasks.size(), 2U);
  EXPECT_EQ(rest.tasks[1].id, "t4");
  EXPECT_EQ(store->fail_unfinished("restarted").value(), 3U);
}

TEST(task_store_sqlite, two_stores_share_one_file) {
  const temp_db db;
  auto a = open_store(db.path());
  auto b = open_store(db.path());
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(a->create(make_task("t1")));
  EXPECT_TRUE(std::filesystem::exists(db.path() + "-wal"));  // WAL journal
  EXPECT_TRUE(b->create(make_task("t1")).error().is(mcp::errc::invalid_params));
  ASSERT_TRUE(b->get("t1", "alice").value().has_value());
  const auto by_b = b->update("t1", "alice", {.status = task_status::input_required}).value();
  ASSERT_TRUE(by_b.has_value());
  expect_same(a->get("t1", "alice").value().value(), *by_b);
  // A cursor issued by one store is good for the other: they are one database.
  ASSERT_TRUE(b->create(make_task("t2")));
  const auto page = a->list("alice", "", 1).value();
  ASSERT_FALSE(page.next_cursor.empty());
  const auto next = b->list("alice", page.next_cursor, 1).value();
  ASSERT_EQ(next.tasks.size(), 1U);
  EXPECT_EQ(next.tasks[0].id, "t2");

  // Threads on both stores race to finish the task: one update wins for both.
  std::latch start(8);
  std::vector<task_record> seen(8);
  std::vector<std::thread> pool;
  for (std::size_t i = 0; i < 8; ++i) {
    pool.emplace_back([&, i] {
      auto& store = i % 2 == 0 ? a : b;
      start.arrive_and_wait();
      seen[i] =
          store
              ->update("t1", "alice",
                       {.status = i % 3 == 0 ? task_status::cancelled : task_status::completed,
                        .status_message = "by " + std::to_string(i)})
              .value()
              .value();
    });
  }
  for (auto& t : pool) t.join();
  int winners = 0;
  for (std::size_t i = 0; i < 8; ++i) {
    if (seen[i].status_message == "by " + std::to_string(i)) ++winners;
    expect_same(seen[i], seen[0]);
  }
  EXPECT_EQ(winners, 1);
  expect_same(b->get("t1", "alice").value().value(), seen[0]);
}

TEST(task_store_sqlite, a_file_of_random_bytes_is_refused) {
  const temp_db db;
  {
    std::ofstream out(db.path(), std::ios::binary);
    std::mt19937 gen(12345);
    for (int i = 0; i < 4096; ++i) out.put(static_cast<char>(gen() & 0xFFU));
  }
  const auto s = mcp::make_sqlite_task_store(db.path());
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.error().is(mcp::errc::internal_error));
  EXPECT_EQ(s.error().message.rfind("task store: ", 0), 0U) << s.error().message;
  EXPECT_EQ(std::filesystem::file_size(db.path()), 4096U);  // left as it was
}

TEST(task_store_sqlite, another_applications_database_is_refused_and_left_alone) {
  const temp_db db;
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db.path().c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "CREATE TABLE notes (body TEXT)", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  const auto s = mcp::make_sqlite_task_store(db.path());
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.error().is(mcp::errc::internal_error));
  EXPECT_NE(s.error().message.find("not a task database"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(db.path() + "-wal"));
}

TEST(task_store_sqlite, a_file_of_the_first_layout_is_upgraded_and_keeps_its_tasks) {
  const temp_db db;
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db.path().c_str(), &raw), SQLITE_OK);
  const char* v1 =
      "CREATE TABLE tasks (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, "
      "owner TEXT NOT NULL, status TEXT NOT NULL, status_message TEXT NOT NULL, "
      "created_ms INTEGER NOT NULL, updated_ms INTEGER NOT NULL, ttl_ms INTEGER, poll_ms INTEGER, "
      "method TEXT NOT NULL, payload TEXT NOT NULL);"
      "CREATE INDEX tasks_owner_seq ON tasks (owner, seq);"
      "INSERT INTO tasks (id, owner, status, status_message, created_ms, updated_ms, method, "
      "payload) VALUES ('old', 'alice', 'completed', '', 1000, 2000, 'tools/call', "
      "'{\"result\":{\"content\":[]}}');"
      "PRAGMA application_id=1296257108; PRAGMA user_version=1;";
  ASSERT_EQ(sqlite3_exec(raw, v1, nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  auto store = open_store(db.path());
  ASSERT_NE(store, nullptr);
  const auto old = store->get("old", "alice").value().value();
  EXPECT_EQ(old.status, task_status::completed);
  EXPECT_TRUE(old.input_request.empty());
  auto t = make_task("new");
  t.status = task_status::input_required;
  t.input_request = mcp::json::object{{"method", "elicitation/create"}};
  ASSERT_TRUE(store->create(t));
  expect_same(store->get("new", "alice").value().value(), t);
}

TEST(task_store_sqlite, an_unopenable_path_is_an_error) {
  const auto s = mcp::make_sqlite_task_store("/nonexistent-dir-for-mcp-tests/sub/tasks.db");
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.error().is(mcp::errc::internal_error));
  EXPECT_EQ(s.error().message.rfind("task store: ", 0), 0U) << s.error().message;
}

}  // namespace
