// The SQLite task store alone (include/mcp/task_store.hpp, make_sqlite_task_store): durability
// across reopening, two stores sharing one file (a change by one holds against the other's
// update of a task it created), refusing a file that is not its own, upgrading the earlier
// layouts (numbers never reused), an unopenable path; group commit (writes that queue during a
// commit share the next transaction, one failing write does not fail the others, a transaction that
// cannot start fails its writes; many writers at once share commits, and each write is visible to
// another connection when it returns), reads beside a waiting writer, a copy of the file and
// its WAL recovered by plain SQLite, and what a process killed with
// SIGKILL acknowledged (tests/unit/task_store_writer.cpp). The contract every store keeps:
// task_store_test.cpp.
#include <mcp/task_store.hpp>

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <latch>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "detail/sqlite_store_counts.hpp"
#include "support/subprocess.hpp"
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

// The store that created a task changes its status with one UPDATE that checks the status
// machine, the owner and the expiry itself: what another store did to the task first holds.
TEST(task_store_sqlite, a_change_by_another_store_holds_against_the_creators) {
  const temp_db db;
  auto a = open_store(db.path());
  auto b = open_store(db.path());
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(a->create(make_task("t1")));
  ASSERT_TRUE(a->create(make_task("t2")));
  ASSERT_TRUE(a->create(make_task("t4")));
  const auto cancelled =
      b->update("t1", "alice", {.status = task_status::cancelled, .status_message = "by b"})
          .value()
          .value();
  const auto late = a->update("t1", "alice",
                              {.status = task_status::completed,
                               .status_message = "by a",
                               .payload = result_payload("late")})
                        .value();
  ASSERT_TRUE(late.has_value());
  expect_same(*late, cancelled);
  // Another owner changes nothing, even of a task this store created.
  EXPECT_FALSE(a->update("t4", "bob", {.status = task_status::failed}).value());
  EXPECT_EQ(b->get("t4", "alice").value().value().status, task_status::working);
  // b asks for input; a's answer to it is the change from input_required, then a finishes.
  ASSERT_EQ(b->update("t2", "alice", {.status = task_status::input_required}).value()->status,
            task_status::input_required);
  EXPECT_EQ(a->update("t2", "alice", {.status = task_status::working}).value()->status,
            task_status::working);
  EXPECT_EQ(a->update("t2", "alice", {.status = task_status::working}).value()->status,
            task_status::working);  // refused (working to working), the task as it is
  const auto done =
      a->update("t2", "alice", {.status = task_status::completed, .payload = result_payload("42")})
          .value()
          .value();
  EXPECT_EQ(done.status, task_status::completed);
  expect_same(b->get("t2", "alice").value().value(), done);
  // Expired meanwhile: not changed, and gone.
  auto old = make_task("t3");
  old.created_at -= 10s;
  old.ttl = 1s;
  ASSERT_TRUE(a->create(old));
  EXPECT_FALSE(a->update("t3", "alice", {.status = task_status::completed}).value());
  EXPECT_FALSE(b->get("t3", "alice").value().has_value());
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

TEST(task_store_sqlite, a_file_of_a_later_layout_is_refused_saying_so) {
  const temp_db db;
  { ASSERT_TRUE(mcp::make_sqlite_task_store(db.path())); }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db.path().c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "PRAGMA user_version=99", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  const auto s = mcp::make_sqlite_task_store(db.path());
  EXPECT_NE(s.error().message.find("newer release's layout (99; this one reads 1 to 3)"),
            std::string::npos);
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

TEST(task_store_sqlite, an_unopenable_path_is_an_error) {
  const auto s = mcp::make_sqlite_task_store("/nonexistent-dir-for-mcp-tests/sub/tasks.db");
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.error().is(mcp::errc::internal_error));
  EXPECT_EQ(s.error().message.rfind("task store: ", 0), 0U) << s.error().message;
}

/// A connection of the test's own to a store's file (another process, as far as the store can
/// tell: SQLite's file locks are the same).
class raw_connection {
 public:
  explicit raw_connection(const std::string& path) {
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) ADD_FAILURE() << sqlite3_errmsg(db_);
  }
  raw_connection(const raw_connection&) = delete;
  raw_connection& operator=(const raw_connection&) = delete;
  ~raw_connection() { sqlite3_close(db_); }
  void exec(const char* sql) {
    ASSERT_EQ(sqlite3_exec(db_, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db_);
  }
  std::string text(const char* sql) {
    sqlite3_stmt* st = nullptr;
    std::string out;
    if (sqlite3_prepare_v2(db_, sql, -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
      out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return out;
  }

 private:
  sqlite3* db_ = nullptr;
};

/// A file of layout 1 or 2 (AUTOINCREMENT; 1 also without `input` and `rerun`) as the earlier
/// code made it, whose newest task was deleted: rebuilt in layout 3, its tasks and numbers kept,
/// and the deleted task's number not given again.
TEST(task_store_sqlite, a_file_of_an_earlier_layout_is_upgraded_and_keeps_its_tasks_and_numbers) {
  for (const int version : {1, 2}) {
    SCOPED_TRACE(version);
    const temp_db db;
    {
      raw_connection c(db.path());
      c.exec(("CREATE TABLE tasks (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL "
              "UNIQUE, owner TEXT NOT NULL, status TEXT NOT NULL, status_message TEXT NOT NULL, "
              "created_ms INTEGER NOT NULL, updated_ms INTEGER NOT NULL, ttl_ms INTEGER, "
              "poll_ms INTEGER, method TEXT NOT NULL, payload TEXT NOT NULL" +
              std::string(version == 2 ? ", input TEXT NOT NULL DEFAULT '{}', rerun TEXT NOT "
                                         "NULL DEFAULT '{}');"
                                         "CREATE INDEX tasks_expiry ON tasks (created_ms + ttl_ms) "
                                         "WHERE ttl_ms IS NOT NULL;"
                                       : ");") +
              "CREATE INDEX tasks_owner_seq ON tasks (owner, seq);"
              "INSERT INTO tasks (id, owner, status, status_message, created_ms, updated_ms, "
              "method, payload) VALUES ('old', 'alice', 'completed', '', 1000, 2000, 'tools/call', "
              "'{\"result\":{\"content\":[]}}'), ('gone', 'alice', 'working', '', 1000, 2000, "
              "'tools/call', '{}');"
              "DELETE FROM tasks WHERE id = 'gone';"
              "PRAGMA application_id=1296257108; PRAGMA user_version=" +
              std::to_string(version))
                 .c_str());
    }
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
    const auto first = store->list("alice", "", 1).value();  // "old", then from its number on
    ASSERT_EQ(first.tasks.size(), 1U);
    EXPECT_EQ(first.tasks[0].id, "old");
    const auto rest = store->list("alice", first.next_cursor, 10).value();
    ASSERT_EQ(rest.tasks.size(), 1U);
    EXPECT_EQ(rest.tasks[0].id, "new");
    raw_connection c(db.path());
    EXPECT_EQ(c.text("SELECT seq FROM tasks WHERE id = 'new'"), "3");  // not 2: "gone" had it
    EXPECT_EQ(c.text("PRAGMA user_version"), "3");
    EXPECT_EQ(c.text("SELECT count(*) FROM sqlite_sequence"), "0");
  }
}

TEST(task_store_sqlite, the_number_of_a_deleted_newest_task_is_not_given_again) {
  const temp_db db;
  auto store = open_store(db.path());
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->create(make_task("a")));
  auto brief = make_task("brief");
  brief.ttl = 1ms;
  ASSERT_TRUE(store->create(brief));
  std::this_thread::sleep_for(5ms);
  ASSERT_EQ(store->purge_expired(std::chrono::system_clock::now()).value(), 1U);
  ASSERT_TRUE(store->create(make_task("b")));
  raw_connection c(db.path());
  EXPECT_EQ(c.text("SELECT seq FROM tasks WHERE id = 'b'"), "3");
  const auto page = store->list("alice", "", 10).value();
  ASSERT_EQ(page.tasks.size(), 2U);
  EXPECT_EQ(page.tasks[0].id, "a");
  EXPECT_EQ(page.tasks[1].id, "b");
}

mcp::detail::sqlite_task_store_counts counts(mcp::task_store& s) {
  return mcp::detail::sqlite_task_store_counts_of(s).value();
}

/// Waits (up to 10 s) until `n` writes of `s` wait for their transaction.
bool await_waiting(mcp::task_store& s, std::uint64_t n) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (counts(s).waiting < n) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

TEST(task_store_sqlite, writes_that_queue_during_a_commit_share_the_next_transaction) {
  const temp_db db;
  auto store = open_store(db.path());
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->create(make_task("first")));
  const auto before = counts(*store);
  EXPECT_EQ(before.transactions, 1U);
  EXPECT_EQ(before.writes, 1U);
  // Another connection holds the file's write lock, so the writer's first transaction waits
  // for it while 32 callers queue; two by two they create the same id.
  raw_connection other(db.path());
  other.exec("BEGIN IMMEDIATE");
  constexpr int callers = 32;
  std::vector<std::string> errors(callers);
  std::vector<std::thread> pool;
  for (int i = 0; i < callers; ++i) {
    pool.emplace_back([&, i] {
      auto t = make_task("t" + std::to_string(i / 2));
      t.status_message = "by " + std::to_string(i);
      const auto r = store->create(t);
      if (!r) errors[static_cast<std::size_t>(i)] = r.error().message;
    });
  }
  ASSERT_TRUE(await_waiting(*store, callers));
  EXPECT_EQ(counts(*store).transactions, before.transactions);  // nothing committed yet
  EXPECT_FALSE(store->get("t0", "alice").value().has_value());  // reads go on meanwhile
  other.exec("COMMIT");
  for (auto& t : pool) t.join();
  const auto after = counts(*store);
  EXPECT_EQ(after.writes - before.writes, static_cast<std::uint64_t>(callers));
  EXPECT_EQ(after.waiting, 0U);
  // The batch the writer took before the others arrived, then all the others in one.
  EXPECT_GE(after.transactions - before.transactions, 1U);
  EXPECT_LE(after.transactions - before.transactions, 2U);
  // One of each pair won; the loser's error failed it alone.
  for (int pair = 0; pair < callers / 2; ++pair) {
    const auto& a = errors[static_cast<std::size_t>(2 * pair)];
    const auto& b = errors[static_cast<std::size_t>(2 * pair + 1)];
    EXPECT_TRUE(a.empty() != b.empty()) << a << " / " << b;
    EXPECT_NE((a + b).find("exists"), std::string::npos) << a << b;
    const auto t = store->get("t" + std::to_string(pair), "alice").value();
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->status_message, "by " + std::to_string(a.empty() ? 2 * pair : 2 * pair + 1));
  }
  // Updates batch the same way, and each caller gets its own task back.
  other.exec("BEGIN IMMEDIATE");
  std::vector<std::optional<task_record>> updated(callers / 2);
  pool.clear();
  for (int i = 0; i < callers / 2; ++i) {
    pool.emplace_back([&, i] {
      updated[static_cast<std::size_t>(i)] =
          store
              ->update(
                  "t" + std::to_string(i), "alice",
                  {.status = task_status::completed, .payload = result_payload(std::to_string(i))})
              .value();
    });
  }
  ASSERT_TRUE(await_waiting(*store, callers / 2));
  other.exec("COMMIT");
  for (auto& t : pool) t.join();
  EXPECT_LE(counts(*store).transactions - after.transactions, 2U);
  for (int i = 0; i < callers / 2; ++i) {
    const auto& u = updated[static_cast<std::size_t>(i)];
    ASSERT_TRUE(u.has_value());
    EXPECT_EQ(u->id, "t" + std::to_string(i));
    EXPECT_EQ(u->payload, result_payload(std::to_string(i)));
    expect_same(store->get(u->id, "alice").value().value(), *u);
  }
}

