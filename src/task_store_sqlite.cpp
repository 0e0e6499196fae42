// The SQLite task store: one table of tasks (the autoincrement `seq` is the creation order
// cursors name), WAL journal, one connection guarded by a mutex, prepared statements. Status
// changes run in BEGIN IMMEDIATE transactions, so two processes sharing the file cannot both
// move a task out of `working`.
#include <mcp/task_store.hpp>

#include <boost/json/serialize.hpp>

#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "detail/task_store_common.hpp"
#include <sqlite3.h>

namespace mcp {

namespace {

/// `PRAGMA application_id` of a task database ("MCPT").
constexpr int application_id = 0x4d435054;
/// `PRAGMA user_version`: the layout of the tasks table. Version 1 had no `input` and `rerun`
/// columns; a version 1 file is upgraded when it is opened.
constexpr int schema_version = 2;

constexpr std::string_view create_sql =
    "CREATE TABLE tasks (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, "
    "owner TEXT NOT NULL, status TEXT NOT NULL, status_message TEXT NOT NULL, "
    "created_ms INTEGER NOT NULL, updated_ms INTEGER NOT NULL, ttl_ms INTEGER, poll_ms INTEGER, "
    "method TEXT NOT NULL, payload TEXT NOT NULL, input TEXT NOT NULL DEFAULT '{}', "
    "rerun TEXT NOT NULL DEFAULT '{}');"
    "CREATE INDEX tasks_owner_seq ON tasks (owner, seq);";

/// What `read_task` reads, in this order (`rerun` only for `unfinished`).
constexpr std::string_view task_columns =
    "SELECT seq, id, owner, status, status_message, created_ms, updated_ms, ttl_ms, poll_ms, "
    "method, payload, input FROM tasks ";
constexpr std::string_view task_columns_with_rerun =
    "SELECT seq, id, owner, status, status_message, created_ms, updated_ms, ttl_ms, poll_ms, "
    "method, payload, input, rerun FROM tasks ";

/// A storage failure inside the store; turned into an `errc::internal_error` at the API edge.
struct failure {
  std::string message;
};

[[noreturn]] void fail(sqlite3* db) {
  throw failure{std::string("task store: ") +
                (db != nullptr ? sqlite3_errmsg(db) : "out of memory")};
}

struct db_closer {
  void operator()(sqlite3* db) const noexcept { sqlite3_close_v2(db); }
};

/// A statement prepared once and kept for the store's lifetime.
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
/// clears its bindings when it goes. Text is bound without a copy, so everything bound must
/// outlive the `run`.
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
  [[nodiscard]] std::string text(int col) const {
    const unsigned char* p = sqlite3_column_text(stmt_, col);
    if (p == nullptr) return {};
    return {reinterpret_cast<const char*>(p),
            static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col))};
  }

  /// A constraint (the unique id) was violated.
  struct constraint {};

 private:
  void check(int rc) const {
    if (rc != SQLITE_OK) fail(db_);
  }

  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

/// Runs `sql` (any number of statements, rows ignored).
void exec(sqlite3* db, const char* sql) {
  if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) fail(db);
}

/// The integer the one-row query `sql` answers.
std::int64_t query_int(sqlite3* db, const char* sql) {
  statement s(db, sql);
  run r(s);
  if (!r.step()) return 0;
  return r.integer(0);
}

/// The JSON object stored in column `col` of the current row (`what` names it in errors).
json::object read_object(const run& r, int col, const char* what) {
  auto v = parse_json(r.text(col), json_limits{std::numeric_limits<std::size_t>::max(), 1024});
  if (!v || !v->is_object())
    throw failure{std::string("task store: a stored task has a corrupt ") + what};
  return std::move(v->as_object());
}

/// The `input` column of a task: its pending request and the answer, as one object.
std::string input_column(const json::object& request, const json::object& response) {
  json::object o;
  if (!request.empty()) o["request"] = request;
  if (!response.empty()) o["response"] = response;
  return boost::json::serialize(o);
}

