// The tasks feature: task-augmented tools/call, the running and ending of tasks and
// notifications/tasks/status over a task_store (see tasks.hpp); the 2025-11-25 tasks/* methods
// are in tasks_methods.cpp, the 2026-07-28 extension's in tasks_ext.cpp.
#include "tasks.hpp"

#include <mcp/json.hpp>
#include <mcp/task_queue.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>

#include "detail/call_state.hpp"
#include "detail/random.hpp"
#include "detail/task_store_common.hpp"
#include "detail/timer.hpp"
#include "listen.hpp"
#include "server_core.hpp"
#include "server_session.hpp"

namespace mcp::detail {

namespace {

constexpr std::string_view related_task_key = "io.modelcontextprotocol/related-task";

using sys_clock = std::chrono::system_clock;

/// How often a task waiting for a tasks/result to carry its request to the client looks again
/// whether another process holding the session's GET stream can carry it.
constexpr std::chrono::milliseconds recheck_stream{50};

sys_clock::time_point now_ms() {
  return std::chrono::time_point_cast<std::chrono::milliseconds>(sys_clock::now());
}

/// `{"_meta": {related-task: {taskId}}}` merged into `params` (notifications, requests, the
/// tasks/result answer).
void add_related_task(json::object& params, const std::string& id) {
  auto& meta = params["_meta"];
  if (!meta.is_object()) meta.emplace_object();
  tasks_feature::mark(meta.get_object(), id);
}

/// The first text of a failed tool result, for the task's statusMessage.
std::string failure_text(const call_tool_result& r) {
  for (const auto& c : r.content) {
    const auto* o = c.if_object();
    if (!o) continue;
    const auto* text = o->if_contains("text");
    if (text && text->is_string()) return std::string(text->get_string()).substr(0, 1000);
  }
  return "The tool reported an error";
}

json::object error_payload(const error& e) {
  json::object err{{"code", e.code}, {"message", e.message}};
  if (e.data) err["data"] = *e.data;
  return json::object{{"error", std::move(err)}};
}

/// The id `tasks_feature::mark` gave call `c` (empty: none).
std::string task_id(const call_state& c) {
  if (const auto* r = c.meta().if_contains(related_task_key); r && r->is_object()) {
    if (const auto* id = r->get_object().if_contains("taskId"); id && id->is_string()) {
      return std::string(id->get_string());
    }
  }
  return {};
}

}  // namespace

task_update cancelled_task(const std::string& id, std::string message) {
  return {.status = task_status::cancelled,
          .status_message = std::move(message),
          .payload =
              error_payload(invalid_params("Task \"" + id + "\" was cancelled: it has no result"))};
}

/// Where a task's call delivers: the store, not the tools/call answer. Its notifications and
/// requests carry the related-task `_meta`; they are not tied to the (answered) tools/call.
class task_run final : public call_sink {
 public:
  /// `modern`: a task of the 2026-07-28 extension (questions wait for tasks/update; no
  /// related-task `_meta`).
  task_run(std::shared_ptr<tasks_feature> f, std::string id, std::string owner, bool modern = false)
      : feature_(std::move(f)), id_(std::move(id)), owner_(std::move(owner)), modern_(modern) {}

  void deliver(call_state& call, std::variant<call_tool_result, error> outcome) override {
    task_update u;
    if (auto* e = std::get_if<error>(&outcome)) {
      u.status = task_status::failed;
      u.status_message = e->message;
      u.payload = error_payload(*e);
    } else {
      auto& r = std::get<call_tool_result>(outcome);
      std::optional<json::value> structured;
      if (r.structured_content) structured.emplace(std::move(*r.structured_content));
      if (auto problem = output_problem(call, r, structured)) {
        u.status = task_status::failed;
        u.status_message = problem->message;
        u.payload = error_payload(*problem);
      } else {
        // Tasks exist only in eras that have every CallToolResult field: nothing to trim.
        if (structured) r.structured_content = std::move(structured->as_object());
        u.status = r.is_error ? task_status::failed : task_status::completed;
        if (r.is_error) u.status_message = failure_text(r);
        json::object result = std::move(r).to_json();
        if (!modern_) add_related_task(result, id_);
        u.payload = json::object{{"result", std::move(result)}};
      }
    }
    feature_->finish(id_, owner_, std::move(u));
  }

