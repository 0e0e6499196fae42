// File: mcp/task_queue.hpp
//
// A queue of tasks shared by several server processes, for the tasks of both protocol revisions
// (2025-11-25 "Tasks" and the 2026-07-28 tasks extension; the revision a task was asked in is
// stored with it, and the process running it answers in that revision): a task accepted by any
// process is stored, then queued; any process's workers take queued tasks and run them, through
// the result side of the server's interceptors (output limits, deadline, audit: their admission
// ran where the task was accepted).
// A task store that also implements `task_queue` (`make_redis_task_queue`,
// mcp/redis_task_queue.hpp) turns this on: give it as `server_options::task_store` and the server
// queues its tasks there instead of running them where they were accepted, and runs at most
// `workers()` of them at once.
//
// Delivery is at least once, with a lease: a process holds each task it runs under a lease that
// it renews while the task runs; when the process dies the lease runs out and another process
// takes the task over. A task of a tool with `tool_spec::rerun_after_restart` is then run again
// there; any other is failed with a status message saying the process running it was lost.
//
// Example (the server does this itself; by hand, a worker loop):
//
//   auto q = std::dynamic_pointer_cast<mcp::task_queue>(store);
//   if (auto t = q->take(std::chrono::seconds(1)); t && *t) {
//     run((*t)->id, (*t)->rerun);             // what the task's tools/call asked
//     (void)q->release((*t)->id);             // after its outcome is stored
//   }
#pragma once

#include <mcp/error.hpp>
#include <mcp/json.hpp>
#include <mcp/task_store.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace mcp {

/// A task taken from the queue, leased to this process.
struct queued_task {
  std::string id;                             ///< the task's id in the store
  std::string owner;                          ///< its owner (for the store's calls)
  task_status status = task_status::working;  ///< its status when taken
  /// What running it needs (`task_record::rerun`): `{"params": <tools/call params>, "caller":
  /// {...}}`, with `"modern": true` for a task asked in the 2026-07-28 revision.
  json::object rerun{};
  /// True when a process took it before and its lease ran out (that process died, stalled
  /// longer than the lease, or gave it back unfinished): the task may have run in part.
  bool taken_over = false;
};

/// The queue. Implementations are thread-safe. Errors are `errc::internal_error` results
/// (storage unreachable); the caller retries later. No member may throw: the server calls them
/// from its workers' thread (`take`, `renew`, `release`, `interrupt`), from the thread that
/// accepted a task (`push`) and from the thread stopping the server (`interrupt`); an exception
/// that escapes anyway gives the lease back and pauses that worker thread.
class task_queue {
 public:
  virtual ~task_queue() = default;

  /// How many queued tasks this process runs at once. Read by the workers' thread.
  [[nodiscard]] virtual std::size_t workers() const noexcept = 0;

  /// How long a lease lasts; `renew` must be called well within it (the server: every third).
  /// Read by the workers' thread.
  [[nodiscard]] virtual std::chrono::milliseconds lease() const noexcept = 0;

  /// Queues stored task `id` (after `task_store::create`), behind those queued before. Called
  /// on the thread that accepted the task (the session's); an error fails the task.
  virtual result<void> push(std::string_view id) = 0;

  /// Takes the next task to run and leases it to this process: first a task whose lease ran
  /// out (`taken_over`), else the oldest queued one; tasks that ended or expired meanwhile are
  /// dropped on the way. A working task's "queued" status message is cleared as it is taken.
  /// Waits up to `wait` for one (a push by any process wakes it); nothing when none came or
  /// `interrupt` was called. Called on the workers' thread only, one call at a time.
  virtual result<std::optional<queued_task>> take(std::chrono::milliseconds wait) = 0;

  /// Extends the leases of `ids` (tasks this process runs) by `lease()` from now. A lease this
  /// process no longer holds (taken over meanwhile) is left alone. Called on the workers'
  /// thread.
  virtual result<void> renew(std::span<const std::string> ids) = 0;

  /// This process stops running task `id`: its lease ends. Call it after the task's outcome is
  /// stored; a task still unfinished then is given back as if its lease had run out (taken
  /// over by the next `take` of any process). Called on the thread that stored the outcome
  /// (a handler's, or the workers' thread for a task that cannot run).
  virtual result<void> release(std::string_view id) = 0;

  /// Wakes every `take` waiting now, which returns nothing. Called by the thread stopping the
  /// server, while a `take` may be running on the workers' thread.
  virtual void interrupt() = 0;
};

}  // namespace mcp