TEST(task_store_sqlite, a_transaction_that_cannot_start_fails_its_writes_and_stores_none) {
  const temp_db db;
  auto opened = mcp::make_sqlite_task_store({.path = db.path(), .busy_timeout = 50ms});
  ASSERT_TRUE(opened) << opened.error().message;
  auto store = *opened;
  ASSERT_TRUE(store->create(make_task("kept")));
  raw_connection other(db.path());
  other.exec("BEGIN IMMEDIATE");
  const auto r = store->create(make_task("refused"));
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(mcp::errc::internal_error));
  EXPECT_EQ(r.error().message.rfind("task store: ", 0), 0U) << r.error().message;
  const auto u = store->update("kept", "alice", {.status = task_status::completed});
  ASSERT_FALSE(u);
  EXPECT_TRUE(store->get("kept", "alice").value().has_value());  // reads still work
  other.exec("COMMIT");
  EXPECT_FALSE(store->get("refused", "alice").value().has_value());
  EXPECT_EQ(store->get("kept", "alice").value()->status, task_status::working);
  ASSERT_TRUE(store->create(make_task("refused")));  // the store goes on
  EXPECT_EQ(store->update("kept", "alice", {.status = task_status::completed}).value()->status,
            task_status::completed);
}

TEST(task_store_sqlite, a_path_that_cannot_hold_a_wal_journal_is_refused) {
  for (const char* path : {":memory:", ""}) {
    const auto s = mcp::make_sqlite_task_store(path);
    ASSERT_FALSE(s) << path;
    EXPECT_TRUE(s.error().is(mcp::errc::internal_error));
    EXPECT_NE(s.error().message.find("WAL"), std::string::npos) << s.error().message;
  }
}