  void resumed(call_state& /*call*/) override { feature_->unpark(id_); }

  std::optional<jsonrpc::request_id> related(const call_state& /*call*/) const override {
    return std::nullopt;  // the tools/call was answered: standalone messages
  }

  void annotate(const call_state& /*call*/, json::object& params) const override {
    if (!modern_) add_related_task(params, id_);
  }

  executor* exec(const call_state& /*call*/) const override {
    // A task runs whether or not its session lives.
    auto& core = feature_->core();
    return core.opts.task_executor ? core.opts.task_executor.get() : core.exec.get();
  }

  result<json::object> request_client(call_state& call, std::string_view method,
                                      json::object params, std::chrono::milliseconds timeout,
                                      std::string_view key) override {
    if (modern_) {  // kept with the task until tasks/update answers it
      struct answer_wait {
        std::mutex mu;
        std::condition_variable_any cv;
        std::optional<result<json::object>> got;
      };
      auto w = std::make_shared<answer_wait>();
      feature_->ask_input(id_, owner_, std::string(key), method, std::move(params),
                          [w](result<json::object> r) {
                            std::lock_guard lock(w->mu);
                            w->got = std::move(r);
                            w->cv.notify_all();
                          });
      std::unique_lock lock(w->mu);
      auto stop = call.stop_source().get_token();
      if (!w->cv.wait_for(lock, stop, timeout, [&] { return w->got.has_value(); })) {
        return error{stop.stop_requested() ? errc::cancelled : errc::request_timeout,
                     std::string(method) + " got no answer (tasks/update) in time"};
      }
      return std::move(*w->got);
    }
    // What is asked, and then the answer, are stored with the task while it waits.
    json::object asked{{"method", method}, {"params", params}};
    if (!feature_->set_input_state(
            id_, owner_, {.status = task_status::input_required, .input_request = asked})) {
      return error{errc::cancelled, "the task has ended"};
    }
    auto answer = ask(call, method, std::move(params), timeout);
    feature_->set_input_state(id_, owner_,
                              {.status = task_status::working,
                               .input_request = std::move(asked),
                               .input_response = answer ? json::object{{"result", *answer}}
                                                        : error_payload(answer.error())});
    return answer;
  }

  void request_client_async(call_state& call, std::string_view method, json::object params,
                            std::chrono::milliseconds timeout, std::string_view key,
                            unique_function<void(result<json::object>)> done) override {
    if (modern_) {
      return feature_->ask_input(id_, owner_, std::string(key), method, std::move(params),
                                 std::move(done));
    }
    // A 2025-11-25 task's question may wait for a tasks/result to carry it: on a thread.
    auto* ex = exec(call);
    if (ex == nullptr) return done(error{errc::connection_closed, "the session has ended"});
    ex->post([call = call.self(), m = std::string(method), p = std::move(params), timeout,
              k = std::string(key), done = std::move(done)]() mutable {
      done(call->sink().request_client(*call, m, std::move(p), timeout, k));
    });
  }

