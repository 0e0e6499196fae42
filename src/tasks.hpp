// Internal: the tasks feature (2025-11-25 "Tasks"). A task-augmented tools/call is answered at
// once with a CreateTaskResult; the call then runs through the same pipeline as a plain call,
// but delivers its outcome to a `task_run` (a call_sink) that stores it in the server's
// task_store. tasks/get, tasks/list and tasks/cancel read and change the store; tasks/result
// waits without polling: a waiter is registered with the task's in-process record and the
// completion (or the cancel) answers it. Requests the tool makes to the client while it runs
// put the task in input_required and travel on the stream of a waiting tasks/result when there
// is one. Status changes are announced with notifications/tasks/status once the requestor has
// asked about the task (not the end a waiting tasks/result of its session is answered with).
#pragma once

#include <mcp/executor.hpp>
#include <mcp/jsonrpc.hpp>
#include <mcp/server.hpp>
#include <mcp/task_store.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "features.hpp"
#include "peer.hpp"
#include "tools.hpp"

namespace mcp {
class task_queue;
struct queued_task;
}  // namespace mcp

namespace mcp::detail {

class queue_runner;
class server_core;
class listen_feature;
class server_session_impl;
class call_state;

/// A tasks/result request waiting for its task to end. Tracked by its session as a request in
/// flight, so cancelling it or closing the session drops it.
class result_waiter final : public inbound_request {
 public:
  result_waiter(jsonrpc::request_id id, std::weak_ptr<server_session_impl> s, std::string task)
      : inbound_request(std::move(id)), session(std::move(s)), task_id(std::move(task)) {}
  std::weak_ptr<server_session_impl> session;
  std::string task_id;
  std::atomic<bool> answered{false};
};

class tasks_feature final : public feature, public std::enable_shared_from_this<tasks_feature> {
 public:
  /// Registers tasks/get, tasks/result, tasks/list and tasks/cancel with `core` (which owns
  /// this feature). Task changes go to `listens` (2026-07-28 listeners), held here because a task
  /// may finish on a pool thread while the server is being destroyed.
  tasks_feature(server_core& core, std::shared_ptr<listen_feature> listens);

  /// Once (the first session opens): the tasks the store holds unfinished from an earlier
  /// process run again when their tool has `rerun_after_restart`, and are failed otherwise.
  void recover();

  [[nodiscard]] std::optional<std::pair<std::string, json::object>> capability(
      const server_session_impl& s) const override;

  /// Admits a tools/call with `params.task` (`task`) before it runs: the id its task will have,
  /// or -32602 for a malformed `task`, -32600 when the caller has `max_tasks_per_owner`
  /// unfinished tasks.
  [[nodiscard]] result<std::string> admit(server_session_impl& s, const json::value& task);
  /// Puts task `id` in a request's `_meta` (`io.modelcontextprotocol/related-task`), where the
  /// pipeline, the handler and `become_task` find it.
  static void mark(json::object& meta, const std::string& id);
  /// Turns `call` (an admitted tools/call the interceptors let through) into a task: stores it,
  /// with the id `mark` put in its `_meta`, bound to the session's task owner, answers the
  /// tools/call with the CreateTaskResult and sends the call's outcome to the task from now on.
  /// False when the call must not run (cancelled, its session ended, the store failed: then the
  /// call was answered).
  bool become_task(call_state& call);
  /// The executor a task's handler runs on, to which a task's start (`become_task`, then its
  /// handler) may be handed when it has a thread free (executor::try_post); null with a shared
  /// queue (a task queued there does not run here) and with the memory store (nothing to wait
  /// for: the reader stores it, and its answer leaves with the reader's others).
  [[nodiscard]] executor* start_executor() const noexcept;
  /// A task accepted while held back by a concurrency limit (call_state::hold) waits: its
  /// record keeps the call alive until the limit lets it run (`unpark`, from task_run::resumed).
  /// True when it may run now (it was let go meanwhile); false when it waits, or when its task
  /// was cancelled (then it never runs).
  bool park(call_state& call);
  /// The queued task `id` starts: its record lets go of the call and is no longer queued.
  void unpark(const std::string& id);
  /// Drops the calls of queued tasks (the server is going away: they never run; the store
  /// keeps them unfinished, so the next start fails or reruns them as for a crash).
  void drop_parked();
  /// The statusMessage of a task queued for a concurrency slot.
  static constexpr std::string_view queued_message =
      "Queued: accepted, and waits for a free slot under the server's concurrency limit";

