// A tools/call from the pipeline to the answer: interceptors in order, input validation, the
// handler (inline or on the executor, exceptions mapped to results), then the outcome: output
// checks, trimming to the session's era, the response.
#include "detail/call_state.hpp"
#include "server_core.hpp"
#include "server_session.hpp"
#include "tools.hpp"
#include "wire.hpp"

namespace mcp::detail {

namespace {

using chain = std::shared_ptr<const std::vector<std::shared_ptr<call_interceptor>>>;

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
  if (call->done()) return;
  tool_context ctx(call);
  try {
    call->entry().handler(ctx, call->arguments(), responder(call));
  } catch (const error_exception& e) {
    // A thrown -32042 (URL elicitation required) is a protocol answer, not a tool failure.
    if (e.get().is(errc::url_elicitation_required)) {
      call->complete(e.get());
    } else {
      call->complete(tool_error_result(e.what()));
    }
  } catch (const std::exception& e) {
    call->complete(tool_error_result(e.what()));
  } catch (...) {
    call->complete(tool_error_result("the tool failed with an unknown exception"));
  }
}

void run_handler(const server_core& core, const std::shared_ptr<call_state>& call) {
  const auto& entry = call->entry();
  if (!entry.input_validator->is_valid(call->arguments_value())) {
    auto errors =
        entry.input_validator->validate(call->arguments_value(), json_schema::mode::all_errors);
    call->complete(tool_error_result(invalid_arguments_text(*call, errors)));
    return;
  }
  if (call->run_inline()) return invoke(call);
  core.exec->post([call] { invoke(call); });
}

/// An interceptor may call `next` later, from any thread: it holds what the rest needs.
void run_pipeline(const std::shared_ptr<const server_core>& core, const chain& interceptors,
                  std::size_t i, const std::shared_ptr<call_state>& call) {
  if (call->done()) return;
  if (i < interceptors->size()) {
    (*interceptors)[i]->intercept(tool_call(call), [core, interceptors, i, call] {
      run_pipeline(core, interceptors, i + 1, call);
    });
    return;
  }
  run_handler(*core, call);
}

}  // namespace

void tools_feature::run(const std::shared_ptr<call_state>& call) const {
  run_pipeline(core_.shared_from_this(), core_.pipeline(), 0, call);
}

void tools_feature::deliver(call_state& call, std::variant<call_tool_result, error> outcome) {
  auto s = call.session();
  if (!s || !s->untrack(call)) return;  // cancelled, or the session ended
  if (auto* e = std::get_if<error>(&outcome)) {
    s->send_final(call.id(), jsonrpc::encode_error(call.id(), *e));
    return;
  }
  auto& r = std::get<call_tool_result>(outcome);
  const auto& validator = call.entry().output_validator;
  const bool check_output = !r.is_error && validator;
  auto result = std::move(r).to_json();
  if (check_output) {
    // Validated in its wire form: no copy of structuredContent.
    std::string problem;
    if (const auto* sc = result.if_contains("structuredContent"); !sc) {
      problem = "has an outputSchema but returned no structuredContent";
    } else if (auto errors = validator->validate(*sc); !errors.empty()) {
      problem = "returned structuredContent that does not match its outputSchema: " +
                errors.front().message;
    }
    if (!problem.empty()) {
      s->send_final(call.id(), jsonrpc::encode_error(
                                   call.id(), error{errc::internal_error,
                                                    "Tool \"" + call.tool() + "\" " + problem}));
      return;
    }
  }
  wire::adapt_tool_result(result, s->session_era());
  s->send_final(call.id(), jsonrpc::encode_result(call.id(), result));
}

}  // namespace mcp::detail