TEST(task_store_sqlite, concurrent_writers_share_commits_and_each_write_is_there_when_it_returns) {
  const temp_db db;
  auto store = open_store(db.path());
  ASSERT_NE(store, nullptr);
  const auto before = counts(*store);
  constexpr int writers = 16;
  constexpr int rounds = 150;
  std::vector<std::string> errors(writers);
  std::vector<std::thread> pool;
  for (int w = 0; w < writers; ++w) {
    pool.emplace_back([&, w] {
      auto& error = errors[static_cast<std::size_t>(w)];
      // Another connection (as another process would) sees each write once its call returned.
      raw_connection other(db.path());
      for (int i = 0; i < rounds && error.empty(); ++i) {
        const std::string id = "w" + std::to_string(w) + "-" + std::to_string(i);
        const std::string where = " FROM tasks WHERE id = '" + id + "'";
        if (auto r = store->create(make_task(id)); !r) {
          error = r.error().message;
        } else if (other.text(("SELECT status" + where).c_str()) != "working") {
          error = id + ": not there after create returned";
        } else if (auto u = store->update(
                       id, "alice",
                       {.status = task_status::completed, .payload = result_payload(id)});
                   !u || !*u) {
          error = id + ": update failed";
        } else if (other.text(("SELECT status" + where).c_str()) != "completed" ||
                   other.text(("SELECT payload" + where).c_str()).find(id) == std::string::npos) {
          error = id + ": not completed after update returned";
        }
      }
    });
  }
  for (auto& t : pool) t.join();
  for (const auto& e : errors) EXPECT_EQ(e, "");
  const auto after = counts(*store);
  const std::uint64_t writes = after.writes - before.writes;
  EXPECT_EQ(writes, std::uint64_t{2 * writers * rounds});
  // 16 writers at once: a commit carries the writes that queued while the one before ran.
  EXPECT_LT(after.transactions - before.transactions, writes);
}