/// The task in the current row of a `task_columns` query (or of `task_columns_with_rerun`,
/// then with `rerun`), and its sequence number.
std::pair<std::uint64_t, task_record> read_task(const run& r, bool with_rerun = false) {
  task_record t;
  const auto status = task_status_from_string(r.text(3));
  if (!status) throw failure{"task store: a stored task has an unknown status"};
  json::object payload = read_object(r, 10, "payload");
  json::object input = read_object(r, 11, "input");
  const auto part = [&](const char* key) {
    const auto* v = input.if_contains(key);
    return v != nullptr && v->is_object() ? v->get_object() : json::object{};
  };
  t.input_request = part("request");
  if (with_rerun) t.rerun = read_object(r, 12, "rerun");
  t.input_response = part("response");
  t.id = r.text(1);
  t.owner = r.text(2);
  t.status = *status;
  t.status_message = r.text(4);
  t.created_at = detail::from_epoch_ms(r.integer(5));
  t.last_updated_at = detail::from_epoch_ms(r.integer(6));
  if (!r.is_null(7)) t.ttl = std::chrono::milliseconds(r.integer(7));
  if (!r.is_null(8)) t.poll_interval = std::chrono::milliseconds(r.integer(8));
  t.method = r.text(9);
  t.payload = std::move(payload);
  return {static_cast<std::uint64_t>(r.integer(0)), std::move(t)};
}

