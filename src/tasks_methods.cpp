// The 2025-11-25 tasks/* methods: tasks/get, tasks/result (waiting for a task that runs here or,
// polling the store, in another process), tasks/list and tasks/cancel (see tasks.hpp).
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

error not_found(const std::string& id) {
  return invalid_params("Task not found: \"" + id + "\" (unknown, expired, or not yours)");
}

/// About the bytes `v` holds: its strings and keys, and a fixed cost per value (a loop over an
/// explicit stack: no recursion however deep the value is).
std::size_t approx_bytes(const json::value& v) {
  constexpr std::size_t per_value = sizeof(json::value);
  std::size_t bytes = 0;
  std::vector<const json::value*> todo{&v};
  while (!todo.empty()) {
    const auto* x = todo.back();
    todo.pop_back();
    bytes += per_value;
    if (const auto* s = x->if_string()) {
      bytes += s->size();
    } else if (const auto* a = x->if_array()) {
      for (const auto& e : *a) todo.push_back(&e);
    } else if (const auto* o = x->if_object()) {
      for (const auto& [k, e] : *o) {
        bytes += k.size();
        todo.push_back(&e);
      }
    }
  }
  return bytes;
}

std::size_t approx_bytes(const task_record& t) {
  std::size_t bytes = sizeof(task_record) + t.id.size() + t.owner.size() + t.status_message.size() +
                      t.method.size();
  for (const auto* o : {&t.payload, &t.input_request, &t.input_response}) {
    for (const auto& [k, e] : *o) bytes += k.size() + approx_bytes(e);
  }
  return bytes;
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

void tasks_feature::keep_finished(task_record&& t) {
  const std::size_t bytes = approx_bytes(t);
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
  std::string id = t.id;
  finished_.emplace(std::move(id), kept_task{std::move(t), bytes});
}

std::optional<task_record> tasks_feature::take_finished(const jsonrpc::request& req,
                                                        std::string_view owner) {
  const auto* id = req.params.if_contains("taskId");
  if (!id || !id->is_string()) return std::nullopt;
  std::optional<task_record> t;
  {
    std::lock_guard lock(mu_);
    auto it = finished_.find(std::string(id->get_string()));
    if (it == finished_.end() || it->second.rec.owner != owner) return std::nullopt;
    t = std::move(it->second.rec);
    finished_bytes_ -= it->second.bytes;
    finished_.erase(it);
  }
  if (t->expired(std::chrono::system_clock::now())) return std::nullopt;  // the store tells
  return t;
}

void tasks_feature::get_result(server_session_impl& s, jsonrpc::request&& req) {
  auto kept = take_finished(req, s.task_owner());
  auto t = kept ? result<task_record>(std::move(*kept)) : lookup(s, req);
  if (!t) return s.reply_error(req.id, t.error());
  const std::string owner = s.task_owner();
  const std::string id = t->id;
  auto w = std::make_shared<result_waiter>(req.id, s.self(), id);
  if (!s.track(w)) return;
  if (is_terminal(t->status)) return answer(w, *t, true);
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
  if (again && *again && is_terminal((*again)->status)) answer(w, **again, true);
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
  if (is_terminal((*t)->status)) return answer(w, **t, true);
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
                               task_record& t) {
  for (std::size_t i = 0; i < waiters.size(); ++i) answer(waiters[i], t, i + 1 == waiters.size());
}

void tasks_feature::answer(const std::shared_ptr<result_waiter>& w, task_record& t, bool take) {
  if (w->answered.exchange(true)) return;
  auto s = w->session.lock();
  if (!s || !s->untrack(*w)) return;  // the request was cancelled or its session ended
  if (auto* r = t.payload.if_contains("result"); r && r->is_object()) {
    return s->reply(w->id(), take ? json::value(std::move(*r)) : *r);
  }
  if (const auto* e = t.payload.if_contains("error"); e && e->is_object()) {
    const auto& eo = e->get_object();
    const auto* code = eo.if_contains("code");
    const auto* msg = eo.if_contains("message");
    error err{code && code->is_int64() ? static_cast<int>(code->get_int64())
                                       : static_cast<int>(errc::internal_error),
              msg && msg->is_string() ? std::string(msg->get_string()) : "the task failed"};
    if (const auto* d = eo.if_contains("data")) err.data = *d;
    return s->reply_error(w->id(), err);
  }
  s->reply_error(w->id(), error{errc::internal_error, "Task \"" + t.id + "\" has no result"});
}

}  // namespace mcp::detail