 private:
  /// Sends a request to the client: on the stream of a waiting tasks/result when there is
  /// one, else on the creating session. Where nothing reaches the client unprompted (Streamable
  /// HTTP without a GET stream) it first waits for the requestor's tasks/result, which the spec
  /// has clients call when they see input_required.
  result<json::object> ask(call_state& call, std::string_view method, json::object params,
                           std::chrono::milliseconds timeout) {
    auto stop = call.stop_source().get_token();
    auto w = feature_->first_waiter(id_);
    auto s = call.session();
    if (!w && s && !s->conn().delivers_unrelated()) {
      // Looked at again now and then: a shared session's GET stream held by another process
      // is told soon after this process opened its copy, and then carries the request.
      using steady = std::chrono::steady_clock;
      const auto until = steady::now() + timeout;
      while (!w && !s->conn().delivers_unrelated() && !stop.stop_requested()) {
        const auto started = steady::now();
        if (started >= until) break;
        const auto slice =
            std::min(std::chrono::ceil<std::chrono::milliseconds>(until - started), recheck_stream);
        w = feature_->await_waiter(id_, slice, stop);
        if (!w && steady::now() - started < slice) break;  // the task ended
      }
      if (!w && s->conn().delivers_unrelated()) {
        return s->request_client(method, std::move(params), timeout, nullptr, stop);
      }
      if (!w && stop.stop_requested()) return error{errc::cancelled, "the task was cancelled"};
      if (!w) {
        return error{errc::request_timeout,
                     "no tasks/result came to carry the request to the client"};
      }
    }
    std::optional<jsonrpc::request_id> related;
    if (w) {
      if (auto ws = w->session.lock()) {
        s = std::move(ws);
        related = w->id();
      }
    }
    if (!s) return error{errc::connection_closed, "no session to ask the client through"};
    return s->request_client(method, std::move(params), timeout, related ? &*related : nullptr,
                             stop);
  }

