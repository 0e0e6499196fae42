// The client's side of the tasks extension of 2026-07-28 (io.modelcontextprotocol/tasks): a
// tools/call declaring the extension that the server answers with a task (resultType "task", a
// flat Task), tasks/get (the result, the error or the questions inlined), tasks/update (the
// questions answered through the client's handlers), tasks/cancel (an acknowledgement).
#include <mcp/client.hpp>

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <set>
#include <string>

#include "client_impl.hpp"

namespace mcp {

namespace {

constexpr std::string_view tasks_extension = "io.modelcontextprotocol/tasks";

/// A question of an input_required task as it is remembered: its key and its request.
std::string question(std::string_view key, const json::value& request) {
  std::string out(key);
  out += '\n';
  out += json::serialize(request);
  return out;
}

/// How long to wait between two tasks/get when the server suggests nothing.
constexpr std::chrono::milliseconds default_poll{500};

}  // namespace

bool client_session::impl::server_offers_tasks_extension() {
  std::lock_guard lock(mu);
  const auto* caps = server_result.if_contains("capabilities");
  const auto* ext =
      caps != nullptr && caps->is_object() ? caps->get_object().if_contains("extensions") : nullptr;
  return ext != nullptr && ext->is_object() && ext->get_object().contains(tasks_extension);
}

result<json::object> client_session::impl::task_request(std::string_view method,
                                                        std::string_view task_id,
                                                        json::object extra) {
  extra["taskId"] = task_id;
  detail::outbound_options o;
  o.timeout = opts.timeout;
  return send_request(method, std::move(extra), std::move(o), true);
}

result<task_info> client_session::impl::call_as_task_modern(std::string_view name,
                                                            json::object arguments,
                                                            const detail::outbound_options& o) {
  if (!server_offers_tasks_extension()) {
    return error{errc::not_supported,
                 "the server did not declare the tasks extension (io.modelcontextprotocol/tasks): "
                 "it runs no tool as a task"};
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto r =
      send_request("tools/call", json::object{{"name", name}, {"arguments", arguments}}, o, true);
  if (!r) {
    audit(name, arguments, t0, "error", r.error().message);
    return r.error();
  }
  const auto* type = r->if_contains("resultType");
  if (type == nullptr || *type != "task") {
    // The server chose to answer at once: the result, with no task to ask about.
    auto checked = checked_result(name, std::move(*r));
    if (!checked) {
      audit(name, arguments, t0, "error", checked.error().message);
      return checked.error();
    }
    audit(name, arguments, t0, "ok", {});
    task_info done;
    done.status = task_status::completed;
    done.call_result = std::move(*checked);
    return done;
  }
  auto info = task_info::from_json(*r);
  audit(name, arguments, t0, info ? "task" : "error",
        info ? "task " + info->id : info.error().message);
  if (info) {
    std::lock_guard lock(mu);
    task_tools.insert_or_assign(info->id, std::string(name));
  }
  return info;
}

result<task_info> client_session::impl::wait_task_modern(std::string_view task_id,
                                                         std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  // The questions answered already (key and request): one still listed is not asked again.
  std::set<std::string, std::less<>> answered;
  // notifications/tasks on the listen wakes the wait below before its poll.
  listen_for_task(task_id, std::min(timeout, opts.timeout));
  struct unlisten {
    impl* self;
    std::string_view id;
    ~unlisten() {
      try {
        self->unlisten_task(id);
      } catch (...) {  // a destructor must not throw; the listen then ends with the client
      }
    }
  } const done{this, task_id};
  for (;;) {
    std::uint64_t ended = 0;  // read first: a notification during tasks/get still wakes us
    {
      std::lock_guard lock(mu);
      ended = tasks_ended;
    }
    auto got = task_request("tasks/get", task_id);
    if (!got) return got.error();
    auto t = task_info::from_json(*got);
    if (!t || is_terminal(t->status)) return t;
    json::object fresh;
    if (t->status == task_status::input_required) {
      for (const auto& [key, request] : t->input_requests) {
        if (!answered.contains(question(key, request))) fresh.emplace(key, request);
      }
    }
    if (!fresh.empty()) {
      auto answers = answer_inputs(fresh);
      if (!answers) return answers.error();
      for (const auto& [key, request] : fresh) answered.insert(question(key, request));
      auto updated =
          task_request("tasks/update", task_id, json::object{{"inputResponses", *answers}});
      if (!updated) return updated.error();
      continue;  // look again at once: the answers may have ended it
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      return error{errc::request_timeout, "task " + std::string(task_id) + " did not end in time"};
    }
    const auto poll =
        t->poll_interval_ms ? std::chrono::milliseconds(*t->poll_interval_ms) : default_poll;
    std::unique_lock lock(mu);
    // Woken by a notification that a task ended or wants input: asks again at once.
    task_cv.wait_until(lock, std::min(deadline, now + poll), [&] { return tasks_ended != ended; });
  }
}

}  // namespace mcp