TEST(task_store_sqlite, the_wal_it_writes_is_recovered_by_plain_sqlite) {
  // Each WAL frame goes to the file in one write (detail/sqlite_wal_vfs.hpp). A copy of the
  // file and its WAL taken between writes is what a crash would leave: plain SQLite rebuilds
  // its index from the WAL (checking every frame's checksum) and finds every task.
  const temp_db db;
  const temp_db copy;
  auto store = open_store(db.path());
  ASSERT_NE(store, nullptr);
  for (int i = 0; i < 60; ++i) {
    const std::string id = "t" + std::to_string(i);
    ASSERT_TRUE(store->create(make_task(id)));
    if (i % 2 == 0) {
      ASSERT_TRUE(store->update(id, "alice", {.status = task_status::completed}).value());
    }
  }
  for (const char* suffix : {"", "-wal"}) {
    std::filesystem::copy_file(db.path() + suffix, copy.path() + suffix,
                               std::filesystem::copy_options::overwrite_existing);
  }
  ASSERT_GT(std::filesystem::file_size(copy.path() + "-wal"), 0U);
  raw_connection recovered(copy.path());
  EXPECT_EQ(recovered.text("PRAGMA integrity_check"), "ok");
  EXPECT_EQ(recovered.text("SELECT count(*) FROM tasks"), "60");
  EXPECT_EQ(recovered.text("SELECT count(*) FROM tasks WHERE status = 'completed'"), "30");
}

