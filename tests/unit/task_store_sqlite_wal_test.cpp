// The SQLite task store's file and WAL (detail/sqlite_wal_vfs.hpp, detail/sqlite_task_rows.hpp):
// a transaction's WAL frames go to the file in one write, a transaction larger than what is
// held in memory is still recovered whole by plain SQLite, and the page size of new files and
// of files made elsewhere. The rest of the store: task_store_sqlite_test.cpp.
#include <mcp/task_store.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "unit/task_store_fixture.hpp"
#include <sqlite3.h>

namespace {

using mcp::task_status;
using mcp::test::make_task;
using mcp::test::temp_db;

std::shared_ptr<mcp::task_store> open_store(const std::string& path) {
  auto s = mcp::make_sqlite_task_store(path);
  if (!s) ADD_FAILURE() << s.error().message;
  return s ? *s : nullptr;
}

/// The first row's first column of `sql` on a plain connection to `path`, as text.
std::string query(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  std::string out;
  if (sqlite3_open(path.c_str(), &db) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
      out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
  } else {
    ADD_FAILURE() << sqlite3_errmsg(db);
  }
  sqlite3_close(db);
  return out;
}

/// The write system calls this process made so far (Linux task I/O accounting), if known.
std::optional<long long> write_calls() {
  std::ifstream io("/proc/self/io");
  std::string key;
  long long value = 0;
  while (io >> key >> value) {
    if (key == "syscw:") return value;
  }
  return std::nullopt;
}

/// Copies the database and its WAL, as a crash would leave them, to `to`.
void copy_files(const std::string& from, const std::string& to) {
  for (const char* suffix : {"", "-wal"}) {
    std::filesystem::copy_file(from + suffix, to + suffix,
                               std::filesystem::copy_options::overwrite_existing);
  }
}

TEST(task_store_sqlite_wal, a_commit_goes_to_the_wal_in_one_write) {
  // Each creation alone is one commit of several pages (the table's leaf and three indexes'):
  // SQLite's default VFS writes each frame as two calls, this one the whole commit as one.
  const temp_db db;
  auto store = open_store(db.path());
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->create(make_task("warm")));
  const auto before = write_calls();
  if (!before) GTEST_SKIP() << "no /proc/self/io on this system";
  constexpr int creations = 40;
  for (int i = 0; i < creations; ++i) {
    ASSERT_TRUE(store->create(make_task("t" + std::to_string(i))));
  }
  const auto after = write_calls();
  ASSERT_TRUE(after.has_value());
  // One per commit, and a few more for anything else (a checkpoint needs 1,000 frames).
  EXPECT_GE(*after - *before, creations);
  EXPECT_LE(*after - *before, creations + 4);
  EXPECT_EQ(query(db.path(), "SELECT count(*) FROM tasks"), std::to_string(creations + 1));
}

TEST(task_store_sqlite_wal, a_transaction_larger_than_what_is_held_is_recovered_whole) {
  // Failing a thousand unfinished tasks rewrites every leaf of the table in one transaction,
  // past the 64 KiB of frames held in memory: those go to the file before the commit frame. A
  // copy taken after it is recovered by plain SQLite (which checks every frame's checksum).
  const temp_db db;
  const temp_db copy;
  auto store = open_store(db.path());
  ASSERT_NE(store, nullptr);
  constexpr int tasks = 1000;
  for (int i = 0; i < tasks; ++i) {
    auto t = make_task("t" + std::to_string(i));
    t.status_message = std::string(100, 'x');
    ASSERT_TRUE(store->create(t));
  }
  ASSERT_EQ(store->fail_unfinished("stopped").value(), static_cast<std::size_t>(tasks));
  ASSERT_TRUE(store->create(make_task("after")));
  copy_files(db.path(), copy.path());
  EXPECT_GT(std::filesystem::file_size(copy.path() + "-wal"), 64U * 1024);
  EXPECT_EQ(query(copy.path(), "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(query(copy.path(), "SELECT count(*) FROM tasks WHERE status = 'failed'"),
            std::to_string(tasks));
  EXPECT_EQ(query(copy.path(), "SELECT status FROM tasks WHERE id = 'after'"), "working");
}

TEST(task_store_sqlite_wal, a_new_file_has_2_kib_pages_and_a_file_of_other_pages_is_kept) {
  const temp_db fresh;
  {
    auto store = open_store(fresh.path());
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->create(make_task("a")));
  }
  EXPECT_EQ(query(fresh.path(), "PRAGMA page_size"), "2048");

  // An empty file SQLite made with 4 KiB pages (in WAL mode: its page size is fixed).
  const temp_db other;
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(other.path().c_str(), &raw), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(raw, "PRAGMA page_size=4096; PRAGMA journal_mode=WAL", nullptr, nullptr,
                           nullptr),
              SQLITE_OK);
    sqlite3_close(raw);
  }
  EXPECT_EQ(query(other.path(), "PRAGMA page_size"), "4096");
  {
    auto store = open_store(other.path());
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->create(make_task("a")));
    ASSERT_TRUE(store->update("a", "alice", {.status = task_status::completed}).value());
  }
  EXPECT_EQ(query(other.path(), "PRAGMA page_size"), "4096");
  auto reopened = open_store(other.path());
  ASSERT_NE(reopened, nullptr);
  const auto t = reopened->get("a", "alice").value();
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->status, task_status::completed);
}

}  // namespace
