// A tools/call from the pipeline to the answer: interceptors in order, input validation, the
// handler (inline or on the executor, exceptions mapped to results), then the outcome: output
// checks, trimming to the session's era, the response.
#include "detail/call_state.hpp"
#include "rounds.hpp"
#include "server_core.hpp"
#include "server_session.hpp"
#include "tasks.hpp"
#include "tools.hpp"
#include "wire.hpp"

namespace mcp::detail {

namespace {

/// "Invalid arguments for tool "x": /a: ...; /b: ..." (at most 8 reasons).
std::string invalid_arguments_text(const call_state& call,
                                   const std::vector<json_schema::validation_error>& errors) {
  std::string msg = "Invalid arguments for tool \"" + call.tool() + "\": ";
  constexpr std::size_t max_shown = 8;
  for (std::size_t k = 0; k < errors.size() && k < max_shown; ++k) {
    if (k > 0) msg += "; ";
    msg += errors[k].message;
  }
  if (errors.size() > max_shown) {
    msg += "; and " + std::to_string(errors.size() - max_shown) + " more";
  }
  return msg;
}

/// Runs the handler and turns what escapes it into the call's outcome.
void invoke(const std::shared_ptr<call_state>& call) {
  if (!call->handler_started()) return;  // ended before its handler could start
  struct bracket {
    call_state& c;
    ~bracket() { c.handler_returned(); }
  } running{*call};
  tool_context ctx(call);
  try {
    (*call->entry().handler)(ctx, call->arguments(), responder(call));
  } catch (const protocol_error& e) {
    call->complete(e.get());  // the one explicit way to a JSON-RPC error
  } catch (const std::exception& e) {
    call->complete(tool_error_result(e.what()));
  } catch (...) {
    call->complete(tool_error_result("the tool failed with an unknown exception"));
  }
}

/// Whether the call may run its handler: its tool is still there and its arguments are valid
/// (else the call is answered).
bool admitted(call_state& c) {
  const auto& entry = c.entry();
  if (entry.runs->removed.load(std::memory_order_relaxed)) {
    c.complete(tool_error_result("Tool \"" + c.tool() + "\" was removed"));
    return false;
  }
  if (!entry.input_validator->is_valid(c.arguments_value())) {
    auto errors =
        entry.input_validator->validate(c.arguments_value(), json_schema::mode::all_errors);
    c.complete(tool_error_result(invalid_arguments_text(c, errors)));
    return false;
  }
  return true;
}

/// A task-augmented call's start: its task is stored and the tools/call answered
/// (become_task), then its handler runs — here when `here` (a thread of the executor it would
/// be posted to), else as `run_handler` runs it.
void start_task(call_state& c, bool here) {
  auto s = c.session();
  if (!s || !s->core().tasks->become_task(c)) return;
  if (s->core().tasks->enqueue(c)) return;  // a shared queue: a worker of any process runs it
  // Accepted while every slot it may use is busy (a concurrency limit): it waits, parked
  // with its task, and `resume_handler` runs it once a slot is free.
  if (c.held() && !s->core().tasks->park(c)) return;
  if (!admitted(c)) return;
  auto call = c.self();
  if (here || call->run_inline()) return invoke(call);
  auto* exec = call->sink().exec(*call);
  if (exec == nullptr) return;
  exec->post([call = std::move(call)] { invoke(call); });
}

/// After the last interceptor: input validation, then the handler, inline or on the executor.
void run_handler(call_state& c) {
  if (c.task_request && !c.entry().spec.deferred_task) {
    // The interceptors let a task-augmented call through: the task starts (a deferred one when
    // its handler says so). Storing it is a commit, which the transport's reader (where this
    // usually runs) would wait for alone: when the handler's executor has a thread free at
    // once, that thread stores the task and runs the handler, its commit shared with other
    // threads' writes. When none is free, the task is stored here, so a task-augmented call is
    // accepted (and answered) at once even while every handler thread runs a long task.
    if (!c.run_inline()) {
      auto s = c.session();
      if (!s) return;
      if (auto* exec = s->core().tasks->start_executor()) {
        unique_function<void()> start = [call = c.self()] { start_task(*call, true); };
        if (exec->try_post(start)) return;
      }
    }
    return start_task(c, false);
  }
  if (!admitted(c)) return;
  auto call = c.self();
  if (call->run_inline()) return invoke(call);
  auto* exec = call->sink().exec(*call);
  if (exec == nullptr) return;  // the session ended: nobody waits for the answer
  exec->post([call = std::move(call)] { invoke(call); });
}

/// A parked call got its slot: it runs on its executor (never on the thread that freed the
/// slot, which may be finishing another call), its deadline counting from now.
void resume_handler(call_state& c) {
  auto call = c.self();
  c.sink().resumed(c);
  auto* exec = c.sink().exec(c);
  if (exec == nullptr) return;
  exec->post([call = std::move(call)] {
    call->arm_timer();
    if (admitted(*call)) invoke(call);
  });
}

/// Sends the response to `call` whose result `append(out, meta_member, open)` writes (see
/// wire::append_tool_result), for the session's era: no result object is built.
template <class Append>
void send_result(server_session_impl& s, const call_state& call, bool is_error,
                 const Append& append) {
  // Room for a short result at once (2026-07-28 adds `resultType` and serverInfo).
  std::string message;
  message.reserve(s.modern() ? 320 + s.server_info_meta().size() : 256);
  message += R"({"jsonrpc":"2.0","id":)";
  jsonrpc::append_id(message, call.id());
  message += R"(,"result":)";
  if (s.modern()) {
    append(message, s.server_info_meta(), true);
    s.append_result_fields(message, nullptr, true);
    message += '}';
  } else {
    append(message, std::string_view{}, false);
  }
  message += '}';
  observe::outcome known{.status = is_error ? observe::status::tool_error : observe::status::ok};
  s.send_final(call.id(), std::move(message), &known);
}

/// Whether `deliver` does more with `call`'s result than write it: a refusal is observed, a
/// 2026-07-28 round may decide the answer, an outputSchema checks it. `deliver_text` writes a
/// text result from the text only when none applies; a new such step belongs here.
bool needs_built_result(const call_state& call) {
  return !call.passed_interceptors() || call.entry().output_validator ||
         (traits(call.revision()).per_request_meta && call.opened_round());
}

}  // namespace

std::optional<error> output_problem(const call_state& call, const call_tool_result& r,
                                    const std::optional<json::value>& structured) {
  const auto& validator = call.entry().output_validator;
  if (r.is_error || !validator) return std::nullopt;
  std::string problem;
  if (!structured) {
    problem = "has an outputSchema but returned no structuredContent";
  } else if (auto errors = validator->validate(*structured); !errors.empty()) {
    problem = "returned structuredContent that does not match its outputSchema: " +
              errors.front().message;
  } else {
    return std::nullopt;
  }
  return error{errc::internal_error, "Tool \"" + call.tool() + "\" " + problem};
}

executor* call_sink::exec(const call_state& call) const {
  auto s = call.session();
  return s ? s->core().exec.get() : nullptr;
}

std::optional<jsonrpc::request_id> call_sink::related(const call_state& call) const {
  return call.id();
}

void call_sink::annotate(const call_state& /*call*/, json::object& /*params*/) const {}

void call_sink::deliver_text(call_state& call, std::string&& text) {
  deliver(call, call_state::text_result(text));
}

void call_sink::resumed(call_state& /*call*/) {}

result<json::object> call_sink::request_client(call_state& call, std::string_view method,
                                               json::object params,
                                               std::chrono::milliseconds timeout,
                                               std::string_view /*key*/) {
  auto s = call.session();
  if (!s) return error{errc::connection_closed, "the session has ended"};
  return s->request_client(method, std::move(params), timeout, &call.id(),
                           call.stop_source().get_token());
}

void call_sink::request_client_async(call_state& call, std::string_view method, json::object params,
                                     std::chrono::milliseconds timeout, std::string_view /*key*/,
                                     unique_function<void(result<json::object>)> done) {
  auto s = call.session();
  if (!s) return done(error{errc::connection_closed, "the session has ended"});
  s->request_client_async(method, std::move(params), timeout, &call.id(),
                          call.stop_source().get_token(), std::move(done));
}

void tools_feature::run(const std::shared_ptr<call_state>& call) const {
  call->set_after_chain(&run_handler, &resume_handler);
  // The straight path while every interceptor of the call's chain is a built-in one.
  if (const auto& plan = call->plan(); plan.plain) {
    call->start_plain(plan);
  } else {
    call->start();
  }
  call->arm_timer();
}

void tools_feature::deliver(call_state& call, std::variant<call_tool_result, error> outcome) {
  auto s = call.session();
  if (!s || !s->untrack(call)) return;  // cancelled, or the session ended
  // The steps before the writing are those `needs_built_result` names.
  if (auto* o = s->observer(); o != nullptr && !call.passed_interceptors()) [[unlikely]] {
    o->on_denial({.side = observe::kind::server,
                  .method = "tools/call",
                  .target = call.tool(),
                  .reason = std::holds_alternative<error>(outcome) ? "error" : "refused"});
  }
  // 2026-07-28: the round, if the handler opened one, may decide the answer.
  if (traits(call.revision()).per_request_meta && call.opened_round()) {
    const bool failed =
        std::holds_alternative<error>(outcome) || std::get<call_tool_result>(outcome).is_error;
    if (auto answer = close_round(*s, call, failed)) {
      s->send_final(call.id(), std::move(*answer));
      return;
    }
  }
  if (auto* e = std::get_if<error>(&outcome)) {
    s->send_final(call.id(), jsonrpc::encode_error(call.id(), *e));
    return;
  }
  auto& r = std::get<call_tool_result>(outcome);
  // structuredContent as a value (a move, not a copy) for the validator and the writer.
  std::optional<json::value> structured;
  if (r.structured_content) structured.emplace(std::move(*r.structured_content));
  if (auto problem = output_problem(call, r, structured)) {
    s->send_final(call.id(), jsonrpc::encode_error(call.id(), *problem));
    return;
  }
  send_result(*s, call, r.is_error, [&](std::string& out, std::string_view meta_member, bool open) {
    wire::append_tool_result(out, r, structured ? &*structured : nullptr, s->session_era(),
                             meta_member, open);
  });
}

void tools_feature::deliver_text(call_state& call, std::string&& text) {
  if (needs_built_result(call)) [[unlikely]] {
    return deliver(call, call_state::text_result(text));
  }
  auto s = call.session();
  if (!s || !s->untrack(call)) return;  // cancelled, or the session ended
  send_result(*s, call, false, [&](std::string& out, std::string_view meta_member, bool open) {
    wire::append_text_result(out, text, meta_member, open);
  });
}

}  // namespace mcp::detail