  // ---- for task_run (tasks.cpp) ----
  /// Stores the outcome of task `id` and answers its waiters.
  void finish(const std::string& id, const std::string& owner, task_update u);
  /// Moves task `id` between working and input_required (`u.status`; announced), storing the
  /// request it waits on and the answer; false when it is terminal already.
  bool set_input_state(const std::string& id, const std::string& owner, task_update u);
  /// The request id and session of a tasks/result waiting for task `id`, if any.
  std::shared_ptr<result_waiter> first_waiter(const std::string& id);
  /// `first_waiter`, waiting up to `timeout` for a tasks/result to come; null when none came,
  /// `stop` fired or the task ended.
  std::shared_ptr<result_waiter> await_waiter(const std::string& id,
                                              std::chrono::milliseconds timeout,
                                              std::stop_token stop);
  [[nodiscard]] server_core& core() const noexcept { return core_; }

  // ---- a task queue shared by several processes (tasks_queue.cpp) ----
  /// With a store that is a `task_queue`: queues the task `call` became (become_task) there, for
  /// any process's workers, and lets go of the call here; true (the call must not run here).
  /// False without a queue.
  bool enqueue(call_state& call);
  /// Runs task `q`, taken from the queue by this process (its lease is held); false when it
  /// does not run (failed: a non-rerunnable task taken over, or its tool is unknown here).
  bool run_taken(const queued_task& q);

  // ---- the 2026-07-28 tasks extension (tasks_ext.cpp) ----
  /// Whether request `req` (of a modern session) declares the tasks extension.
  [[nodiscard]] static bool declares_extension(const server_session_impl& s,
                                               const jsonrpc::request& req);
  /// Whether client capabilities `caps` declare it.
  [[nodiscard]] static bool declares_extension(const json::object& caps);
  /// The -32021 answer naming the extension.
  [[nodiscard]] static error extension_required(std::string what);
  /// A task's question to the client (2026-07-28): kept with the task, which is then
  /// input_required, until tasks/update answers it under `key` ("<kind>-<n>" when empty);
  /// `done` gets the answer, or an error when the task ends first.
  void ask_input(const std::string& id, const std::string& owner, std::string key,
                 std::string_view method, json::object params,
                 unique_function<void(result<json::object>)> done);

 private:
  /// A question of a 2026-07-28 task waiting for tasks/update.
  struct pending_input {
    json::object question;  ///< {method, params}
    unique_function<void(result<json::object>)> done;
  };
  struct live_task {
    std::weak_ptr<call_state> call;
    std::weak_ptr<server_session_impl> session;  ///< where status notifications go
    std::string owner;
    std::vector<std::shared_ptr<result_waiter>> waiters;
    std::map<std::string, pending_input, std::less<>> inputs{};  ///< 2026-07-28
    unsigned asked = 0;
    bool queued = false;  ///< waits for a concurrency slot (not yet running)
    /// Its requestor asked about it (tasks/get, tasks/result): its changes are announced
    /// (notifications/tasks/status); before that, the first question tells the status.
    bool followed = false;
    std::shared_ptr<call_state> parked{};  ///< the waiting call, kept alive here
    /// When its ttl passes (set for a task created here: tasks/result waits on it, await_live).
    std::optional<std::chrono::system_clock::time_point> expires_at{};
  };
  /// `t` as a reader should see it: "queued" while this process holds it back.
  void show_queued(task_record& t);
  /// Owner `owner` asks about task `id` (`live_task::followed`): marked before the task is
  /// read, so that a change after the read is announced.
  void follow(const std::string& id, std::string_view owner);

