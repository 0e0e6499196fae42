// The SQLite task store.
//
// Layout: one table of tasks (`seq`, never reused, is the creation order cursors name) in a
// WAL-journalled file, versioned by `user_version` (detail/sqlite_task_rows.hpp), with an index
// on the expiry so that the sweep of expired tasks reads only them.
//
// Writes (create, update, purge_expired, fail_unfinished, and deleting an expired task a get
// came across) are committed in groups (detail/group_commit.hpp) on the one writing
// connection: every write that arrived while the previous transaction committed goes into the
// next one, a single BEGIN IMMEDIATE ... COMMIT, so N callers at once pay for one commit (one
// append to the WAL of the pages they share — the table's last leaf, the indexes' leaves — and,
// at `power_loss`, one fdatasync) instead of N. A write of one statement (all but an update that
// reads the row first) alone in its batch runs without the BEGIN and COMMIT around it: SQLite
// makes the statement its own transaction, taking the same locks in the same order. The
// transaction runs on the thread of one of its callers: a write that finds no
// transaction running runs at once, with no hand-off to another thread and back (measured:
// bench/RESULTS.md, "SQLite task store: group commit"). Each caller returns once its transaction
// has committed, so an acknowledged write is durable to the promised level; the caller serializes
// its JSON before it queues, so the transaction only binds and steps. A write that fails on its own
// (a duplicate id, a corrupt stored row) fails alone and the rest of its transaction commits; when
// the transaction fails (BEGIN did not get the file's write lock within the busy timeout, the disk
// is full, COMMIT failed) every write in it fails with that error and none is stored. A status
// change of a task this process created (detail/sqlite_task_heads.hpp) is one UPDATE whose WHERE
// checks the owner, the status machine and the expiry; any other, or one that UPDATE did not apply,
// reads, checks and writes inside one transaction, BEGIN IMMEDIATE taking the file's write lock
// before the read. Either way two processes sharing the file cannot both move one task out of
// `working`.
//
// The connections open the file through the store's VFS (detail/sqlite_wal_vfs.hpp): SQLite's
// default one, except that a transaction's WAL frames go to the file in one write, so a commit
// of n pages costs one `pwrite` call instead of 2n. Everything a commit wrote is in the
// operating system's hands before SQLite publishes it, as with the default VFS.
//
// Reads see every committed write, of this process or another, and nothing uncommitted: in WAL
// mode a commit becomes visible to other connections once its frames are in the WAL (at FULL,
// after the flush), so a read never returns what a crash at the promised level could take
// back, and a caller's own write, committed before it returned, is seen by its next read. A get
// runs on the writing connection when no transaction is running (its page cache holds what it
// wrote last), else, like list and unfinished, on a connection of a pool that only reads (one
// per thread reading at that moment, kept for reuse): reads never wait for a commit.
//
// Durability (`sqlite_durability`, include/mcp/task_store.hpp): `process_crash` is
// synchronous=NORMAL — a commit is written to the WAL (the operating system's cache) but not
// flushed, which a crash of the process cannot undo; the WAL is flushed at each checkpoint, so
// a power loss loses at most the commits since the last one, newest first. `power_loss` is
// synchronous=FULL — every commit flushes the WAL before it returns. Checkpoints run on a
// thread of their own (detail/sqlite_checkpointer.hpp), never inside a commit.
#include <mcp/task_store.hpp>

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "detail/group_commit.hpp"
#include "detail/sqlite.hpp"
#include "detail/sqlite_checkpointer.hpp"
#include "detail/sqlite_store_counts.hpp"
#include "detail/sqlite_task_heads.hpp"
#include "detail/sqlite_task_rows.hpp"
#include "detail/task_store_common.hpp"

namespace mcp {

namespace {

namespace sq = detail::sqlite;
using namespace detail::sqlite;  // the table: sqlite_task_rows.hpp

/// The error the exception being handled stands for (call inside a catch block).
error current_error() noexcept {
  try {
    throw;
  } catch (const failure& e) {
    return error{errc::internal_error, e.message};
  } catch (const std::exception& e) {
    return error{errc::internal_error, std::string("task store: ") + e.what()};
  } catch (...) {
    return error{errc::internal_error, "task store: unexpected failure"};
  }
}

/// Runs `f`; every failure becomes an `internal_error` result.
template <class F>
auto guarded(F&& f) noexcept -> decltype(f()) {
  try {
    return f();
  } catch (...) {
    return current_error();
  }
}

/// One write for a group commit: `apply` runs inside its batch's transaction (and may
/// throw); `failed` is set when it or its transaction failed. A write of `one_statement` alone
/// in its batch runs as that statement alone (run_batch).
struct write_op {
  template <class F>
  write_op(F& f, bool one)
      : ctx(&f), apply([](void* p) { (*static_cast<F*>(p))(); }), one_statement(one) {}