  std::shared_ptr<tasks_feature> feature_;
  std::string id_;
  std::string owner_;
  bool modern_;
};

std::shared_ptr<call_sink> make_task_run(std::shared_ptr<tasks_feature> f, std::string id,
                                         std::string owner, bool modern) {
  return std::make_shared<task_run>(std::move(f), std::move(id), std::move(owner), modern);
}

tasks_feature::tasks_feature(server_core& core, std::shared_ptr<listen_feature> listens)
    : core_(core),
      listens_(std::move(listens)),
      observer_(core.opts.observer),
      store_(core.opts.task_store ? core.opts.task_store : make_memory_task_store()),
      queue_(std::dynamic_pointer_cast<task_queue>(store_)),
      in_memory_(detail::is_memory_task_store(*store_)) {
  // 2025-11-25 tasks; 2026-07-28 has the tasks extension's methods instead (tasks_ext.cpp).
  auto& r = core.router;
  r.add(
      "tasks/get", "tasks",
      [this](server_session_impl& s, jsonrpc::request&& q) { get(s, std::move(q)); },
      served_in::legacy);
  r.add(
      "tasks/result", "tasks",
      [this](server_session_impl& s, jsonrpc::request&& q) { get_result(s, std::move(q)); },
      served_in::legacy);
  r.add(
      "tasks/list", "tasks",
      [this](server_session_impl& s, jsonrpc::request&& q) { list(s, std::move(q)); },
      served_in::legacy);
  r.add(
      "tasks/cancel", "tasks",
      [this](server_session_impl& s, jsonrpc::request&& q) { cancel(s, std::move(q)); },
      served_in::legacy);
  // The extension's: a request that does not declare it gets -32021 (not -32601).
  r.add(
      "tasks/get", "",
      [this](server_session_impl& s, jsonrpc::request&& q) { get_detailed(s, std::move(q)); },
      served_in::modern);
  r.add(
      "tasks/update", "",
      [this](server_session_impl& s, jsonrpc::request&& q) { update(s, std::move(q)); },
      served_in::modern);
  r.add(
      "tasks/cancel", "",
      [this](server_session_impl& s, jsonrpc::request&& q) { cancel_ext(s, std::move(q)); },
      served_in::modern);
}

std::optional<std::pair<std::string, json::object>> tasks_feature::capability(
    const server_session_impl& s) const {
  if (!core_.tools->offers_tasks()) return std::nullopt;
  if (s.modern()) {  // the tasks extension
    return std::pair{std::string("extensions"),
                     json::object{{"io.modelcontextprotocol/tasks", json::object{}}}};
  }
  if (!traits(s.session_era()).tasks) return std::nullopt;
  json::object caps;
  // Callers that share one owner would see each other's tasks in a list.
  if (!s.shared_task_owner()) caps["list"] = json::object{};
  caps["cancel"] = json::object{};
  caps["requests"] = json::object{{"tools", json::object{{"call", json::object{}}}}};
  return std::pair{std::string("tasks"), std::move(caps)};
}

namespace {

/// The ttl `task` asks for (nothing: none asked), or why it is malformed.
result<std::optional<std::uint64_t>> asked_ttl(const json::value& task) {
  if (!task.is_object()) return invalid_params("tools/call: \"task\" must be an object");
  const auto* t = task.get_object().if_contains("ttl");
  if (t == nullptr || t->is_null()) return std::optional<std::uint64_t>{};
  if (t->is_uint64()) return std::optional<std::uint64_t>{t->get_uint64()};
  if (t->is_int64() && t->get_int64() >= 0) {
    return std::optional<std::uint64_t>{static_cast<std::uint64_t>(t->get_int64())};
  }
  return invalid_params("tools/call: \"task.ttl\" must be a non-negative integer (ms)");
}

}  // namespace

result<std::string> tasks_feature::admit(server_session_impl& s, const json::value& task) {
  if (auto ttl = asked_ttl(task); !ttl) return ttl.error();
  {
    std::lock_guard lock(mu_);
    const auto it = unfinished_per_owner_.find(s.task_owner());
    if (it != unfinished_per_owner_.end() && it->second >= core_.opts.max_tasks_per_owner) {
      return error{errc::invalid_request, "Too many unfinished tasks (at most " +
                                              std::to_string(core_.opts.max_tasks_per_owner) +
                                              "); wait for some to end or cancel them"};
    }
  }
  return random_hex(16);
}

void tasks_feature::mark(json::object& meta, const std::string& id) {
  // Built in place (an initializer list would build a second object and copy it in).
  auto& o = meta[related_task_key].emplace_object();
  o.reserve(1);
  o.emplace("taskId", json::string_view(id.data(), id.size()));
}

bool tasks_feature::become_task(call_state& call) {
  auto s = call.session();
  if (!s || !call.task_request) return false;
  std::chrono::milliseconds ttl = core_.opts.task_default_ttl;
  if (auto asked = asked_ttl(*call.task_request); asked && *asked) {
    const auto max = static_cast<std::uint64_t>(core_.opts.task_max_ttl.count());
    ttl = std::chrono::milliseconds(static_cast<std::int64_t>(std::min(**asked, max)));
  }
  const std::string owner = s->task_owner();
  task_record rec;
  rec.id = task_id(call);
  if (rec.id.empty()) return false;  // not admitted by admit(): never happens
  rec.owner = owner;
  rec.created_at = rec.last_updated_at = now_ms();
  rec.ttl = ttl;
  rec.poll_interval = core_.opts.task_poll_interval;
  rec.method = "tools/call";
  // Kept only where it can be read after this process: a durable store (a restart) or a queue
  // (any process runs it). Nothing in memory outlives the process, so the memory store needs none.
  if ((call.entry().spec.rerun_after_restart && !in_memory_) || queue_) {
    // Built in place (an initializer list copies each member into the object it builds).
    json::object& rerun = rec.rerun;
    rerun.reserve(3);
    json::object& params = rerun.emplace("params", json::object()).first->value().get_object();
    params.reserve(3);
    params.emplace("name", json::string_view(call.tool().data(), call.tool().size()));
    params.emplace("arguments", call.arguments_value());
    if (!call.meta().empty()) params.emplace("_meta", call.meta());
    rerun.emplace("caller", principal_to_json(call.caller()));
    // The era it was asked in: a process running it without its session answers in that era.
    if (s->modern()) rerun.emplace("modern", true);
  }
  if (auto created = store_->create(rec); !created) {
    call.complete(error{errc::internal_error, created.error().message});
    return false;
  }
  // From here the task, not the tools/call request, is what can be cancelled (tasks/cancel).
  if (!s->untrack(call)) {  // cancelled meanwhile, or the session ended
    (void)store_->update(rec.id, owner, cancelled_task(rec.id, "Cancelled before it started"));
    return false;
  }
  bool purge = false;
  {
    std::lock_guard lock(mu_);
    ++unfinished_per_owner_[owner];
    auto& live = live_[rec.id] = live_task{call.weak_self(), s, owner, {}};
    live.queued = call.held();
    live.expires_at = rec.created_at + ttl;
    purge = ++created_ % 256 == 0;
  }
  if (call.held() || queue_) rec.status_message = std::string(queued_message);
  if (purge) (void)store_->purge_expired(sys_clock::now());
  // The CreateTaskResult goes out before the handler runs, so before any status notification.
  const bool modern = s->modern();
  if (modern) {  // flat, with its own result type
    auto created = task_json(rec, true);
    created["resultType"] = "task";
    s->reply(call.id(), std::move(created));
  } else {  // as reply(id, {"task": task_json(rec)}) writes it, without the objects
    std::string m;
    m.reserve(320 + rec.id.size() + rec.status_message.size());
    m += R"({"jsonrpc":"2.0","id":)";
    jsonrpc::append_id(m, call.id());
    m += R"(,"result":{"task":)";
    append_task_json(m, rec);
    m += "}}";
    s->send_final(call.id(), std::move(m));
  }
  call.become(std::make_shared<task_run>(shared_from_this(), rec.id, owner, modern));
  call.set_round(nullptr);  // a task's questions wait with it (tasks/update), not in a round
  if (call.done()) {        // an interceptor's timer (a deadline) ended it in between
    finish(rec.id, owner,
           {.status = task_status::failed,
            .status_message = "The call ended before its handler ran",
            .payload = error_payload(
                error{errc::internal_error, "the call ended before its handler ran"})});
    return false;
  }
  return true;
}

executor* tasks_feature::start_executor() const noexcept {
  // Creating a task in memory is cheap, and its answer then leaves with the reader's others.
  if (queue_ || in_memory_) return nullptr;
  return core_.opts.task_executor ? core_.opts.task_executor.get() : core_.exec.get();
}

bool tasks_feature::park(call_state& call) {
  const std::string id = task_id(call);
  {
    std::lock_guard lock(mu_);
    auto it = live_.find(id);
    if (it == live_.end()) return false;  // cancelled before it parked
    it->second.parked = call.self();
  }
  if (call.park()) return false;  // waits: the limit resumes it
  unpark(id);                     // let go meanwhile: it runs now
  return true;
}

void tasks_feature::unpark(const std::string& id) {
  std::shared_ptr<call_state> call;  // released outside the lock
  std::lock_guard lock(mu_);
  if (auto it = live_.find(id); it != live_.end()) {
    call = std::move(it->second.parked);
    it->second.queued = false;
  }
}

void tasks_feature::drop_parked() {
  stop_sharing();
  std::vector<std::shared_ptr<call_state>> calls;
  {
    std::lock_guard lock(mu_);
    for (auto& [id, live] : live_) {
      if (live.parked) calls.push_back(std::move(live.parked));
    }
  }
}

void tasks_feature::show_queued(task_record& t) {
  if (t.status != task_status::working || !t.status_message.empty()) return;
  std::lock_guard lock(mu_);
  if (auto it = live_.find(t.id); it != live_.end() && it->second.queued) {
    t.status_message = std::string(queued_message);
  }
}

void tasks_feature::follow(const std::string& id, std::string_view owner) {
  std::lock_guard lock(mu_);
  if (auto it = live_.find(id); it != live_.end() && it->second.owner == owner) {
    it->second.followed = true;
  }
}

void tasks_feature::recover() {
  std::call_once(recovered_, [this] {
    // A shared queue: leases, not a restart, decide what runs again. A store other processes
    // share: what is unfinished there may run elsewhere, so one starting must not fail it.
    if (share()) return;
    if (store_->shared_between_processes()) return;
    const std::string_view stopped = "The server stopped before the task finished";
    auto left = store_->unfinished();
    if (!left) {
      (void)store_->fail_unfinished(stopped);
      return;
    }
    for (const auto& t : *left) {
      if (run_stored(
              {.id = t.id, .owner = t.owner, .status = t.status, .rerun = t.rerun, .cut_off = true},
              nullptr)) {
        continue;
      }
      (void)store_->update(t.id, t.owner,
                           {.status = task_status::failed,
                            .status_message = std::string(stopped),
                            .payload = detail::unfinished_payload(stopped)});
    }
  });
}

std::optional<tasks_feature::live_task> tasks_feature::take_live(const std::string& id) {
  std::lock_guard lock(mu_);
  auto it = live_.find(id);
  if (it == live_.end()) return std::nullopt;
  live_task live = std::move(it->second);
  live_.erase(it);
  if (auto n = unfinished_per_owner_.find(live.owner); n != unfinished_per_owner_.end()) {
    if (--n->second == 0) unfinished_per_owner_.erase(n);
  }
  return live;
}

void tasks_feature::finish(const std::string& id, const std::string& owner, task_update u) {
  // The memory store keeps `u`'s payload (a tool's result) instead of a copy, and returns the
  // task without it when `u` won: tasks/result's answer is written from `u` before. For the
  // other stores `u` stays whole (the answer from memory below).
  std::string tail;
  if (in_memory_) tail = answer_tail(id, u.payload);
  auto stored = detail::update_task(*store_, id, owner, std::move(u));
  if (queue_) lease_done(id);
  auto live = take_live(id);
  if (!live) return;  // cancelled: the cancel answered the waiters
  drop_inputs(*live, "the task has ended");
  task_record rec;
  const bool kept = stored && *stored;
  if (kept) {
    rec = std::move(**stored);
  } else {  // the store failed (or the task expired): answer from memory
    rec.id = id;
    rec.status = u.status;
    rec.status_message = u.status_message;
    rec.payload = std::move(u.payload);
    rec.created_at = rec.last_updated_at = now_ms();
  }
  // The status, then the waiting results. The status notification (optional: requestors must
  // not rely on it) goes to the session that created the task only if its requestor asked about
  // the task (`followed`; one that has not learns the status from its first question) and no
  // tasks/result of that session waits now (the answer tells it the task ended).
  const auto s = live->session.lock();
  const bool told = s && std::any_of(live->waiters.begin(), live->waiters.end(), [&](auto& w) {
                      return !w->answered.load() && !w->cancelled() && w->session.lock() == s;
                    });
  // A terminal task's payload is never empty: an empty one is `u`'s, moved to the memory store
  // and written to `tail` (the answer from memory included).
  const bool moved = rec.payload.empty() && !tail.empty();
  announce(rec, told || !live->followed ? std::weak_ptr<server_session_impl>{} : live->session,
           moved);
  const bool keep = kept && live->waiters.empty() && s && !s->modern();
  if (live->waiters.empty() && !keep) return;
  if (!moved) tail = answer_tail(rec.id, rec.payload);
  answer_all(live->waiters, tail);
  // For its tasks/result, when a live 2025-11-25 session of this process asked for the task
  // (2026-07-28 tasks have none: tasks/get reads the store; a task run for another process is
  // fetched there).
  if (keep) keep_finished(rec, std::move(tail));
}

bool tasks_feature::set_input_state(const std::string& id, const std::string& owner,
                                    task_update u) {
  const auto to = u.status;
  auto stored = store_->update(id, owner, u);
  if (!stored || !*stored || (*stored)->status != to) return false;
  std::weak_ptr<server_session_impl> session;
  {
    std::lock_guard lock(mu_);
    // Announced to a requestor that asked about the task (a waiting tasks/result included).
    if (auto it = live_.find(id); it != live_.end() && it->second.followed) {
      session = it->second.session;
    }
  }
  announce(**stored, session);
  return true;
}

void tasks_feature::announce(const task_record& t,
                             const std::weak_ptr<server_session_impl>& session,
                             bool payload_moved) {
  if (payload_moved) {  // 2026-07-28 listeners
    listens_->task_changed(t, [this, &t] {
      auto full = store_->get(t.id, t.owner);
      return full && *full ? std::move(**full) : t;
    });
  } else {
    listens_->task_changed(t);
  }
  if (observer_) [[unlikely]] {
    observer_->on_task_status({}, to_string(t.status));
  }
  auto s = session.lock();
  if (!s || !s->initialized() || s->modern()) return;
  std::string m;
  m.reserve(320 + t.id.size() + t.status_message.size());
  m += R"({"jsonrpc":"2.0","method":"notifications/tasks/status","params":)";
  append_task_json(m, t);
  m += '}';
  s->send(std::move(m));
}

}  // namespace mcp::detail