  /// The caller's task named by `params.taskId`, or the error to answer (-32602: no such task
  /// of theirs; -32603: the store failed).
  result<task_record> lookup(server_session_impl& s, const jsonrpc::request& req);
  /// Removes task `id`'s in-process record (it ended) and releases its place in its owner's
  /// count of unfinished tasks; nothing when no call of this process runs it.
  std::optional<live_task> take_live(const std::string& id);
  void get(server_session_impl& s, jsonrpc::request&& req);
  void get_result(server_session_impl& s, jsonrpc::request&& req);
  /// tasks/result of a task created and running here, unexpired, of the caller: waits for its
  /// end without reading the store (true; false: not such a task, nothing done).
  bool await_live(server_session_impl& s, const jsonrpc::request& req);
  void list(server_session_impl& s, jsonrpc::request&& req);
  void cancel(server_session_impl& s, jsonrpc::request&& req);
  /// Keeps `tail`, the tasks/result answer of task `t` (answer_tail), just ended here as the
  /// store has it, for the tasks/result that usually follows (the newest
  /// `max_finished`, `max_finished_bytes` in all), so that it needs no read of the store and
  /// no writing on the reader. A larger answer is not kept (its tasks/result reads the store).
  void keep_finished(const task_record& t, std::string tail);
  /// A kept answer: what it answers after the request's id, whose it is and until when.
  struct kept_task {
    std::string tail;  ///< `answer_tail` of the task
    std::string owner;
    /// When the task expires (its `created_at` + `ttl`), if it does.
    std::optional<std::chrono::system_clock::time_point> expires_at;
    std::size_t bytes = 0;  ///< about what it holds in memory
  };
  /// Takes the kept answer of the task named by `req`'s taskId if it is `owner`'s and has not
  /// expired.
  std::optional<kept_task> take_finished(const jsonrpc::request& req, std::string_view owner);
  static constexpr std::size_t max_finished = 256;
  static constexpr std::size_t max_finished_bytes = std::size_t{16} << 20U;
  /// What tasks/result answers for terminal task `id` whose payload is `payload` after the
  /// request's id (its result, its error, or an error saying it has none): `,"result":{…}}` or
  /// `,"error":{…}}`.
  [[nodiscard]] static std::string answer_tail(std::string_view id, const json::object& payload);
  /// Answers `w` (once) with `tail` (answer_tail).
  static void answer(const std::shared_ptr<result_waiter>& w, std::string_view tail);
  /// Answers `w` (once) with terminal task `t`'s payload.
  static void answer(const std::shared_ptr<result_waiter>& w, const task_record& t);
  /// Answers each of `waiters` with `t` (written once).
  static void answer_all(const std::vector<std::shared_ptr<result_waiter>>& waiters,
                         const task_record& t);
  /// Answers each of `waiters` with `tail` (answer_tail).
  static void answer_all(const std::vector<std::shared_ptr<result_waiter>>& waiters,
                         std::string_view tail);
  /// Sends notifications/tasks/status for `t` to the session that created it, if it lives.
  /// `payload_moved`: `t` lacks its payload (the memory store has it, `detail::update_task`),
  /// read from the store for the listeners that want it.
  void announce(const task_record& t, const std::weak_ptr<server_session_impl>& session,
                bool payload_moved = false);
  /// Re-reads a task no call of this process runs (another process shares the store) and
  /// answers `w` once it is terminal, checking every poll interval.
  void watch_foreign(std::shared_ptr<result_waiter> w, std::string owner);
  /// A stored task, to run here from its stored call (`task_record::rerun`).
  struct stored_call {
    const std::string& id;
    const std::string& owner;
    task_status status;         ///< its status now (input_required: it starts over, working)
    const json::object& rerun;  ///< `{"params": …, "caller": …, "modern": true?}`
    bool cut_off;               ///< it may have run in part (a restart, a lease run out)
  };
  /// Runs stored task `t` here (tasks_queue.cpp): a restart's recovery (`runner` null) or a
  /// task taken from the queue (`runner` holds a worker until the call is released). The call
  /// passes the server's interceptors as admitted earlier (`tool_call::admitted_earlier`):
  /// their admission ran where the task was accepted, their result side applies here. True
  /// when its call started, false when the task ended meanwhile; an error saying why it cannot
  /// run (nothing stored to run it from, its tool unknown here, or cut off and not
  /// `rerun_after_restart`).
  result<bool> run_stored(const stored_call& t, queue_runner* runner);
  // 2026-07-28 (tasks_ext.cpp): tasks/get with the result inline, tasks/update, tasks/cancel.
  void get_detailed(server_session_impl& s, jsonrpc::request&& req);
  void update(server_session_impl& s, jsonrpc::request&& req);
  void cancel_ext(server_session_impl& s, jsonrpc::request&& req);
  /// Stores the questions task `id` waits on (input_required) or that it waits on none
  /// (working), and announces it.
  void store_inputs(const std::string& id, const std::string& owner,
                    const std::map<std::string, pending_input, std::less<>>& inputs);
  /// Fails the questions task `id` still waits on (it ended).
  void drop_inputs(live_task& live, const std::string& why);
  // Shared stores (tasks_queue.cpp).
  /// Once (recover): follows the store's pushed changes, and with a queue starts this
  /// process's workers; true when there is a queue (no recovery: leases replace it).
  bool share();
  /// Stops the workers and the store's pushes (the server is going away).
  void stop_sharing();
  /// Task `id` changed somewhere (empty: changes may have been missed): a task that ended
  /// elsewhere, or was cancelled by another process, ends here too (its call stopped, its
  /// waiters answered).
  void remote_change(const std::string& id);
  /// The store pushed a change of task `id` (on the store's thread): when this process waits
  /// for the task or a 2026-07-28 listen here names it (lookups in memory only), `changed_here`
  /// runs on `changes_`, once at a time per task.
  void pushed_change(std::string_view id);
  /// On `changes_`: `remote_change(id)` when this process waits for task `id`, and the listens
  /// naming it are told (reads of the store); again while pushes came meanwhile.
  void changed_here(const std::string& id);
  /// With a store that pushes changes: `w` waits for its task's end without polling (true).
  bool await_pushed(const std::shared_ptr<result_waiter>& w, const std::string& owner);
  /// Task `id`'s outcome is stored: if this process runs it from the queue, its lease ends.
  void lease_done(const std::string& id);