  void* ctx;
  void (*apply)(void*);
  bool one_statement;
  std::optional<error> failed{};
};

class sqlite_task_store final : public task_store {
 public:
  explicit sqlite_task_store(const sqlite_task_store_options& o)
      : path_(o.path),
        busy_timeout_(o.busy_timeout),
        db_(sq::open(o.path, o.busy_timeout, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) {
    // Processes opening a new file at once race to put it in WAL mode, and SQLite answers some
    // of those races with SQLITE_BUSY at once rather than through the busy handler.
    const auto give_up = std::chrono::steady_clock::now() + o.busy_timeout;
    for (auto pause = std::chrono::milliseconds(1);;
         pause = std::min(pause * 2, std::chrono::milliseconds(50))) {
      try {
        init_file(o.durability);
        break;
      } catch (const failure& f) {
        if (f.code != SQLITE_BUSY || std::chrono::steady_clock::now() + pause > give_up) throw;
        std::this_thread::sleep_for(pause);
      }
    }
    sqlite3* db = db_.get();
    insert_.emplace(
        db,
        "INSERT INTO tasks (seq, id, owner, status, status_message, created_ms, updated_ms, "
        "ttl_ms, poll_ms, method, payload, input, rerun) VALUES (" +
            std::string(next_seq_sql) + ", ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
    select_.emplace(db, std::string(task_columns) + std::string(select_sql));
    delete_.emplace(db, "DELETE FROM tasks WHERE seq = ?1");
    // A task that ends never runs again: its rerun record goes (only `unfinished` reads it).
    const std::string set =
        "UPDATE tasks SET status = ?1, status_message = ?2, updated_ms = ?3, payload = ?4, "
        "input = ?6, rerun = CASE WHEN ?1 IN ('working', 'input_required') THEN rerun ELSE '{}' "
        "END ";
    update_.emplace(db, set + "WHERE seq = ?5");
    // A status change without a read of the row: the owner, the status machine (?8, ?9: the
    // statuses the new one may follow) and the expiry checked by the UPDATE itself.
    change_.emplace(db, set +
                            "WHERE id = ?5 AND owner = ?7 AND status IN (?8, ?9) AND "
                            "(ttl_ms IS NULL OR created_ms + ttl_ms > ?10)");
    // By the expiry index (expiry_index_sql).
    purge_.emplace(db, "DELETE FROM tasks WHERE ttl_ms IS NOT NULL AND created_ms + ttl_ms <= ?1");
    fail_.emplace(db,
                  "UPDATE tasks SET status = 'failed', status_message = ?1, updated_ms = ?2, "
                  "payload = ?3, input = '{}', rerun = '{}' "
                  "WHERE status IN ('working', 'input_required')");
    begin_.emplace(db, "BEGIN IMMEDIATE");
    commit_.emplace(db, "COMMIT");
    // Every 4 MiB of WAL (1,024 pages of 4 KiB, near SQLite's own 1,000), RESTART past 16 MiB.
    const auto pages = static_cast<int>(
        (4 << 20) / std::max<std::int64_t>(512, sq::query_int(db, "PRAGMA page_size")));
    checkpointer_.emplace(path_, busy_timeout_, pages, 4 * pages);
    checkpointer_->watch(db);
    writer_.emplace([this](std::span<write_op* const> ops) { run_batch(ops); });
  }
  sqlite_task_store(const sqlite_task_store&) = delete;
  sqlite_task_store& operator=(const sqlite_task_store&) = delete;

  result<void> create(const task_record& task) override {
    return guarded([&]() -> result<void> {
      // Bound without a copy: these outlive the write.
      const std::string payload = json_text(task.payload);
      const std::string input = input_column(task.input_request, task.input_response);
      const std::string rerun = json_text(task.rerun);
      bool duplicate = false;
      auto written = write_one([&] {
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
          duplicate = true;
        }
      });
      if (!written) return written.error();
      if (duplicate) return error{errc::invalid_params, "task store: a task with this id exists"};
      if (!is_terminal(task.status)) heads_.add(task);
      return {};
    });
  }

  result<std::optional<task_record>> get(std::string_view id, std::string_view owner) override {
    return guarded([&]() -> result<std::optional<task_record>> {
      const auto now = std::chrono::system_clock::now();
      std::int64_t expired_seq = 0;
      const auto find = [&](statement& select) -> std::optional<task_record> {
        run r(select);
        r.text(1, id).text(2, owner);
        if (!r.step()) return std::nullopt;
        auto [seq, t] = read_head(r);
        if (t.expired(now)) {
          expired_seq = seq;
          return std::nullopt;
        }
        read_body(r, t);
        return std::move(t);
      };
      // On the writing connection when it is idle (its cache holds what it wrote), else on a
      // reader.
      std::optional<task_record> found;
      if (!writer_->try_alone([&] { found = find(*select_); })) {
        found = read([&](reader& rd) { return find(rd.select); });
      }
      if (expired_seq != 0) {  // deleted on the way (a sequence number is never reused)
        auto deleted = write_one([&] {
          run r(*delete_);
          r.integer(1, expired_seq);
          r.step();
        });
        if (!deleted) return deleted.error();
      }
      return found;
    });
  }

  result<std::optional<task_record>> update(std::string_view id, std::string_view owner,
                                            const task_update& u) override {
    return guarded([&]() -> result<std::optional<task_record>> {
      const auto now = std::chrono::system_clock::now();
      const auto at = detail::floor_ms(now);
      const std::string payload = json_text(u.payload);
      const std::string input = input_column(u.input_request, u.input_response);
      const auto bind = [&](run& r) {
        r.text(1, to_string(u.status)).text(2, u.status_message);
        r.integer(3, detail::to_epoch_ms(at)).text(4, payload).text(6, input);
      };
      std::optional<task_record> found;
      bool applied = false;
      // A task this process created and has not seen end: one statement, no read (the usual
      // end of a task). Not applied (refused, expired, gone): the path below, which reads.
      result<void> written;
      if (const auto head = heads_.find(id)) {
        written = write_one([&] {
          run r(*change_);
          bind(r);
          r.text(5, id).text(7, owner).integer(10, detail::to_epoch_ms(now));
          const bool terminal = is_terminal(u.status);
          const bool asked = u.status == task_status::input_required;
          r.text(8,
                 to_string(terminal || asked ? task_status::working : task_status::input_required));
          r.text(9, to_string(task_status::input_required));
          r.step();
          applied = sqlite3_changes64(db_.get()) == 1;
        });
        if (written && applied) {
          task_record& t = found.emplace();
          t.id = id;
          t.owner = owner;
          t.created_at = head->created_at;
          t.ttl = head->ttl;
          t.poll_interval = head->poll_interval;
          t.method = head->method;
        }
      }
      if (written && !applied) {
        written = write([&] {
          std::int64_t seq = 0;
          {
            run r(*select_);
            r.text(1, id).text(2, owner);
            if (!r.step()) return;
            auto row = read_head(r);
            seq = row.first;
            found = std::move(row.second);
            // An applied update replaces the JSON columns: read them only when it is refused.
            if (!found->expired(now) && !is_allowed_transition(found->status, u.status))
              read_body(r, *found);
          }
          if (found->expired(now)) {
            run r(*delete_);
            r.integer(1, seq);
            r.step();
            found.reset();
          } else if (is_allowed_transition(found->status, u.status)) {
            run r(*update_);
            bind(r);
            r.integer(5, seq);
            r.step();
            applied = true;
          }
        });
      }
      if (!written) {
        heads_.drop(id);  // its next change reads the row
        return written.error();
      }
      if (applied) {
        task_record& t = *found;
        t.status = u.status;
        t.status_message = u.status_message;
        t.last_updated_at = at;
        t.payload = u.payload;
        t.input_request = u.input_request;
        t.input_response = u.input_response;
      }
      if (!found || is_terminal(found->status)) heads_.drop(id);
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
        const bool issued = read([&](reader& rd) {
          run r(rd.max_seq);
          return r.step() && *seq <= static_cast<std::uint64_t>(r.integer(0));
        });
        if (!issued) return detail::bad_task_cursor();
        after = *seq;
      }
      if (limit == 0) limit = 1;
      const std::size_t cap = std::numeric_limits<std::int32_t>::max();
      if (limit > cap) limit = cap;
      const std::int64_t now = detail::to_epoch_ms(std::chrono::system_clock::now());
      // Expired tasks are filtered here and deleted by purge_expired (deleting them on every
      // page would cost a scan of the owner's tasks).
      return read([&](reader& rd) {
        task_page page;
        run r(rd.list);
        r.text(1, owner).integer(2, static_cast<std::int64_t>(after)).integer(3, now);
        r.integer(4, static_cast<std::int64_t>(limit) + 1);
        std::int64_t last = 0;
        while (r.step()) {
          if (page.tasks.size() == limit) {
            page.next_cursor = detail::encode_task_cursor(static_cast<std::uint64_t>(last));
            break;
          }
          auto [seq, t] = read_head(r);
          read_body(r, t);
          last = seq;
          page.tasks.push_back(std::move(t));
        }
        return page;
      });
    });
  }

