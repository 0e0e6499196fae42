// File: mcp/task_store.hpp
//
// Where a server keeps its tasks (MCP 2025-11-25 "Tasks"): the status machine, the owner each
// task is bound to, its time to live, the request a task waits on while input_required (and the
// answer once it came) and, once it is terminal, the exact payload `tasks/result` returns. Two
// stores ship: `make_memory_task_store()` (lost on exit) and `make_sqlite_task_store(path)` (SQLite
// in WAL mode: an acknowledged write survives a restart or a crash of the process; with
// `sqlite_durability::power_loss`, a power loss too). When a server opens its first
// session it reads the store's `unfinished` tasks: one that was running when its process died is
// run again if its tool allows that (`tool_spec::rerun_after_restart`), else failed. Opening a
// store changes nothing.
//
// The store enforces the status machine: working -> input_required <-> working -> completed |
// failed | cancelled, and a terminal status never changes. Owners partition the store: `get`,
// `list` and `cancel`-style updates take the owner and never see another owner's tasks.
//
// Example:
//
//   auto store = mcp::make_sqlite_task_store("/var/lib/myserver/tasks.db");
//   // or, each write flushed to the disk before it is acknowledged:
//   //   mcp::make_sqlite_task_store({.path = "/var/lib/myserver/tasks.db",
//   //                                .durability = mcp::sqlite_durability::power_loss});
//   if (!store) die(store.error().message);
//   mcp::server srv({.task_store = *store});
//   // or by hand:
//   mcp::task_record t{.id = "t1", .owner = "alice", .ttl = std::chrono::minutes(10)};
//   (*store)->create(t);
//   (*store)->update("t1", "alice", {.status = mcp::task_status::completed,
//                                    .payload = mcp::json::object{{"result", ...}}});
#pragma once

#include <mcp/error.hpp>
#include <mcp/json.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcp {

/// A task's status (`Task.status`).
enum class task_status { working, input_required, completed, failed, cancelled };

/// The wire name of `s` ("working", "input_required", ...).
[[nodiscard]] std::string_view to_string(task_status s) noexcept;
/// The status named `s`, or nothing.
[[nodiscard]] std::optional<task_status> task_status_from_string(std::string_view s) noexcept;
/// True for completed, failed and cancelled.
[[nodiscard]] constexpr bool is_terminal(task_status s) noexcept {
  return s == task_status::completed || s == task_status::failed || s == task_status::cancelled;
}
/// True when the spec's status machine allows `from` -> `to` (working -> input_required,
/// input_required -> working, input_required -> input_required when the questions a task waits
/// on change, and any non-terminal status to a terminal one).
[[nodiscard]] bool is_allowed_transition(task_status from, task_status to) noexcept;

/// One task as stored. Times are wall-clock (`createdAt`/`lastUpdatedAt` on the wire).
struct task_record {
  std::string id;     ///< `taskId`: unguessable, unique in the store
  std::string owner;  ///< whose task it is (the requestor binding); never sent on the wire
  task_status status = task_status::working;                ///< where it is in the status machine
  std::string status_message{};                             ///< `statusMessage` (empty: none)
  std::chrono::system_clock::time_point created_at{};       ///< `createdAt`
  std::chrono::system_clock::time_point last_updated_at{};  ///< `lastUpdatedAt`: the last change
  /// `ttl`: how long after creation the task (and its result) is kept; nothing = unlimited.
  std::optional<std::chrono::milliseconds> ttl{};
  std::optional<std::chrono::milliseconds> poll_interval{};  ///< `pollInterval`
  std::string method{};  ///< the augmented request's method, e.g. "tools/call"
  /// Once terminal, what `tasks/result` answers: `{"result": {...}}` (a CallToolResult) or
  /// `{"error": {"code": …, "message": …}}`. Empty object while not terminal.
  json::object payload{};
  /// While the task waits for its requestor: the request it sent (`{"method": …, "params":
  /// …}`, e.g. an elicitation), so that anyone reading the store sees what is asked.
  json::object input_request{};
  /// The requestor's answer to `input_request` (`{"result": …}` or `{"error": …}`), kept with
  /// it from the moment it arrives until the task's next change of status.
  json::object input_response{};
  /// What running the task again needs, for a tool that allows it after a restart
  /// (`tool_spec::rerun_after_restart`) in a durable store: `{"params": <the tools/call
  /// params>, "caller": {"subject": …, "claims": …}}`. Empty for other tasks, and for every task
  /// of the memory store (nothing in it outlives the process). Set at creation, never changed;
  /// only `unfinished` returns it (`get`, `update` and `list` leave it empty: it is needed only
  /// to run a task again, and would otherwise be copied on every status read).
  json::object rerun{};