class sqlite_task_store final : public task_store {
 public:
  explicit sqlite_task_store(const std::string& path) {
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(
        path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
        nullptr);
    db_.reset(raw);
    if (rc != SQLITE_OK) fail(raw);
    sqlite3_extended_result_codes(raw, 1);
    sqlite3_busy_timeout(raw, 5000);
    // Look before changing anything: another application's database is left as it is.
    if (!is_task_database()) throw failure{"task store: " + path + " is not a task database"};
    exec(raw, "PRAGMA journal_mode=WAL");
    exec(raw, "PRAGMA synchronous=NORMAL");
    exec(raw, "BEGIN IMMEDIATE");
    try {
      if (query_int(raw, "SELECT count(*) FROM sqlite_master") == 0) {
        exec(raw, std::string(create_sql).c_str());
        exec(raw, ("PRAGMA application_id=" + std::to_string(application_id)).c_str());
        exec(raw, ("PRAGMA user_version=" + std::to_string(schema_version)).c_str());
      } else if (!is_task_database()) {
        throw failure{"task store: " + path + " is not a task database"};
      } else if (query_int(raw, "PRAGMA user_version") == 1) {
        exec(raw, "ALTER TABLE tasks ADD COLUMN input TEXT NOT NULL DEFAULT '{}'");
        exec(raw, "ALTER TABLE tasks ADD COLUMN rerun TEXT NOT NULL DEFAULT '{}'");
        exec(raw, ("PRAGMA user_version=" + std::to_string(schema_version)).c_str());
      }
      exec(raw, "COMMIT");
    } catch (...) {
      sqlite3_exec(raw, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
    prepare();
  }

  result<void> create(const task_record& task) override {
    return guarded([&]() -> result<void> {
      // Bound without a copy: these strings outlive `r`.
      const std::string payload = boost::json::serialize(task.payload);
      const std::string input = input_column(task.input_request, task.input_response);
      const std::string rerun = boost::json::serialize(task.rerun);
      run r(*insert_);
      r.text(1, task.id).text(2, task.owner).text(3, to_string(task.status));
      r.text(4, task.status_message);
      r.integer(5, detail::to_epoch_ms(task.created_at));
      r.integer(6, detail::to_epoch_ms(task.last_updated_at));
      if (task.ttl)
        r.integer(7, task.ttl->count());
      else
        r.null(7);
      if (task.poll_interval)
        r.integer(8, task.poll_interval->count());
      else
        r.null(8);
      r.text(9, task.method).text(10, payload);
      r.text(11, input).text(12, rerun);
      try {
        r.step();
      } catch (const run::constraint&) {
        return error{errc::invalid_params, "task store: a task with this id exists"};
      }
      return {};
    });
  }

  result<std::optional<task_record>> get(std::string_view id, std::string_view owner) override {
    return guarded([&]() -> result<std::optional<task_record>> {
      return find_live(id, owner, std::chrono::system_clock::now());
    });
  }

  result<std::optional<task_record>> update(std::string_view id, std::string_view owner,
                                            const task_update& u) override {
    return guarded([&]() -> result<std::optional<task_record>> {
      const auto now = std::chrono::system_clock::now();
      transaction txn(*this);
      auto found = find_live(id, owner, now);
      if (found && is_allowed_transition(found->status, u.status)) {
        const std::string payload = boost::json::serialize(u.payload);
        task_record& t = *found;
        t.status = u.status;
        t.status_message = u.status_message;
        t.payload = u.payload;
        t.input_request = u.input_request;
        t.input_response = u.input_response;
        t.last_updated_at = detail::floor_ms(now);
        const std::string input = input_column(t.input_request, t.input_response);
        run r(*update_);
        r.text(1, to_string(t.status)).text(2, t.status_message);
        r.integer(3, detail::to_epoch_ms(t.last_updated_at)).text(4, payload).text(5, t.id);
        r.text(6, input);
        r.step();
      }
      txn.commit();
      return found;
    });
  }

  result<task_page> list(std::string_view owner, std::string_view cursor,
                         std::size_t limit) override {
    return guarded([&]() -> result<task_page> {
      std::uint64_t after = 0;
      if (!cursor.empty()) {
        const auto seq = detail::decode_task_cursor(cursor);
        if (!seq) return detail::bad_task_cursor();
        run r(*max_seq_);
        if (!r.step() || *seq > static_cast<std::uint64_t>(r.integer(0))) {
          return detail::bad_task_cursor();
        }
        after = *seq;
      }
      if (limit == 0) limit = 1;
      const std::size_t cap = std::numeric_limits<std::int32_t>::max();
      if (limit > cap) limit = cap;
      const std::int64_t now = detail::to_epoch_ms(std::chrono::system_clock::now());
      // Expired tasks are filtered here and deleted by purge_expired (deleting them on every
      // page would cost a scan of the owner's tasks).
      task_page page;
      run r(*list_);
      r.text(1, owner).integer(2, static_cast<std::int64_t>(after)).integer(3, now);
      r.integer(4, static_cast<std::int64_t>(limit) + 1);
      std::uint64_t last = 0;
      while (r.step()) {
        if (page.tasks.size() == limit) {
          page.next_cursor = detail::encode_task_cursor(last);
          break;
        }
        auto [seq, t] = read_task(r);
        last = seq;
        page.tasks.push_back(std::move(t));
      }
      return page;
    });
  }

  result<std::size_t> purge_expired(std::chrono::system_clock::time_point now) override {
    return guarded([&]() -> result<std::size_t> {
      run r(*purge_);
      r.integer(1, detail::to_epoch_ms(now));
      r.step();
      return static_cast<std::size_t>(sqlite3_changes64(db_.get()));
    });
  }

  result<std::size_t> fail_unfinished(std::string_view message) override {
    return guarded([&]() -> result<std::size_t> {
      const std::string payload = boost::json::serialize(detail::unfinished_payload(message));
      run r(*fail_);
      r.text(1, message).integer(2, detail::to_epoch_ms(std::chrono::system_clock::now()));
      r.text(3, payload);
      r.step();
      return static_cast<std::size_t>(sqlite3_changes64(db_.get()));
    });
  }

  result<std::vector<task_record>> unfinished() override {
    return guarded([&]() -> result<std::vector<task_record>> {
      std::vector<task_record> out;
      run r(*unfinished_);
      r.integer(1, detail::to_epoch_ms(std::chrono::system_clock::now()));
      while (r.step()) out.push_back(read_task(r, true).second);
      return out;
    });
  }

 private:
  /// BEGIN IMMEDIATE ... COMMIT, rolled back unless committed.
  class transaction {
   public:
    explicit transaction(sqlite_task_store& s) : s_(s) {
      run r(*s_.begin_);
      r.step();
    }
    transaction(const transaction&) = delete;
    transaction& operator=(const transaction&) = delete;
    ~transaction() {
      if (open_) sqlite3_exec(s_.db_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
    }
    void commit() {
      run r(*s_.commit_);
      r.step();
      open_ = false;
    }

   private:
    sqlite_task_store& s_;
    bool open_ = true;
  };

  /// Runs `f` under the mutex; every failure becomes an `internal_error` result.
  template <class F>
  auto guarded(F&& f) noexcept -> decltype(f()) {
    try {
      const std::lock_guard lock(mu_);
      return f();
    } catch (const failure& e) {
      return error{errc::internal_error, e.message};
    } catch (const std::exception& e) {
      return error{errc::internal_error, std::string("task store: ") + e.what()};
    } catch (...) {
      return error{errc::internal_error, "task store: unexpected failure"};
    }
  }

  /// True when the database is empty or carries the task store's application id and a layout
  /// this code reads (the current one, or one it upgrades).
  bool is_task_database() {
    sqlite3* db = db_.get();
    if (query_int(db, "SELECT count(*) FROM sqlite_master") == 0) return true;
    const auto version = query_int(db, "PRAGMA user_version");
    return query_int(db, "PRAGMA application_id") == application_id &&
           (version == 1 || version == schema_version);
  }

  /// The unexpired task `id` of `owner`; an expired one is deleted. Call with `mu_` held.
  std::optional<task_record> find_live(std::string_view id, std::string_view owner,
                                       std::chrono::system_clock::time_point now) {
    std::uint64_t seq = 0;
    std::optional<task_record> found;
    {
      run r(*select_);
      r.text(1, id).text(2, owner);
      if (!r.step()) return std::nullopt;
      auto row = read_task(r);
      seq = row.first;
      found = std::move(row.second);
    }
    if (found->expired(now)) {
      run r(*delete_);
      r.integer(1, static_cast<std::int64_t>(seq));
      r.step();
      return std::nullopt;
    }
    return found;
  }

  void prepare() {
    sqlite3* db = db_.get();
    insert_ = std::make_unique<statement>(
        db,
        "INSERT INTO tasks (id, owner, status, status_message, created_ms, updated_ms, ttl_ms, "
        "poll_ms, method, payload, input, rerun) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
    select_ =
        std::make_unique<statement>(db, std::string(task_columns) + "WHERE id = ?1 AND owner = ?2");
    delete_ = std::make_unique<statement>(db, "DELETE FROM tasks WHERE seq = ?1");
    update_ = std::make_unique<statement>(
        db,
        "UPDATE tasks SET status = ?1, status_message = ?2, updated_ms = ?3, payload = ?4, "
        "input = ?6 WHERE id = ?5");
    list_ = std::make_unique<statement>(
        db, std::string(task_columns) +
                "WHERE owner = ?1 AND seq > ?2 AND (ttl_ms IS NULL OR created_ms + ttl_ms > ?3) "
                "ORDER BY seq LIMIT ?4");
    max_seq_ = std::make_unique<statement>(
        db, "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'tasks'), 0)");
    purge_ = std::make_unique<statement>(
        db, "DELETE FROM tasks WHERE ttl_ms IS NOT NULL AND created_ms + ttl_ms <= ?1");
    fail_ = std::make_unique<statement>(
        db,
        "UPDATE tasks SET status = 'failed', status_message = ?1, updated_ms = ?2, payload = ?3, "
        "input = '{}' WHERE status IN ('working', 'input_required')");
    unfinished_ = std::make_unique<statement>(
        db, std::string(task_columns_with_rerun) +
                "WHERE status IN ('working', 'input_required') AND "
                "(ttl_ms IS NULL OR created_ms + ttl_ms > ?1) ORDER BY seq");
    begin_ = std::make_unique<statement>(db, "BEGIN IMMEDIATE");
    commit_ = std::make_unique<statement>(db, "COMMIT");
  }

  std::unique_ptr<sqlite3, db_closer> db_;  // first: closed after the statements are finalized
  std::mutex mu_;
  std::unique_ptr<statement> insert_, select_, delete_, update_, list_, max_seq_, purge_, fail_,
      unfinished_, begin_, commit_;
};

}  // namespace

result<std::shared_ptr<task_store>> make_sqlite_task_store(const std::string& path) {
  try {
    return std::shared_ptr<task_store>(std::make_shared<sqlite_task_store>(path));
  } catch (const failure& e) {
    return error{errc::internal_error, e.message};
  } catch (const std::exception& e) {
    return error{errc::internal_error, std::string("task store: ") + e.what()};
  }
}

}  // namespace mcp
