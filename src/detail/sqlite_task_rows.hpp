// Internal: the SQLite task store's table (task_store_sqlite.cpp) — its layout, reading a task
// from a row, the `input` column, and a connection that only reads with its statements.
#pragma once

#include <mcp/json.hpp>
#include <mcp/task_store.hpp>

#include <boost/json/serialize.hpp>

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "detail/sqlite.hpp"
#include "detail/task_store_common.hpp"

namespace mcp::detail::sqlite {

/// `PRAGMA application_id` of a task database ("MCPT").
constexpr int application_id = 0x4d435054;
/// `PRAGMA user_version`: the layout of the tasks table. Version 1 had no `input` and `rerun`
/// columns; version 2 numbered tasks with AUTOINCREMENT, which writes its `sqlite_sequence` row
/// (a page of its own) in every transaction that creates a task. Version 3 numbers them with
/// the highest number in use or ever deleted plus one (`task_seq` and its trigger keep the
/// highest deleted one), so a number is still never reused. A file of version 1 or 2 is rebuilt
/// in version 3 when opened (`upgrade_sql`); the code that wrote versions 1 and 2 refuses a
/// version 3 file ("not a task database") rather than misread it; this code refuses a file of a
/// later layout, saying so.
constexpr int schema_version = 3;

constexpr std::string_view create_sql =
    "CREATE TABLE tasks (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, "
    "owner TEXT NOT NULL, status TEXT NOT NULL, status_message TEXT NOT NULL, "
    "created_ms INTEGER NOT NULL, updated_ms INTEGER NOT NULL, ttl_ms INTEGER, poll_ms INTEGER, "
    "method TEXT NOT NULL, payload TEXT NOT NULL, input TEXT NOT NULL DEFAULT '{}', "
    "rerun TEXT NOT NULL DEFAULT '{}');"
    "CREATE INDEX tasks_owner_seq ON tasks (owner, seq);"
    "CREATE TABLE task_seq (high INTEGER NOT NULL);"
    "INSERT INTO task_seq VALUES (0);"
    "CREATE TRIGGER tasks_seq_kept AFTER DELETE ON tasks "
    "WHEN old.seq > (SELECT high FROM task_seq) BEGIN UPDATE task_seq SET high = old.seq; END;";

/// Run after `create_sql` on a file of version 2 whose table was renamed `tasks_v2` and whose
/// indexes were dropped: its tasks, numbers kept, and the highest number AUTOINCREMENT gave.
constexpr std::string_view upgrade_sql =
    "INSERT INTO tasks (seq, id, owner, status, status_message, created_ms, updated_ms, ttl_ms, "
    "poll_ms, method, payload, input, rerun) SELECT seq, id, owner, status, status_message, "
    "created_ms, updated_ms, ttl_ms, poll_ms, method, payload, input, rerun FROM tasks_v2;"
    "UPDATE task_seq SET high = (SELECT coalesce(max(seq), 0) FROM sqlite_sequence "
    "WHERE name IN ('tasks', 'tasks_v2'));"
    "DELETE FROM sqlite_sequence WHERE name IN ('tasks', 'tasks_v2');"
    "DROP TABLE tasks_v2;";

/// Empty when database `db` is empty or carries the task store's application id and a layout
/// this code reads (the current one, or one it upgrades); else why not, for the error message.
inline std::string not_a_task_database(sqlite3* db) {
  if (query_int(db, "SELECT count(*) FROM sqlite_master") == 0) return {};
  const auto version = query_int(db, "PRAGMA user_version");
  if (query_int(db, "PRAGMA application_id") != application_id || version < 1) {
    return " is not a task database";
  }
  if (version <= schema_version) return {};
  return " is of a newer release's layout (" + std::to_string(version) + "; this one reads 1 to " +
         std::to_string(schema_version) + ")";
}

/// Rebuilds the tasks table of a file of layout `version` (1 or 2) in the current layout, inside
/// the caller's transaction (`user_version` is the caller's to set). Throws `failure`.
inline void upgrade(sqlite3* db, std::int64_t version) {
  if (version == 1) {
    exec(db, "ALTER TABLE tasks ADD COLUMN input TEXT NOT NULL DEFAULT '{}'");
    exec(db, "ALTER TABLE tasks ADD COLUMN rerun TEXT NOT NULL DEFAULT '{}'");
  }
  exec(db,
       "DROP INDEX IF EXISTS tasks_owner_seq; DROP INDEX IF EXISTS tasks_expiry;"
       "ALTER TABLE tasks RENAME TO tasks_v2");
  exec(db, std::string(create_sql).c_str());
  exec(db, std::string(upgrade_sql).c_str());
}

/// The page size of a new file (an existing one keeps its own; any size is read). Smaller
/// than SQLite's 4 KiB default: a commit appends a few pages to the WAL, each checksummed whole
/// (about 1.1 instructions a byte), and a task's row and index entries fill a fraction of one.
constexpr std::string_view page_size_sql = "PRAGMA page_size=2048";

/// The number of the next task: above every number in use or ever deleted.
constexpr std::string_view next_seq_sql =
    "(SELECT max(coalesce((SELECT max(seq) FROM tasks), 0), high) + 1 FROM task_seq)";

/// The sweep's index (`purge_expired` finds the expired tasks without reading the others). Not
/// part of the layout: created when missing by every version that opens the file, and kept up
/// by SQLite for any version that writes it.
constexpr std::string_view expiry_index_sql =
    "CREATE INDEX IF NOT EXISTS tasks_expiry ON tasks (created_ms + ttl_ms) "
    "WHERE ttl_ms IS NOT NULL";

/// What `read_head` and `read_body` read, in this order (`rerun` only for `unfinished`).
constexpr std::string_view task_columns =
    "SELECT seq, id, owner, status, status_message, created_ms, updated_ms, ttl_ms, poll_ms, "
    "method, payload, input FROM tasks ";
constexpr std::string_view task_columns_with_rerun =
    "SELECT seq, id, owner, status, status_message, created_ms, updated_ms, ttl_ms, poll_ms, "
    "method, payload, input, rerun FROM tasks ";
constexpr std::string_view select_sql = "WHERE id = ?1 AND owner = ?2";

/// The JSON object stored in column `col` of the current row (`what` names it in errors).
inline json::object read_object(const run& r, int col, const char* what) {
  auto v = parse_json(r.text_view(col), json_limits{std::numeric_limits<std::size_t>::max(), 1024});
  if (!v || !v->is_object())
    throw failure{std::string("task store: a stored task has a corrupt ") + what};
  return std::move(v->as_object());
}

/// `o` as stored in a JSON column.
inline std::string json_text(const json::object& o) {
  return o.empty() ? std::string("{}") : boost::json::serialize(o);
}

/// The `input` column of a task: its pending request and the answer, as one object.
inline std::string input_column(const json::object& request, const json::object& response) {
  if (request.empty() && response.empty()) return "{}";  // a task that never asked anything
  json::object o;
  if (!request.empty()) o["request"] = request;
  if (!response.empty()) o["response"] = response;
  return json_text(o);
}

/// The task in the current row without its JSON columns (payload, input, rerun), and its
/// sequence number.
inline std::pair<std::int64_t, task_record> read_head(const run& r) {
  task_record t;
  const auto status = task_status_from_string(r.text_view(3));
  if (!status) throw failure{"task store: a stored task has an unknown status"};
  t.id = r.text(1);
  t.owner = r.text(2);
  t.status = *status;
  t.status_message = r.text(4);
  t.created_at = detail::from_epoch_ms(r.integer(5));
  t.last_updated_at = detail::from_epoch_ms(r.integer(6));
  if (!r.is_null(7)) t.ttl = std::chrono::milliseconds(r.integer(7));
  if (!r.is_null(8)) t.poll_interval = std::chrono::milliseconds(r.integer(8));
  t.method = r.text(9);
  return {r.integer(0), std::move(t)};
}

/// Adds the JSON columns of the current row to `t` (`rerun` too with `task_columns_with_rerun`).
inline void read_body(const run& r, task_record& t, bool with_rerun = false) {
  t.payload = read_object(r, 10, "payload");
  if (r.text_view(11) == "{}") {  // never asked anything: nothing to parse
    if (with_rerun) t.rerun = read_object(r, 12, "rerun");
    return;
  }
  json::object input = read_object(r, 11, "input");
  const auto part = [&](const char* key) {
    auto* v = input.if_contains(key);
    return v != nullptr && v->is_object() ? std::move(v->get_object()) : json::object{};
  };
  t.input_request = part("request");
  t.input_response = part("response");
  if (with_rerun) t.rerun = read_object(r, 12, "rerun");
}

/// A connection that only reads, and its statements. Used by one thread at a time.
struct reader {
  reader(const std::string& path, std::chrono::milliseconds busy_timeout)
      : db(open_reading(path, busy_timeout)),
        select(db.get(), std::string(task_columns) + std::string(select_sql)),
        list(db.get(), std::string(task_columns) +
                           "WHERE owner = ?1 AND seq > ?2 AND "
                           "(ttl_ms IS NULL OR created_ms + ttl_ms > ?3) ORDER BY seq LIMIT ?4"),
        max_seq(db.get(), "SELECT " + std::string(next_seq_sql) + " - 1"),
        unfinished(db.get(), std::string(task_columns_with_rerun) +
                                 "WHERE status IN ('working', 'input_required') AND "
                                 "(ttl_ms IS NULL OR created_ms + ttl_ms > ?1) ORDER BY seq") {}

  static db_ptr open_reading(const std::string& path, std::chrono::milliseconds busy_timeout) {
    auto db = open(path, busy_timeout, SQLITE_OPEN_READWRITE);
    exec(db.get(), "PRAGMA query_only=1");
    return db;
  }

  db_ptr db;  // first: closed after the statements are finalized
  statement select, list, max_seq, unfinished;
};

}  // namespace mcp::detail::sqlite