  result<std::size_t> purge_expired(std::chrono::system_clock::time_point now) override {
    return guarded([&]() -> result<std::size_t> {
      std::size_t n = 0;
      auto written = write_one([&] {
        run r(*purge_);
        r.integer(1, detail::to_epoch_ms(now));
        r.step();
        n = static_cast<std::size_t>(sqlite3_changes64(db_.get()));
      });
      if (!written) return written.error();
      return n;
    });
  }

  result<std::size_t> fail_unfinished(std::string_view message) override {
    return guarded([&]() -> result<std::size_t> {
      const std::string payload = boost::json::serialize(detail::unfinished_payload(message));
      const std::int64_t now = detail::to_epoch_ms(std::chrono::system_clock::now());
      std::size_t n = 0;
      auto written = write_one([&] {
        run r(*fail_);
        r.text(1, message).integer(2, now).text(3, payload);
        r.step();
        n = static_cast<std::size_t>(sqlite3_changes64(db_.get()));
      });
      if (!written) return written.error();
      return n;
    });
  }

  result<std::vector<task_record>> unfinished() override {
    return guarded([&]() -> result<std::vector<task_record>> {
      const std::int64_t now = detail::to_epoch_ms(std::chrono::system_clock::now());
      return read([&](reader& rd) {
        std::vector<task_record> out;
        run r(rd.unfinished);
        r.integer(1, now);
        while (r.step()) {
          auto [seq, t] = read_head(r);
          read_body(r, t, true);
          out.push_back(std::move(t));
        }
        return out;
      });
    });
  }

