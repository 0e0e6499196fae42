// Tasks over a store several processes share (see tasks.hpp): the store's pushed changes end
// here a task that ended or was cancelled elsewhere (tasks/result answered without polling,
// tasks/cancel stopping the call where it runs), and with a store that is a `task_queue`
// (mcp/task_queue.hpp) every task is queued there once accepted, and this process's
// `queue_runner` takes queued tasks and runs them, at most `task_queue::workers()` at once,
// renewing their leases while they run. A stored task runs here from its stored call
// (`run_stored`): taken from the queue, or again after a restart (recover).
#include <mcp/executor.hpp>
#include <mcp/task_queue.hpp>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "detail/call_state.hpp"
#include "detail/task_store_common.hpp"
#include "listen.hpp"
#include "server_core.hpp"
#include "server_session.hpp"
#include "tasks.hpp"

namespace mcp::detail {

namespace {

constexpr std::string_view related_task_key = "io.modelcontextprotocol/related-task";
constexpr std::string_view node_lost =
    "The server process running the task was lost before it finished (the tool does not allow "
    "running it again)";

/// The task id in call `c`'s `_meta` (tasks_feature::mark), or empty.
std::string marked_task(const call_state& c) {
  if (const auto* r = c.meta().if_contains(related_task_key); r && r->is_object()) {
    if (const auto* id = r->get_object().if_contains("taskId"); id && id->is_string()) {
      return std::string(id->get_string());
    }
  }
  return {};
}

}  // namespace

/// This process's workers: one thread takes queued tasks while fewer than `workers()` run here
/// (each runs on the handler executor), and renews the leases of those running every third of
/// a lease.
class queue_runner {
 public:
  queue_runner(tasks_feature& f, std::shared_ptr<task_queue> q) : f_(f), q_(std::move(q)) {}
  queue_runner(const queue_runner&) = delete;
  queue_runner& operator=(const queue_runner&) = delete;
  ~queue_runner() { stop(); }