  server_core& core_;
  std::shared_ptr<listen_feature> listens_;
  std::shared_ptr<observe::observer> observer_;  ///< task statuses are reported to it; or null
  std::shared_ptr<task_store> store_;
  std::mutex mu_;
  std::unordered_map<std::string, live_task> live_;
  std::unordered_map<std::string, std::size_t> unfinished_per_owner_;
  std::size_t created_ = 0;
  std::once_flag recovered_;
  std::condition_variable_any waiter_added_;             ///< with mu_: a tasks/result registered
  std::unordered_map<std::string, kept_task> finished_;  ///< with mu_: keep_finished
  std::deque<std::string> finished_order_;               ///< with mu_: oldest first
  std::size_t finished_bytes_ = 0;                       ///< with mu_: their tails' bytes
  /// Shared stores (tasks_queue.cpp): the queue (null: tasks run where they are accepted), its
  /// workers, the store's push subscription, and tasks/result requests waiting for tasks no
  /// call of this process has a record of (by task id: owner, waiters).
  std::shared_ptr<task_queue> queue_;
  const bool in_memory_;  // the store is the memory one: tasks are stored on the reader
  std::shared_ptr<queue_runner> runner_;
  std::shared_ptr<void> watch_;
  std::atomic<bool> pushed_{false};  ///< `watch_` pushes changes
  /// Where pushed changes are read and acted on (stops, answers, listens): neither the store's
  /// thread (a slow read or stop would hold up every other push) nor the handlers' (all may be
  /// busy); it grows while busy.
  std::shared_ptr<executor> changes_;
  /// With mu_: tasks whose pushed change is being handled on `changes_`; true: pushed again
  /// meanwhile (handled once more after).
  std::unordered_map<std::string, bool> pushing_;
  std::unordered_map<std::string,
                     std::pair<std::string, std::vector<std::shared_ptr<result_waiter>>>>
      foreign_;
};

/// Where the call of task `id` (of `owner`) delivers its outcome: the task (tasks.cpp).
[[nodiscard]] std::shared_ptr<call_sink> make_task_run(std::shared_ptr<tasks_feature> f,
                                                       std::string id, std::string owner,
                                                       bool modern);
/// The update that cancels task `id`: its result is a -32602 saying so.
[[nodiscard]] task_update cancelled_task(const std::string& id, std::string message);
/// The Task object of `t` as sent on the wire (tasks/get, CreateTaskResult, notifications);
/// `modern`: 2026-07-28's flat Task fields (`ttlMs`, `pollIntervalMs`).
[[nodiscard]] json::object task_json(const task_record& t, bool modern = false);
/// `task_json(t, modern)` written to `out` as JSON text (the same members, in the same order)
/// without building the object: the CreateTaskResult and notifications/tasks/status, once per
/// task each.
void append_task_json(std::string& out, const task_record& t, bool modern = false);
/// 2026-07-28: the DetailedTask of `t` (with the result, error or questions the task's status
/// calls for).
[[nodiscard]] json::object detailed_task_json(const task_record& t);

}  // namespace mcp::detail