  [[nodiscard]] detail::sqlite_task_store_counts counts() const {
    const auto c = writer_->counts();
    return {.transactions = commits_.load(),
            .writes = c.writes,
            .waiting = c.waiting,
            .checkpoints = checkpointer_->runs()};
  }

 private:
  /// Opens (creating or upgrading) the task table on the writing connection and sets the
  /// journal and the durability.
  void init_file(sqlite_durability durability) {
    sqlite3* db = db_.get();
    // Look before changing anything: another application's database is left as it is.
    if (auto why = sq::not_a_task_database(db_.get()); !why.empty())
      throw failure{"task store: " + path_ + why};
    sq::exec(db, std::string(page_size_sql).c_str());  // a new file's (before WAL mode)
    {
      statement wal(db, "PRAGMA journal_mode=WAL");
      run r(wal);
      if (!r.step() || r.text_view(0) != "wal") {
        throw failure{"task store: " + path_ + " cannot be put in WAL mode (not a file?)"};
      }
    }
    sq::exec(db, durability == sqlite_durability::power_loss ? "PRAGMA synchronous=FULL"
                                                             : "PRAGMA synchronous=NORMAL");
    sq::exec(db, "BEGIN IMMEDIATE");
    try {
      if (sq::query_int(db, "SELECT count(*) FROM sqlite_master") == 0) {
        sq::exec(db, std::string(create_sql).c_str());
        sq::exec(db, ("PRAGMA application_id=" + std::to_string(application_id)).c_str());
        sq::exec(db, ("PRAGMA user_version=" + std::to_string(schema_version)).c_str());
      } else if (auto why = sq::not_a_task_database(db_.get()); !why.empty()) {
        throw failure{"task store: " + path_ + why};
      } else if (const auto version = sq::query_int(db, "PRAGMA user_version");
                 version < schema_version) {
        upgrade(db, version);
        sq::exec(db, ("PRAGMA user_version=" + std::to_string(schema_version)).c_str());
      }
      sq::exec(db, std::string(expiry_index_sql).c_str());
      sq::exec(db, "COMMIT");
    } catch (...) {
      sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
  }

  /// Queues `f` for the next transaction and returns once that has committed (or
  /// failed: the error).
  template <class F>
  result<void> write(F&& f, bool one_statement = false) {
    write_op op(f, one_statement);
    writer_->submit(op);
    if (op.failed) return *op.failed;
    return {};
  }

  /// `write` of an `f` that runs one statement.
  template <class F>
  result<void> write_one(F&& f) {
    return write(std::forward<F>(f), true);
  }

  /// One transaction for every write in `ops` (on the thread of one of their callers).
  void run_batch(std::span<write_op* const> ops) noexcept {
    sqlite3* db = db_.get();
    const auto fail_all = [&](const error& e) {
      for (write_op* op : ops) op->failed = e;
    };
    if (ops.size() == 1 && ops.front()->one_statement) {
      // One statement alone is a transaction of its own, with the locks BEGIN IMMEDIATE takes
      // (SQLite takes the write lock before the statement reads, waiting for it as BEGIN
      // does): the same commit without the two statements around it.
      write_op& op = *ops.front();
      try {
        op.apply(op.ctx);
        commits_.fetch_add(1, std::memory_order_relaxed);
      } catch (...) {
        op.failed = current_error();
      }
      return;
    }
    try {
      run r(*begin_);
      r.step();
    } catch (...) {
      return fail_all(current_error());
    }
    for (write_op* op : ops) {
      try {
        op->apply(op->ctx);
      } catch (...) {
        op->failed = current_error();
        // Some failures (a full disk, an I/O error) roll the whole transaction back: then
        // nothing in it is stored, and every write in it is told so.
        if (sqlite3_get_autocommit(db) != 0) return fail_all(*op->failed);
      }
    }
    try {
      run r(*commit_);
      r.step();
      commits_.fetch_add(1, std::memory_order_relaxed);
    } catch (...) {
      const error e = current_error();
      sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
      fail_all(e);
    }
  }

  /// Runs `f` with a reader connection of the pool (opening one when none is idle).
  template <class F>
  auto read(F&& f) -> decltype(f(std::declval<reader&>())) {
    std::unique_ptr<reader> rd;
    {
      const std::lock_guard lock(readers_mu_);
      if (!idle_readers_.empty()) {
        rd = std::move(idle_readers_.back());
        idle_readers_.pop_back();
      }
    }
    if (!rd) rd = std::make_unique<reader>(path_, busy_timeout_);
    struct give_back {
      sqlite_task_store& s;
      std::unique_ptr<reader>& rd;
      ~give_back() {
        const std::lock_guard lock(s.readers_mu_);
        if (s.idle_readers_.size() < max_idle_readers) s.idle_readers_.push_back(std::move(rd));
      }
    } back{*this, rd};
    return f(*rd);
  }

  /// Reader connections kept open for reuse at most (more are closed after their read).
  static constexpr std::size_t max_idle_readers = 16;

  const std::string path_;
  const std::chrono::milliseconds busy_timeout_;
  // The writing connection and its statements: used by the constructor, then by one thread at
  // a time, the one running a batch (or a get, `try_alone`). Closed after the statements.
  sq::db_ptr db_;
  std::optional<statement> insert_, select_, delete_, update_, change_, purge_, fail_, begin_,
      commit_;
  sq::task_heads heads_;  // of the unfinished tasks this process created
  std::atomic<std::uint64_t> commits_{0};
  std::optional<sq::checkpointer> checkpointer_;  // its hook is on db_

  std::mutex readers_mu_;
  std::vector<std::unique_ptr<reader>> idle_readers_;

  std::optional<detail::group_commit<write_op>> writer_;  // batches of writes on db_
};

}  // namespace

namespace detail {

std::optional<sqlite_task_store_counts> sqlite_task_store_counts_of(task_store& store) {
  auto* s = dynamic_cast<sqlite_task_store*>(&store);
  if (s == nullptr) return std::nullopt;
  return s->counts();
}

}  // namespace detail

result<std::shared_ptr<task_store>> make_sqlite_task_store(
    const sqlite_task_store_options& options) {
  try {
    return std::shared_ptr<task_store>(std::make_shared<sqlite_task_store>(options));
  } catch (...) {
    return current_error();
  }
}

result<std::shared_ptr<task_store>> make_sqlite_task_store(const std::string& path) {
  return make_sqlite_task_store(sqlite_task_store_options{.path = path});
}

}  // namespace mcp