  /// True when `ttl` has passed at `now`.
  [[nodiscard]] bool expired(std::chrono::system_clock::time_point now) const noexcept {
    return ttl && now >= created_at + *ttl;
  }
};

/// A change of status: the new status, its message, (for a terminal status) the payload, and
/// the pending input request and its answer. An applied update replaces all of them, so a
/// terminal update (which leaves the input fields empty) clears what was asked.
struct task_update {
  task_status status = task_status::working;  ///< the new status (an allowed transition)
  std::string status_message{};               ///< `task_record::status_message`
  json::object payload{};                     ///< `task_record::payload`; terminal status only
  json::object input_request{};               ///< `task_record::input_request`
  json::object input_response{};              ///< `task_record::input_response`
};

/// One page of `list`: tasks in creation order (oldest first), and the cursor of the next page
/// (empty when this is the last).
struct task_page {
  std::vector<task_record> tasks;  ///< this page's tasks, oldest first
  std::string next_cursor{};       ///< opaque; empty: this is the last page
};

/// A task store. Implementations are thread-safe: every member may be called from any thread
/// at the same time. Errors are `errc::internal_error` results for storage failures (a full
/// disk, a corrupt file); "not found" is an empty optional, never an error.
class task_store {
 public:
  virtual ~task_store() = default;

  /// Stores a new task. `created_at`/`last_updated_at` are kept as given (the caller sets
  /// them). Errors: `errc::invalid_params` if the id exists; `internal_error` on storage failure.
  virtual result<void> create(const task_record& task) = 0;

  /// The task `id` of `owner`, or nothing when it does not exist, belongs to another owner or
  /// has expired (an expired task is deleted on the way).
  virtual result<std::optional<task_record>> get(std::string_view id, std::string_view owner) = 0;

  /// Applies `u` to task `id` of `owner` if the status machine allows it (updating
  /// `last_updated_at` to now), and returns the task as it is afterwards — changed or not; the
  /// caller compares `status` to see whether its update won (a terminal task never changes,
  /// so a racing cancel and completion resolve to whichever was stored first). Nothing when
  /// the task does not exist for that owner.
  virtual result<std::optional<task_record>> update(std::string_view id, std::string_view owner,
                                                    const task_update& u) = 0;

  /// Up to `limit` tasks of `owner` after `cursor` (empty: from the start), unexpired only.
  /// Errors: `errc::invalid_params` for a cursor this store did not issue.
  virtual result<task_page> list(std::string_view owner, std::string_view cursor,
                                 std::size_t limit) = 0;

  /// Deletes every task whose ttl has passed at `now`; returns how many.
  virtual result<std::size_t> purge_expired(std::chrono::system_clock::time_point now) = 0;

  /// Fails every non-terminal task with `message` (a task left working by a process that
  /// exited can never finish). Returns how many.
  virtual result<std::size_t> fail_unfinished(std::string_view message) = 0;

  /// Every non-terminal, unexpired task of every owner, oldest first. A server reads them once
  /// when it starts: it runs again those whose tool allows it and fails the others.
  virtual result<std::vector<task_record>> unfinished() = 0;

