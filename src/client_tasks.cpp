// The client's task API: tools/call with a task, tasks/get, tasks/result, tasks/list,
// tasks/cancel, and waiting on status notifications (or pollInterval).
#include <mcp/client.hpp>

#include <cstdint>
#include <initializer_list>

#include "client_impl.hpp"

namespace mcp {

namespace {

/// True when `obj` holds objects along `path` and then the last key (of any value).
bool declares(const json::object& obj, std::initializer_list<std::string_view> path) {
  const json::object* o = &obj;
  std::size_t left = path.size();
  for (const auto key : path) {
    const auto* v = o->if_contains(key);
    if (v == nullptr) return false;
    if (--left == 0) return true;
    if (!v->is_object()) return false;
    o = &v->get_object();
  }
  return false;
}

error bad_task(const std::string& what) {
  return error{errc::invalid_params, "the server's Task object " + what};
}

}  // namespace

result<task_info> task_info::from_json(const json::object& task) {
  task_info t;
  const auto* id = task.if_contains("taskId");
  if (!id || !id->is_string()) return bad_task("has no string \"taskId\"");
  t.id = std::string(id->get_string());
  const auto* status = task.if_contains("status");
  if (!status || !status->is_string()) return bad_task("has no string \"status\"");
  auto s = task_status_from_string(status->get_string());
  if (!s) return bad_task("has an unknown status \"" + std::string(status->get_string()) + "\"");
  t.status = *s;
  auto text = [&](std::string_view key, std::string& out) {
    if (const auto* v = task.if_contains(key); v && v->is_string()) out = v->get_string();
  };
  text("statusMessage", t.status_message);
  text("createdAt", t.created_at);
  text("lastUpdatedAt", t.last_updated_at);
  auto integer = [&](std::string_view key, std::optional<std::int64_t>& out) {
    if (const auto* v = task.if_contains(key); v && v->is_int64()) out = v->get_int64();
  };
  integer("ttl", t.ttl_ms);
  integer("ttlMs", t.ttl_ms);
  integer("pollInterval", t.poll_interval_ms);
  integer("pollIntervalMs", t.poll_interval_ms);
  // A DetailedTask (2026-07-28) inlines what its status holds.
  auto object = [&](std::string_view key) -> const json::object* {
    const auto* v = task.if_contains(key);
    return v != nullptr && v->is_object() ? &v->get_object() : nullptr;
  };
  if (const auto* r = object("result")) t.call_result = *r;
  if (const auto* e = object("error")) t.failure = *e;
  if (const auto* q = object("inputRequests")) t.input_requests = *q;
  return t;
}

result<task_info> client_session::call_tool_as_task(std::string_view name, json::object arguments,
                                                    std::optional<std::chrono::milliseconds> ttl,
                                                    const request_options& opts) {
  if (impl_->modern.load()) {
    if (auto denied = denial(name, arguments, true)) return *denied;
    detail::outbound_options o;
    o.timeout = opts.timeout.count() > 0 ? opts.timeout : impl_->opts.timeout;
    o.on_progress = opts.on_progress;
    o.on_sent = opts.on_sent;
    return impl_->call_as_task_modern(name, std::move(arguments), o);
  }
  {
    std::lock_guard lock(impl_->mu);
    if (!declares(impl_->server_result, {"capabilities", "tasks", "requests", "tools", "call"})) {
      return error{
          errc::not_supported,
          "the server did not declare tasks.requests.tools.call: it runs no tool as a task"};
    }
  }
  if (auto denied = denial(name, arguments, true)) return *denied;
  const auto t0 = std::chrono::steady_clock::now();
  json::object task;
  if (ttl) task["ttl"] = ttl->count();
  auto r = request(
      "tools/call",
      json::object{{"name", name}, {"arguments", arguments}, {"task", std::move(task)}}, opts);
  if (!r) {
    impl_->audit(name, arguments, t0, "error", r.error().message);
    return r.error();
  }
  const auto* t = r->if_contains("task");
  if (!t || !t->is_object()) {
    impl_->audit(name, arguments, t0, "error", "the answer is not a CreateTaskResult");
    return error{errc::invalid_params, "not a CreateTaskResult"};
  }
  auto info = task_info::from_json(t->get_object());
  impl_->audit(name, arguments, t0, info ? "task" : "error",
               info ? "task " + info->id : info.error().message);
  if (info) {
    std::lock_guard lock(impl_->mu);
    impl_->task_tools.insert_or_assign(info->id, std::string(name));
  }
  return info;
}

result<task_info> client_session::get_task(std::string_view task_id) {
  auto r = impl_->modern.load() ? impl_->task_request("tasks/get", task_id)
                                : request("tasks/get", json::object{{"taskId", task_id}});
  if (!r) return r.error();
  return task_info::from_json(*r);
}

result<json::object> client_session::task_result(std::string_view task_id,
                                                 const request_options& opts) {
  result<json::object> r = error{errc::internal_error, "no result"};
  if (impl_->modern.load()) {
    auto t = impl_->wait_task_modern(task_id,
                                     opts.timeout.count() > 0 ? opts.timeout : impl_->opts.timeout);
    if (!t) return t.error();
    if (t->status == task_status::cancelled) {
      return error{errc::cancelled, "task " + std::string(task_id) + " was cancelled"};
    }
    if (t->failure) {
      const auto* code = t->failure->if_contains("code");
      const auto* message = t->failure->if_contains("message");
      error e{code != nullptr && code->is_int64() ? static_cast<int>(code->get_int64())
                                                  : static_cast<int>(errc::internal_error),
              message != nullptr && message->is_string()
                  ? std::string(message->get_string())
                  : "task " + std::string(task_id) + " failed"};
      if (const auto* d = t->failure->if_contains("data")) e.data = *d;
      return e;
    }
    if (!t->call_result) {
      return error{errc::invalid_params,
                   "task " + std::string(task_id) + " completed without a result"};
    }
    r = std::move(*t->call_result);
  } else {
    r = request("tasks/result", json::object{{"taskId", task_id}}, opts);
    // Its answer says the task ended (a server may then send no status notification to this
    // session): a wait_task on it asks again now.
    std::lock_guard lock(impl_->mu);
    ++impl_->tasks_ended;
    impl_->task_cv.notify_all();
  }
  if (!r) return r;
  std::string tool;
  {
    std::lock_guard lock(impl_->mu);
    if (auto it = impl_->task_tools.find(task_id); it != impl_->task_tools.end()) tool = it->second;
  }
  if (tool.empty()) return r;
  return impl_->checked_result(tool, std::move(*r));
}

result<std::vector<task_info>> client_session::list_all_tasks() {
  if (impl_->modern.load()) {
    return error{errc::not_supported,
                 "the tasks extension of 2026-07-28 has no tasks/list: keep the ids"};
  }
  auto listed = list_all("tasks/list", "tasks");
  if (!listed) return listed.error();
  std::vector<task_info> all;
  for (const auto& t : *listed) {
    auto info = task_info::from_json(t);
    if (!info) return info.error();
    all.push_back(std::move(*info));
  }
  return all;
}

result<task_info> client_session::cancel_task(std::string_view task_id) {
  if (impl_->modern.load()) {  // an acknowledgement: the task is read afterwards
    if (auto r = impl_->task_request("tasks/cancel", task_id); !r) return r.error();
    return get_task(task_id);
  }
  auto r = request("tasks/cancel", json::object{{"taskId", task_id}});
  if (!r) return r.error();
  return task_info::from_json(*r);
}

result<task_info> client_session::wait_task(std::string_view task_id,
                                            std::chrono::milliseconds timeout) {
  if (impl_->modern.load()) return impl_->wait_task_modern(task_id, timeout);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    std::uint64_t ended = 0;  // read first: a notification during get_task still wakes us
    {
      std::lock_guard lock(impl_->mu);
      ended = impl_->tasks_ended;
    }
    auto t = get_task(task_id);
    if (!t || is_terminal(t->status)) return t;
    const auto poll = std::chrono::milliseconds(t->poll_interval_ms.value_or(1000));
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      return error{errc::request_timeout, "task " + std::string(task_id) + " did not end in time"};
    }
    // Sleep until the poll interval passes, the deadline comes, or a status notification says
    // a task ended (then ask again whether it was this one).
    std::unique_lock lock(impl_->mu);
    impl_->task_cv.wait_until(lock, std::min(deadline, now + poll),
                              [&] { return impl_->tasks_ended != ended; });
  }
}

}  // namespace mcp