  void start() {
    thread_ = std::thread([this] {
      for (;;) {  // no exception leaves this thread: the loop starts again after a pause
        try {
          loop();
          break;
        } catch (const std::exception&) {
          std::unique_lock lock(mu_);
          cv_.wait_for(lock, std::chrono::milliseconds(200), [&] { return stopped_; });
        }
      }
      left_.store(true);
    });
  }
  void stop() {
    {
      std::lock_guard lock(mu_);
      if (stopped_) return;
      stopped_ = true;
    }
    cv_.notify_all();
    if (!thread_.joinable()) return;
    // A take that started after one interrupt would wait out its timeout: interrupt until the
    // thread has left its loop.
    while (!left_.load()) {
      q_->interrupt();
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    thread_.join();
  }
  /// The outcome of task `id` is stored: its lease ends, if this process holds it.
  void done(const std::string& id) {
    {
      std::lock_guard lock(mu_);
      if (held_.erase(id) == 0) return;
    }
    (void)q_->release(id);
  }
  /// A call started by `run_taken` released its worker (call_state::on_release).
  static void slot_freed(void* self, std::uint64_t /*arg*/) {
    auto* r = static_cast<queue_runner*>(self);
    {
      std::lock_guard lock(r->mu_);
      --r->running_;
    }
    r->cv_.notify_all();
  }
  /// The call of task `id` holds a worker until `slot_freed`.
  void occupy() {
    std::lock_guard lock(mu_);
    ++running_;
  }

 private:
  void loop() {
    const auto period = std::max(q_->lease() / 3, std::chrono::milliseconds(10));
    auto renew_at = std::chrono::steady_clock::now() + period;
    for (;;) {
      std::vector<std::string> renew;
      bool free = false;
      {
        std::unique_lock lock(mu_);
        cv_.wait_until(lock, renew_at, [&] { return stopped_ || running_ < q_->workers(); });
        if (stopped_) return;
        free = running_ < q_->workers();
        if (std::chrono::steady_clock::now() >= renew_at) {
          renew.assign(held_.begin(), held_.end());
          renew_at = std::chrono::steady_clock::now() + period;
        }
      }
      if (!renew.empty()) (void)q_->renew(renew);
      if (!free) continue;
      const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(
          renew_at - std::chrono::steady_clock::now());
      auto got = q_->take(std::max(wait, std::chrono::milliseconds(1)));
      if (!got) {  // the storage is unreachable: try again a little later
        std::unique_lock lock(mu_);
        cv_.wait_for(lock, std::chrono::milliseconds(200), [&] { return stopped_; });
        continue;
      }
      if (!*got) continue;
      {
        std::lock_guard lock(mu_);
        held_.insert((*got)->id);
      }
      bool running = false;
      try {
        running = f_.run_taken(**got);
      } catch (const std::exception&) {  // never past this thread: the lease is given back
      }
      if (!running) done((*got)->id);
    }
  }

  tasks_feature& f_;
  std::shared_ptr<task_queue> q_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::size_t running_ = 0;     ///< calls started here and not yet released
  std::set<std::string> held_;  ///< leases this process holds
  bool stopped_ = false;
  std::atomic<bool> left_{false};  ///< the thread left `loop`
  std::thread thread_;
};

bool tasks_feature::share() {
  std::weak_ptr<tasks_feature> weak = weak_from_this();
  changes_ = make_thread_pool(thread_pool_options{
      .threads = 1, .max_threads = 16, .idle_timeout = std::chrono::seconds(10)});
  watch_ = store_->watch([weak](std::string_view id) {
    auto f = weak.lock();
    if (!f) return;
    // Changes may have been missed: every task waited for here is looked at (many reads).
    if (id.empty()) {
      return f->changes_->post([weak] {
        if (auto g = weak.lock()) g->remote_change({});
      });
    }
    f->pushed_change(id);
  });
  pushed_.store(watch_ != nullptr);
  if (!queue_) return false;
  runner_ = std::make_shared<queue_runner>(*this, queue_);
  runner_->start();
  return true;
}

void tasks_feature::stop_sharing() {
  if (runner_) runner_->stop();
  pushed_.store(false);
  watch_.reset();
}

void tasks_feature::lease_done(const std::string& id) {
  if (runner_) runner_->done(id);
}

bool tasks_feature::enqueue(call_state& call) {
  if (!queue_) return false;
  const std::string id = marked_task(call);
  std::string owner;
  {
    std::lock_guard lock(mu_);
    auto it = live_.find(id);
    if (it == live_.end()) return true;  // ended already (cancelled)
    owner = it->second.owner;
    it->second.queued = false;  // the store's status message says it is queued
  }
  if (auto pushed = queue_->push(id); !pushed) {
    const std::string why = "The task could not be queued: " + pushed.error().message;
    finish(
        id, owner,
        {.status = task_status::failed, .status_message = why, .payload = unfinished_payload(why)});
    return true;
  }
  // Without the store's pushes nothing would tell this process that another one finished it:
  // its tasks/result then waits as for any task run elsewhere (watch_foreign).
  if (!pushed_.load()) (void)take_live(id);
  return true;  // dropped here: the worker that takes it builds its call from the store
}

bool tasks_feature::run_taken(const queued_task& q) {
  auto started = run_stored(
      {.id = q.id, .owner = q.owner, .status = q.status, .rerun = q.rerun, .cut_off = q.taken_over},
      runner_.get());
  if (started) return *started;
  const auto& why = started.error().message;
  auto stored = store_->update(
      q.id, q.owner,
      {.status = task_status::failed, .status_message = why, .payload = unfinished_payload(why)});
  if (stored && *stored) remote_change(q.id);  // answers waiters of this process, if any
  return false;
}

result<bool> tasks_feature::run_stored(const stored_call& t, queue_runner* runner) {
  const auto cannot = [](std::string why) { return error{errc::internal_error, std::move(why)}; };
  const auto* params = t.rerun.if_contains("params");
  const auto* caller = t.rerun.if_contains("caller");
  const json::object* p = params != nullptr ? params->if_object() : nullptr;
  const auto* name = p != nullptr ? p->if_contains("name") : nullptr;
  const auto* args = p != nullptr ? p->if_contains("arguments") : nullptr;
  if (caller == nullptr || !caller->is_object() || name == nullptr || !name->is_string() ||
      args == nullptr || !args->is_object()) {
    return cannot("The task cannot run: what its call asked was not stored");
  }
  auto entry = core_.tools->find(name->get_string());
  if (!entry) {
    return cannot("The task cannot run: this server has no tool \"" +
                  std::string(name->get_string()) + "\"");
  }
  if (t.cut_off && !entry->spec.rerun_after_restart) {
    return cannot(std::string(node_lost));  // (a restart fails it with its own message)
  }
  if (t.status == task_status::input_required) {  // it starts over, so it is working
    auto again = store_->update(t.id, t.owner, {.status = task_status::working});
    if (!again || !*again || is_terminal((*again)->status)) return false;  // ended meanwhile
  }
  json::object meta;
  if (const auto* m = p->if_contains("_meta"); m && m->is_object()) meta = m->get_object();
  mark(meta, t.id);
  // Accepted here: its session (if it lives) gets its notifications and carries its requests.
  std::weak_ptr<server_session_impl> session;
  {
    std::lock_guard lock(mu_);
    if (auto it = live_.find(t.id); it != live_.end()) session = it->second.session;
  }
  // The era it was asked in (stored with it: the session that asked may be elsewhere).
  const auto* era = t.rerun.if_contains("modern");
  const bool modern = era != nullptr && era->is_bool() && era->get_bool();
  auto call = std::make_shared<call_state>(
      session, make_task_run(shared_from_this(), t.id, t.owner, modern),
      jsonrpc::request_id{(runner != nullptr ? "queue:" : "rerun:") + t.id}, std::move(entry),
      json::value(args->get_object()), std::move(meta),
      std::make_shared<const principal>(principal_from_json(caller->get_object())),
      core_.pipeline());
  call->admitted_earlier = true;
  if (runner != nullptr) {
    runner->occupy();
    call->on_release(&queue_runner::slot_freed, runner, 0);
  }
  {
    std::lock_guard lock(mu_);
    auto it = live_.find(t.id);
    if (it != live_.end()) {
      it->second.call = call;
    } else {
      ++unfinished_per_owner_[t.owner];
      live_[t.id] = live_task{call, {}, t.owner, {}};
    }
  }
  core_.tools->run(call);
  return true;
}

void tasks_feature::remote_change(const std::string& id) {
  if (id.empty()) {  // changes may have been missed: look at every task waited for here
    std::vector<std::string> ids;
    {
      std::lock_guard lock(mu_);
      for (const auto& [k, live] : live_) ids.push_back(k);
      for (const auto& [k, waiting] : foreign_) ids.push_back(k);
    }
    for (const auto& k : ids) {
      if (!k.empty()) remote_change(k);
    }
    return;
  }
  std::string owner;
  {
    std::lock_guard lock(mu_);
    if (auto it = live_.find(id); it != live_.end()) {
      owner = it->second.owner;
    } else if (auto f = foreign_.find(id); f != foreign_.end()) {
      owner = f->second.first;
    } else {
      return;  // nothing here waits for it
    }
  }
  auto t = store_->get(id, owner);
  if (!t || (*t && !is_terminal((**t).status))) return;
  std::vector<std::shared_ptr<result_waiter>> waiting;
  {
    std::lock_guard lock(mu_);
    if (auto f = foreign_.find(id); f != foreign_.end()) {
      waiting = std::move(f->second.second);
      foreign_.erase(f);
    }
  }
  if (!*t) {  // expired or deleted
    for (const auto& w : waiting) {
      auto s = w->session.lock();
      if (s && !w->answered.exchange(true) && s->untrack(*w)) {
        s->reply_error(w->id(), invalid_params("Task not found: \"" + id +
                                               "\" (unknown, expired, or not yours)"));
      }
    }
    return;
  }
  if (auto live = take_live(id)) {  // it ended elsewhere (or was cancelled from elsewhere)
    if (auto call = live->call.lock()) call->stop_source().request_stop();
    drop_inputs(*live, "the task has ended");
    announce(**t, live->session);
    answer_all(live->waiters, **t);
  }
  answer_all(waiting, **t);
}

void tasks_feature::pushed_change(std::string_view id) {
  // On the store's own thread (Redis: the subscriber's, which carries every push of the
  // store): only lookups in memory here. A change nobody here waits or listens for ends here;
  // the rest is read and acted on on `changes_`.
  const std::string key(id);
  const bool listened = !listens_->task_listeners(id).empty();
  {
    std::lock_guard lock(mu_);
    if (!listened && !live_.contains(key) && !foreign_.contains(key)) return;
    auto [it, added] = pushing_.try_emplace(key, false);
    if (!added) {  // being handled: once more after
      it->second = true;
      return;
    }
  }
  changes_->post([weak = weak_from_this(), key] {
    if (auto f = weak.lock()) f->changed_here(key);
  });
}

void tasks_feature::changed_here(const std::string& id) {
  for (;;) {
    try {
      bool waited = false;
      {
        std::lock_guard lock(mu_);
        waited = live_.contains(id) || foreign_.contains(id);
      }
      if (waited) remote_change(id);
      // 2026-07-28 listens naming the task, wherever it runs (a listen that heard this change
      // from the process running it is not told twice: listen_feature keeps what it sent).
      for (const auto& owner : listens_->task_listeners(id)) {
        auto t = store_->get(id, owner);
        if (t && *t) listens_->task_changed(**t);
      }
    } catch (const std::exception&) {  // never past the executor; the next push looks again
    }
    std::lock_guard lock(mu_);
    auto it = pushing_.find(id);
    if (it == pushing_.end()) return;
    if (!it->second) {
      pushing_.erase(it);
      return;
    }
    it->second = false;
  }
}

bool tasks_feature::await_pushed(const std::shared_ptr<result_waiter>& w,
                                 const std::string& owner) {
  if (!pushed_.load()) return false;
  {
    std::lock_guard lock(mu_);
    auto& [who, waiters] = foreign_[w->task_id];
    who = owner;
    std::erase_if(waiters, [](const auto& x) { return x->answered.load() || x->cancelled(); });
    waiters.push_back(w);
  }
  remote_change(w->task_id);  // it may have ended before the waiter was registered
  return true;
}

}  // namespace mcp::detail