  /// Push instead of polling, for stores that several processes share (optional). A store that
  /// implements it calls `on_change(task_id)` after every status change applied to a task
  /// (`update` that won, `fail_unfinished`) by any process sharing its storage, this one
  /// included; with an empty id when changes may have been missed (the store lost its link to
  /// the others and has it back): re-read every task you wait for. Calls come on a thread of the
  /// store's, never on a thread inside a store member, one at a time, and carry only the id: read
  /// the task with `get` (the watcher knows its owner). Dropping the handle stops the calls; once
  /// its destructor returns no call is running (unless it is dropped inside `on_change`), so do
  /// not drop it while holding a lock that `on_change` takes. A call comes after the change is
  /// stored, so a `get` made then sees it (or a later one).
  ///
  /// Returns the subscription's handle, or nullptr when the store does not push (the default;
  /// the memory and SQLite stores): poll `get` instead. Never throws.
  virtual std::shared_ptr<void> watch(std::function<void(std::string_view task_id)> on_change) {
    (void)on_change;
    return nullptr;
  }

  /// True for a store that several running processes share (Redis): what is unfinished there
  /// may be running in another process, so a server starting on it neither fails nor runs
  /// again its unfinished tasks (see `unfinished`). False (the default) for a store one process
  /// owns while it runs: at its start, what is unfinished was cut off by the previous one's
  /// end. Thread-safe, never throws.
  [[nodiscard]] virtual bool shared_between_processes() const noexcept { return false; }
};

/// A store in memory (lost when the process exits). Thread-safe.
[[nodiscard]] std::shared_ptr<task_store> make_memory_task_store();

/// What a write of the SQLite task store survives once acknowledged (once `create`, `update`,
/// `purge_expired` or `fail_unfinished` has returned). The file is in WAL mode either way; a
/// crash never corrupts it.
enum class sqlite_durability {
  /// `PRAGMA synchronous=NORMAL` (the default): an acknowledged write survives a crash of the
  /// process (kill -9 included). Writes are flushed to the disk only at checkpoints, so a power
  /// loss or a crash of the operating system may lose the newest writes acknowledged since
  /// then (whole writes, newest first, never a part of one).
  process_crash,
  /// `PRAGMA synchronous=FULL`: the journal is flushed to the disk (fdatasync) before a write
  /// is acknowledged, so it survives a power loss too (as far as the disk keeps what it
  /// reports flushed). One flush per batch of writes, not per write; a write waits for it.
  power_loss,
};

/// How `make_sqlite_task_store` opens its store.
struct sqlite_task_store_options {
  std::string path;  ///< the database file (created if missing)
  /// What a write survives once acknowledged (see `sqlite_durability`).
  sqlite_durability durability = sqlite_durability::process_crash;
  /// How long a write waits for another process's write lock on the file before it fails
  /// with `errc::internal_error`.
  std::chrono::milliseconds busy_timeout{5000};
};

/// A store in the SQLite database `options.path` (created if missing; WAL journal). Defined in
/// the library `mcp::sqlite` (pkg-config `mcp-sqlite`), which a program calling it links. Writes
/// are committed in groups: every write that arrived while the previous transaction committed
/// goes into the next one (one commit, one flush at `power_loss`, for all of them). A write
/// returns once its transaction is committed (durable as `options.durability` says), and then
/// the next read of any thread or process sees it; reads never see an uncommitted write and
/// never wait for a commit. Several stores (or processes) may open the same file. A file of an
/// earlier release's layout is rebuilt in this one's when opened (in one transaction, tasks and
/// their numbers kept); that cannot be undone, earlier releases then refuse the file, and every
/// process of an earlier release that shares it must be stopped first. A transaction keeps the
/// pages it changes in memory until it commits (none are written early), so that rebuild needs
/// memory about the size of the file. Errors:
/// `errc::internal_error` when the file cannot be opened, cannot hold a WAL journal (":memory:",
/// ""), is not a task database or is of a later release's layout.
[[nodiscard]] result<std::shared_ptr<task_store>> make_sqlite_task_store(
    const sqlite_task_store_options& options);

/// `make_sqlite_task_store({.path = path})`: durable across a crash of the process.
[[nodiscard]] result<std::shared_ptr<task_store>> make_sqlite_task_store(const std::string& path);

}  // namespace mcp
