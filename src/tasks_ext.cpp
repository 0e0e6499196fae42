// The tasks extension of 2026-07-28 (io.modelcontextprotocol/tasks), a second wire over the same
// store and status machine as 2025-11-25 tasks (tasks.cpp): the server decides which tools/call
// becomes a task (the request must declare the extension); the CreateTaskResult is flat;
// tasks/get inlines the result (a tool's isError result is `completed`), the error (`failed`)
// or the questions the task waits on (`input_required`); tasks/update answers those questions;
// tasks/cancel acknowledges. Changes go to subscriptions/listen streams naming the task.
#include <algorithm>

#include "detail/call_state.hpp"
#include "detail/rfc3339.hpp"
#include "listen.hpp"
#include "server_core.hpp"
#include "server_session.hpp"
#include "tasks.hpp"

namespace mcp::detail {

namespace {

constexpr std::string_view extension = "io.modelcontextprotocol/tasks";
constexpr std::string_view related_task_key = "io.modelcontextprotocol/related-task";

/// The error of a failed task's payload.
json::object error_of(const json::object& payload) {
  const auto* e = payload.if_contains("error");
  return e != nullptr && e->is_object() ? e->get_object() : json::object{};
}

/// An answer with nothing in it but its type: tasks/update and tasks/cancel.
json::object ack() { return json::object{{"resultType", "complete"}}; }

}  // namespace

json::object detailed_task_json(const task_record& t) {
  json::object o = task_json(t, true);
  const auto* result = t.payload.if_contains("result");
  switch (t.status) {
    case task_status::completed:
    case task_status::failed:
      // A tool's own failure (an isError result) completed the task; only a JSON-RPC error
      // failed it.
      if (result != nullptr && result->is_object()) {
        o["status"] = "completed";
        json::object r = result->get_object();
        if (auto* m = r.if_contains("_meta"); m != nullptr && m->is_object()) {
          m->get_object().erase(related_task_key);
          if (m->get_object().empty()) r.erase("_meta");
        }
        o["result"] = std::move(r);
      } else {
        o["status"] = "failed";
        o["error"] = error_of(t.payload);
      }
      break;
    case task_status::input_required:
      if (const auto* q = t.input_request.if_contains("inputRequests");
          q != nullptr && q->is_object()) {
        o["inputRequests"] = *q;
      }
      break;
    default:
      break;
  }
  return o;
}

bool tasks_feature::declares_extension(const server_session_impl& s, const jsonrpc::request& req) {
  return declares_extension(*s.origin_of(req).client_caps);
}

bool tasks_feature::declares_extension(const json::object& caps) {
  const auto* ext = caps.if_contains("extensions");
  return ext != nullptr && ext->is_object() && ext->get_object().contains(extension);
}

error tasks_feature::extension_required(std::string what) {
  return error{errc::missing_required_client_capability,
               std::move(what) + " needs the tasks extension (io.modelcontextprotocol/tasks)",
               json::value(json::object{
                   {"requiredCapabilities",
                    json::object{{"extensions", json::object{{extension, json::object{}}}}}}})};
}

void tasks_feature::get_detailed(server_session_impl& s, jsonrpc::request&& req) {
  if (!declares_extension(s, req)) return s.reply_error(req.id, extension_required(req.method));
  auto t = lookup(s, req);
  if (!t) return s.reply_error(req.id, t.error());
  auto o = detailed_task_json(*t);
  o["resultType"] = "complete";
  s.reply(req.id, std::move(o));
}

void tasks_feature::cancel_ext(server_session_impl& s, jsonrpc::request&& req) {
  if (!declares_extension(s, req)) return s.reply_error(req.id, extension_required(req.method));
  auto t = lookup(s, req);
  if (!t) return s.reply_error(req.id, t.error());
  if (is_terminal(t->status)) return s.reply(req.id, ack());  // cancelling twice is harmless
  auto stored = store_->update(
      t->id, s.task_owner(),
      {.status = task_status::cancelled,
       .status_message = "Cancelled by the requestor",
       .payload = json::object{
           {"error", json::object{{"code", -32602}, {"message", "the task was cancelled"}}}}});
  if (!stored) return s.reply_error(req.id, error{errc::internal_error, stored.error().message});
  if (auto live = take_live(t->id)) {
    drop_inputs(*live, "the task was cancelled");
    if (auto call = live->call.lock()) call->stop_source().request_stop();
    if (stored && *stored) announce(**stored, live->session);
  }
  s.reply(req.id, ack());
}

void tasks_feature::update(server_session_impl& s, jsonrpc::request&& req) {
  if (!declares_extension(s, req)) return s.reply_error(req.id, extension_required(req.method));
  auto t = lookup(s, req);
  if (!t) return s.reply_error(req.id, t.error());
  const auto* responses = req.params.if_contains("inputResponses");
  if (responses == nullptr || !responses->is_object()) {
    return s.reply_error(req.id, invalid_params("tasks/update needs an inputResponses object"));
  }
  // Answers for questions the task waits on; others (unknown, answered already) are ignored.
  std::vector<std::pair<unique_function<void(result<json::object>)>, json::object>> answered;
  std::map<std::string, pending_input, std::less<>> left;
  bool changed = false;
  {
    std::lock_guard lock(mu_);
    if (auto it = live_.find(t->id); it != live_.end()) {
      auto& inputs = it->second.inputs;
      for (const auto& [k, v] : responses->get_object()) {
        auto q = inputs.find(k);
        if (q == inputs.end() || !v.is_object()) continue;
        answered.emplace_back(std::move(q->second.done), v.get_object());
        inputs.erase(q);
        changed = true;
      }
      if (changed) {
        for (const auto& [k, q] : inputs) left.emplace(k, pending_input{q.question, nullptr});
      }
    }
  }
  if (changed) store_inputs(t->id, s.task_owner(), left);
  s.reply(req.id, ack());
  for (auto& [done, answer] : answered) done(std::move(answer));
}

void tasks_feature::ask_input(const std::string& id, const std::string& owner, std::string key,
                              std::string_view method, json::object params,
                              unique_function<void(result<json::object>)> done) {
  std::map<std::string, pending_input, std::less<>> now;
  {
    std::lock_guard lock(mu_);
    auto it = live_.find(id);
    if (it == live_.end()) {
      return done(error{errc::cancelled, "the task has ended"});
    }
    auto& live = it->second;
    ++live.asked;
    if (key.empty()) {
      key = std::string(method == "sampling/createMessage" ? "sampling"
                        : method == "roots/list"           ? "roots"
                                                           : "elicitation") +
            "-" + std::to_string(live.asked);
    }
    live.inputs.insert_or_assign(
        key, pending_input{json::object{{"method", method}, {"params", std::move(params)}},
                           std::move(done)});
    for (const auto& [k, q] : live.inputs) now.emplace(k, pending_input{q.question, nullptr});
  }
  store_inputs(id, owner, now);
}

void tasks_feature::store_inputs(const std::string& id, const std::string& owner,
                                 const std::map<std::string, pending_input, std::less<>>& inputs) {
  json::object questions;
  for (const auto& [k, q] : inputs) questions.emplace(k, q.question);
  const bool waiting = !questions.empty();
  (void)set_input_state(
      id, owner,
      {.status = waiting ? task_status::input_required : task_status::working,
       .input_request =
           waiting ? json::object{{"inputRequests", std::move(questions)}} : json::object{}});
}

void tasks_feature::drop_inputs(live_task& live, const std::string& why) {
  for (auto& [k, q] : live.inputs) {
    if (q.done) q.done(error{errc::cancelled, why});
  }
  live.inputs.clear();
}

}  // namespace mcp::detail