/// Runs two mcp_task_store_writer processes on one fresh file at `durability`, kills both with
/// SIGKILL once they have acknowledged a few thousand writes, and checks that everything they
/// acknowledged is there.
void kill_the_writers_and_check(const char* durability) {
  const temp_db db;
  std::vector<std::unique_ptr<mcp::test::subprocess>> children;
  for (const char* prefix : {"a", "b"}) {
    children.push_back(std::make_unique<mcp::test::subprocess>(
        std::vector<std::string>{MCP_TASK_STORE_WRITER, db.path(), durability, prefix}));
    ASSERT_TRUE(children.back()->started());
  }
  std::set<std::string> created, completed;
  const auto note = [&](const std::string& line) {
    if (line.rfind("created ", 0) == 0) created.insert(line.substr(8));
    if (line.rfind("completed ", 0) == 0) completed.insert(line.substr(10));
  };
  while (completed.size() < 2000) {
    for (auto& child : children) {
      const auto line = child->read_line(20s);
      ASSERT_TRUE(line.has_value()) << "a writer stopped: " << child->drain_stderr();
      note(*line);
    }
  }
  for (auto& child : children) ::kill(child->pid(), SIGKILL);
  for (auto& child : children) {
    ASSERT_EQ(child->wait(), 128 + SIGKILL);
    while (auto line = child->read_line(2s)) note(*line);  // what it said before it died
  }

  raw_connection raw(db.path());
  EXPECT_EQ(raw.text("PRAGMA integrity_check"), "ok");
  auto store = open_store(db.path());
  ASSERT_NE(store, nullptr);
  for (const auto& id : created) {
    const auto t = store->get(id, "alice").value();
    ASSERT_TRUE(t.has_value()) << "acknowledged, then lost: " << id;
    if (completed.count(id) != 0) {
      EXPECT_EQ(t->status, task_status::completed) << id;
      EXPECT_EQ(t->payload.at("result").at("content").at(0).at("text"), id.c_str());
    }
  }
  // Writes in flight at the kill are there or not, whole: a task is working or completed.
  const auto left = store->unfinished().value();
  for (const auto& t : left) EXPECT_EQ(completed.count(t.id), 0U) << t.id;
}

TEST(task_store_sqlite, what_killed_processes_acknowledged_is_in_the_file) {
  kill_the_writers_and_check("normal");
}

TEST(task_store_sqlite, what_killed_processes_acknowledged_is_in_the_file_at_full) {
  kill_the_writers_and_check("full");
}

TEST(task_store_sqlite, the_wal_is_checkpointed_beside_the_writes_and_stays_bounded) {
  const temp_db db;
  auto store = open_store(db.path());
  ASSERT_NE(store, nullptr);
  // About 5 pages a round trip: 8,000 round trips append some 40,000 pages (80 MB) to the WAL.
  std::vector<std::thread> pool;
  std::vector<std::string> errors(4);
  for (int w = 0; w < 4; ++w) {
    pool.emplace_back([&, w] {
      for (int i = 0; i < 2000; ++i) {
        const std::string id = "t" + std::to_string(w) + "-" + std::to_string(i);
        auto r = store->create(make_task(id));
        auto u = store->update(id, "alice", {.status = task_status::completed});
        if (!r || !u)
          errors[static_cast<std::size_t>(w)] = !r ? r.error().message : u.error().message;
      }
    });
  }
  for (auto& t : pool) t.join();
  for (const auto& e : errors) EXPECT_EQ(e, "");
  const auto c = counts(*store);
  EXPECT_GE(c.checkpoints, 4U);
  EXPECT_LE(c.transactions, 16000U);
  // Past 16 MB (8,000 pages of 2 KiB) a checkpoint starts the WAL over; it grows past that by
  // what is appended while a checkpoint runs only, far below what was written.
  EXPECT_LT(std::filesystem::file_size(db.path() + "-wal"), std::uintmax_t{64} << 20U);
  EXPECT_EQ(store->list("alice", "", 10000).value().tasks.size(), 8000U);
}

}  // namespace
