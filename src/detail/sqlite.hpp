// Internal: a thin layer over SQLite's C API for the SQLite task store — opening a connection,
// statements prepared once, one execution of a statement (bind, step, read, reset), and the
// storage failure every call turns into (an `errc::internal_error` at the store's edge).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "detail/sqlite_wal_vfs.hpp"
#include <sqlite3.h>

namespace mcp::detail::sqlite {

/// A storage failure inside the store; turned into an `errc::internal_error` at the API edge.
struct failure {
  std::string message;
  int code = SQLITE_ERROR;  ///< SQLite's primary result code
};

[[noreturn]] inline void fail(sqlite3* db) {
  throw failure{
      std::string("task store: ") + (db != nullptr ? sqlite3_errmsg(db) : "out of memory"),
      db != nullptr ? (sqlite3_errcode(db) & 0xff) : SQLITE_NOMEM};
}

struct db_closer {
  void operator()(sqlite3* db) const noexcept { sqlite3_close_v2(db); }
};
using db_ptr = std::unique_ptr<sqlite3, db_closer>;

/// SQLite's busy handler (`arg`: the timeout in milliseconds): sleeps 50 µs, then twice as long
/// each time up to 2 ms, and gives up once the sleeps add up to the timeout. SQLite's own
/// (`sqlite3_busy_timeout`) starts at 1 ms, too long for a lock held for a checkpoint's copy.
inline int wait_when_busy(void* arg, int count) {
  const std::int64_t timeout_us = reinterpret_cast<std::intptr_t>(arg) * 1000;
  constexpr int doublings = 6;  // 50 µs .. 1.6 ms, 3.15 ms in all; then 2 ms each time
  const std::int64_t slept =
      count < doublings ? 50 * ((std::int64_t{1} << count) - 1) : 3150 + 2000 * (count - doublings);
  if (slept >= timeout_us) return 0;
  const std::int64_t next = count < doublings ? 50 * (std::int64_t{1} << count) : 2000;
  std::this_thread::sleep_for(std::chrono::microseconds(next));
  return 1;
}

/// A connection to `path` opened with `flags` (SQLITE_OPEN_READWRITE, and SQLITE_OPEN_CREATE to
/// create a missing file) for one thread at a time (SQLITE_OPEN_NOMUTEX: the caller serializes
/// its use), waiting up to `busy_timeout` for another connection's lock. Through the store's
/// VFS (detail/sqlite_wal_vfs.hpp: a transaction's WAL frames in one write), without spilling
/// dirty pages to the WAL before the commit (`cache_spill`: what that VFS relies on; a
/// transaction's pages stay in memory until it ends).
inline db_ptr open(const std::string& path, std::chrono::milliseconds busy_timeout, int flags) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags | SQLITE_OPEN_NOMUTEX, wal_vfs_name());
  db_ptr db(raw);
  if (rc != SQLITE_OK) fail(raw);
  sqlite3_extended_result_codes(raw, 1);
  const auto ms = static_cast<std::intptr_t>(busy_timeout.count());
  sqlite3_busy_handler(raw, &wait_when_busy, reinterpret_cast<void*>(ms));
  if (sqlite3_exec(raw, "PRAGMA cache_spill=OFF", nullptr, nullptr, nullptr) != SQLITE_OK)
    fail(raw);
  return db;
}

/// Runs `sql` (any number of statements, rows ignored).
inline void exec(sqlite3* db, const char* sql) {
  if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) fail(db);
}

/// A statement prepared once and kept for the connection's lifetime (destroy it first).
class statement {
 public:
  statement(sqlite3* db, const std::string& sql) : db_(db) {
    if (sqlite3_prepare_v3(db, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr) !=
        SQLITE_OK) {
      fail(db);
    }
  }
  statement(const statement&) = delete;
  statement& operator=(const statement&) = delete;
  ~statement() { sqlite3_finalize(stmt_); }

  [[nodiscard]] sqlite3* db() const noexcept { return db_; }
  [[nodiscard]] sqlite3_stmt* get() const noexcept { return stmt_; }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

/// One execution of a statement: binds, steps and reads columns, and resets the statement and
/// clears its bindings when it goes (which also ends an autocommit read). Text is bound without
/// a copy, so everything bound must outlive the `run`.
class run {
 public:
  explicit run(statement& s) : db_(s.db()), stmt_(s.get()) {}
  run(const run&) = delete;
  run& operator=(const run&) = delete;
  ~run() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  run& text(int i, std::string_view v) {
    const char* data = v.data() != nullptr ? v.data() : "";
    check(sqlite3_bind_text64(stmt_, i, data, v.size(), nullptr, SQLITE_UTF8));
    return *this;
  }
  run& integer(int i, std::int64_t v) {
    check(sqlite3_bind_int64(stmt_, i, v));
    return *this;
  }
  run& null(int i) {
    check(sqlite3_bind_null(stmt_, i));
    return *this;
  }

  /// Steps once: true when a row is ready, false when the statement is done.
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    if ((rc & 0xFF) == SQLITE_CONSTRAINT) throw constraint{};
    fail(db_);
  }

  [[nodiscard]] std::int64_t integer(int col) const { return sqlite3_column_int64(stmt_, col); }
  [[nodiscard]] bool is_null(int col) const {
    return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
  }
  /// Column `col` as text, valid until the next step or the end of the run.
  [[nodiscard]] std::string_view text_view(int col) const {
    const unsigned char* p = sqlite3_column_text(stmt_, col);
    if (p == nullptr) return {};
    return {reinterpret_cast<const char*>(p),
            static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col))};
  }
  [[nodiscard]] std::string text(int col) const { return std::string(text_view(col)); }

  /// A constraint (the unique id) was violated.
  struct constraint {};

 private:
  void check(int rc) const {
    if (rc != SQLITE_OK) fail(db_);
  }

  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

/// The integer the one-row query `sql` answers (0 when it answers no row).
inline std::int64_t query_int(sqlite3* db, const char* sql) {
  statement s(db, sql);
  run r(s);
  if (!r.step()) return 0;
  return r.integer(0);
}

}  // namespace mcp::detail::sqlite
