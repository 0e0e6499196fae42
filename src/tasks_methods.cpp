// The 2025-11-25 tasks/* methods: tasks/get, tasks/result (waiting for a task that runs here or,
// polling the store, in another process), tasks/list and tasks/cancel (see tasks.hpp).
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "detail/call_state.hpp"
#include "detail/timer.hpp"
#include "server_core.hpp"
#include "server_session.hpp"
#include "tasks.hpp"

namespace mcp::detail {

namespace {

/// `params.taskId` as a string, or the -32602 to answer.
result<std::string> task_id_of(const jsonrpc::request& req) {
  const auto* id = req.params.if_contains("taskId");
  if (!id || !id->is_string()) return invalid_params(req.method + " needs a string \"taskId\"");
  return std::string(id->get_string());
}

/// The answer to request `id` whose text after the id is `tail` (tasks_feature::answer_tail).
void send_answer(server_session_impl& s, const jsonrpc::request_id& id, std::string_view tail) {
  std::string m;
  m.reserve(32 + tail.size());
  m += R"({"jsonrpc":"2.0","id":)";
  jsonrpc::append_id(m, id);
  m += tail;
  s.send_final(id, std::move(m));
}

error not_found(const std::string& id) {
  return invalid_params("Task not found: \"" + id + "\" (unknown, expired, or not yours)");
}

}  // namespace

result<task_record> tasks_feature::lookup(server_session_impl& s, const jsonrpc::request& req) {
  auto id = task_id_of(req);
  if (!id) return id.error();
  follow(*id, s.task_owner());  // before the read: a change after it is announced
  auto t = store_->get(*id, s.task_owner());
  if (!t) return error{errc::internal_error, t.error().message};
  if (!*t) return not_found(*id);
  show_queued(**t);
  return std::move(**t);
}

void tasks_feature::get(server_session_impl& s, jsonrpc::request&& req) {
  auto t = lookup(s, req);
  if (!t) return s.reply_error(req.id, t.error());
  s.reply(req.id, task_json(*t));
}

void tasks_feature::keep_finished(const task_record& t, std::string tail) {
  kept_task k{.tail = std::move(tail), .owner = t.owner, .expires_at = std::nullopt};
  if (t.ttl) k.expires_at = t.created_at + *t.ttl;
  const std::size_t bytes = k.bytes =
      k.tail.size() + t.id.size() + t.owner.size() + sizeof(kept_task);
  if (bytes > max_finished_bytes) return;
  std::lock_guard lock(mu_);
  // Oldest first; ids taken meanwhile (take_finished) are gone from finished_: no-ops.
  while (!finished_order_.empty() &&
         (finished_order_.size() >= max_finished || finished_bytes_ + bytes > max_finished_bytes)) {
    if (auto it = finished_.find(finished_order_.front()); it != finished_.end()) {
      finished_bytes_ -= it->second.bytes;
      finished_.erase(it);
    }
    finished_order_.pop_front();
  }
  if (auto old = finished_.find(t.id); old != finished_.end()) {
    finished_bytes_ -= old->second.bytes;
    finished_.erase(old);
  }
  finished_order_.push_back(t.id);
  finished_bytes_ += bytes;
  finished_.emplace(t.id, std::move(k));
}

std::optional<tasks_feature::kept_task> tasks_feature::take_finished(const jsonrpc::request& req,
                                                                     std::string_view owner) {
  const auto* id = req.params.if_contains("taskId");
  if (!id || !id->is_string()) return std::nullopt;
  std::optional<kept_task> t;
  {
    std::lock_guard lock(mu_);
    auto it = finished_.find(std::string(id->get_string()));
    if (it == finished_.end() || it->second.owner != owner) return std::nullopt;
    finished_bytes_ -= it->second.bytes;
    t = std::move(it->second);
    finished_.erase(it);
  }
  // Expired: the store tells (not found).
  if (t->expires_at && std::chrono::system_clock::now() >= *t->expires_at) return std::nullopt;
  return t;
}

void tasks_feature::get_result(server_session_impl& s, jsonrpc::request&& req) {
  // Ended here a moment ago (the usual case): its answer is written already.
  if (auto kept = take_finished(req, s.task_owner())) return send_answer(s, req.id, kept->tail);
  if (await_live(s, req)) return;
  auto t = lookup(s, req);
  if (!t) return s.reply_error(req.id, t.error());
  const std::string owner = s.task_owner();
  const std::string id = t->id;
  auto w = std::make_shared<result_waiter>(req.id, s.self(), id);
  if (!s.track(w)) return;
  if (is_terminal(t->status)) return answer(w, *t);
  bool running_here = false;
  {
    std::lock_guard lock(mu_);
    if (auto it = live_.find(id); it != live_.end()) {
      std::erase_if(it->second.waiters, [](const auto& x) { return x->answered.load(); });
      it->second.waiters.push_back(w);
      it->second.followed = true;
      running_here = true;
    }
  }
  if (running_here) waiter_added_.notify_all();
  if (!running_here) return watch_foreign(std::move(w), owner);
  // The task may have ended between the read and the registration: read once more.
  auto again = store_->get(id, owner);
  if (again && *again && is_terminal((*again)->status)) answer(w, **again);
}

bool tasks_feature::await_live(server_session_impl& s, const jsonrpc::request& req) {
  const auto* id = req.params.if_contains("taskId");
  if (!id || !id->is_string()) return false;
  const std::string task_id(id->get_string());
  const std::string owner = s.task_owner();
  const auto now = std::chrono::system_clock::now();
  const auto running = [&] {  // with mu_ held: its live_ entry, or nullptr
    auto it = live_.find(task_id);
    return it != live_.end() && it->second.owner == owner && it->second.expires_at &&
                   now < *it->second.expires_at
               ? &it->second
               : nullptr;
  };
  {
    std::lock_guard lock(mu_);
    if (running() == nullptr) return false;
  }
  auto w = std::make_shared<result_waiter>(req.id, s.self(), task_id);
  if (!s.track(w)) return true;
  {
    std::lock_guard lock(mu_);
    if (auto* live = running()) {  // its end (take_live, then the waiters) answers
      std::erase_if(live->waiters, [](const auto& x) { return x->answered.load(); });
      live->waiters.push_back(w);
      live->followed = true;
      w.reset();
    }
  }
  if (w) {  // ended meanwhile: the path that reads the store answers
    (void)s.untrack(*w);
    return false;
  }
  waiter_added_.notify_all();
  return true;
}

std::shared_ptr<result_waiter> tasks_feature::await_waiter(const std::string& id,
                                                           std::chrono::milliseconds timeout,
                                                           std::stop_token stop) {
  std::unique_lock lock(mu_);
  std::shared_ptr<result_waiter> found;
  waiter_added_.wait_for(lock, stop, timeout, [&] {
    auto it = live_.find(id);
    if (it == live_.end()) return true;  // the task ended
    for (const auto& w : it->second.waiters) {
      if (!w->answered.load() && !w->cancelled()) {
        found = w;
        return true;
      }
    }
    return false;
  });
  return found;
}

std::shared_ptr<result_waiter> tasks_feature::first_waiter(const std::string& id) {
  std::lock_guard lock(mu_);
  auto it = live_.find(id);
  if (it == live_.end()) return nullptr;
  for (const auto& w : it->second.waiters) {
    if (!w->answered.load() && !w->cancelled()) return w;
  }
  return nullptr;
}

void tasks_feature::watch_foreign(std::shared_ptr<result_waiter> w, std::string owner) {
  if (await_pushed(w, owner)) return;  // the store pushes changes: no polling
  auto t = store_->get(w->task_id, owner);
  if (!t || !*t) {
    auto s = w->session.lock();
    if (s && !w->answered.exchange(true) && s->untrack(*w)) {
      s->reply_error(w->id(),
                     t ? not_found(w->task_id) : error{errc::internal_error, t.error().message});
    }
    return;
  }
  if (is_terminal((*t)->status)) return answer(w, **t);
  if (w->cancelled() || w->session.expired()) return;
  std::weak_ptr<tasks_feature> self = weak_from_this();
  schedule_timer(clock::now() + core_.opts.task_poll_interval,
                 [self, w = std::move(w), owner = std::move(owner)]() mutable {
                   if (auto f = self.lock()) {
                     f->core_.exec->post([f, w = std::move(w), owner = std::move(owner)] {
                       f->watch_foreign(w, owner);
                     });
                   }
                 });
}

void tasks_feature::list(server_session_impl& s, jsonrpc::request&& req) {
  if (s.shared_task_owner()) {
    return s.reply_error(req.id, error{errc::method_not_found,
                                       "tasks/list is not offered: callers are not told apart "
                                       "here, so a list would show other callers' tasks"});
  }
  std::string cursor;
  if (const auto* c = req.params.if_contains("cursor"); c && !c->is_null()) {
    if (!c->is_string()) return s.reply_error(req.id, invalid_params("cursor must be a string"));
    cursor = std::string(c->get_string());
  }
  auto page = store_->list(s.task_owner(), cursor, core_.opts.page_size);
  if (!page) return s.reply_error(req.id, page.error());
  json::array tasks;
  tasks.reserve(page->tasks.size());
  for (auto& t : page->tasks) {
    show_queued(t);
    tasks.push_back(task_json(t));
  }
  json::object out{{"tasks", std::move(tasks)}};
  if (!page->next_cursor.empty()) out["nextCursor"] = page->next_cursor;
  s.reply(req.id, out);
}

void tasks_feature::cancel(server_session_impl& s, jsonrpc::request&& req) {
  auto t = lookup(s, req);
  if (!t) return s.reply_error(req.id, t.error());
  const std::string owner = s.task_owner();
  const std::string* id = &t->id;
  const auto refuse_terminal = [&](const task_record& r) {
    s.reply_error(req.id,
                  invalid_params("Task \"" + *id + "\" is already " +
                                 std::string(to_string(r.status)) + " and cannot be cancelled"));
  };
  if (is_terminal(t->status)) return refuse_terminal(*t);
  auto stored = store_->update(*id, owner, cancelled_task(*id, "Cancelled by the requestor"));
  if (!stored) return s.reply_error(req.id, error{errc::internal_error, stored.error().message});
  if (!*stored) return s.reply_error(req.id, not_found(*id));
  if ((*stored)->status != task_status::cancelled) return refuse_terminal(**stored);
  auto live = take_live(*id);
  if (live) {
    if (auto call = live->call.lock()) call->stop_source().request_stop();
  }
  s.reply(req.id, task_json(**stored));  // cancelled before the answer, as the spec asks
  if (!live) return announce(**stored, s.self());
  announce(**stored, live->session);
  answer_all(live->waiters, **stored);
}

void tasks_feature::answer_all(const std::vector<std::shared_ptr<result_waiter>>& waiters,
                               const task_record& t) {
  if (!waiters.empty()) answer_all(waiters, answer_tail(t.id, t.payload));
}

void tasks_feature::answer_all(const std::vector<std::shared_ptr<result_waiter>>& waiters,
                               std::string_view tail) {
  for (const auto& w : waiters) answer(w, tail);
}

void tasks_feature::answer(const std::shared_ptr<result_waiter>& w, const task_record& t) {
  answer(w, answer_tail(t.id, t.payload));
}

void tasks_feature::answer(const std::shared_ptr<result_waiter>& w, std::string_view tail) {
  if (w->answered.exchange(true)) return;
  auto s = w->session.lock();
  if (!s || !s->untrack(*w)) return;  // the request was cancelled or its session ended
  send_answer(*s, w->id(), tail);
}

std::string tasks_feature::answer_tail(std::string_view id, const json::object& payload) {
  // tasks/result is a 2025-11-25 method: its answers carry no 2026-07-28 result fields.
  if (const auto* r = payload.if_contains("result"); r && r->is_object()) {
    std::string out;
    out.reserve(256);  // most results: one allocation
    out += R"(,"result":)";
    append_json(out, *r);
    out += '}';
    return out;
  }
  error err{errc::internal_error, "Task \"" + std::string(id) + "\" has no result"};
  if (const auto* e = payload.if_contains("error"); e && e->is_object()) {
    const auto& eo = e->get_object();
    const auto* code = eo.if_contains("code");
    const auto* msg = eo.if_contains("message");
    err = error{code && code->is_int64() ? static_cast<int>(code->get_int64())
                                         : static_cast<int>(errc::internal_error),
                msg && msg->is_string() ? std::string(msg->get_string()) : "the task failed"};
    if (const auto* d = eo.if_contains("data")) err.data = *d;
  }
  // The error member as jsonrpc::encode_error writes it, without the id.
  std::string out = jsonrpc::encode_error(std::nullopt, err);
  constexpr std::string_view head = R"({"jsonrpc":"2.0",)";
  out.replace(0, head.size(), ",");
  return out;
}

}  // namespace mcp::detail
