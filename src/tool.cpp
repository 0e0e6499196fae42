#include <mcp/pipeline.hpp>
#include <mcp/tool.hpp>
#include <mcp/typed_tool.hpp>

#include "detail/call_state.hpp"
#include "detail/input_round.hpp"
#include "server_core.hpp"
#include "server_session.hpp"
#include "tasks.hpp"

namespace mcp {

bool tool_context::close_sse_stream() const {
  auto s = state_->session();
  return s && !s->peer_closed() && !state_->finished() && s->close_request_stream(state_->id());
}

bool tool_context::become_task() {
  auto call = std::static_pointer_cast<detail::call_state>(state_);
  if (!call->task_request || !call->entry().spec.deferred_task) return false;
  if (const auto round = call->opened_round(); round && round->has_questions()) return false;
  auto s = call->session();
  if (!s) return false;
  return s->core().tasks->become_task(*call);  // from here, questions wait with the task
}

std::string_view tool_context::task_id() const noexcept {
  const auto* related = state_->meta().if_contains("io.modelcontextprotocol/related-task");
  if (related == nullptr || !related->is_object()) return {};
  const auto* id = related->get_object().if_contains("taskId");
  return id != nullptr && id->is_string() ? std::string_view(id->get_string()) : std::string_view{};
}

error url_elicitation_required(json::array elicitations, std::string message) {
  return error{errc::url_elicitation_required, std::move(message),
               json::value(json::object{{"elicitations", std::move(elicitations)}})};
}

void responder::finish(call_tool_result r) const { state_->complete(std::move(r)); }
void responder::fail(error e) const { state_->complete(std::move(e)); }
void detail::responder_access::finish_text(const responder& done, std::string&& text) {
  done.state_->complete_text(std::move(text));
}

tool_context tool_call::context() const noexcept { return tool_context(state_); }
const std::string& tool_call::tool_name() const noexcept { return state_->tool(); }
const tool_spec& tool_call::tool() const noexcept { return state_->entry().spec; }
bool tool_call::passed_interceptors() const noexcept { return state_->passed_interceptors(); }
bool tool_call::admitted_earlier() const noexcept { return state_->admitted_earlier; }
const json::object& tool_call::arguments() const noexcept { return state_->arguments(); }
const principal& tool_call::caller() const noexcept { return state_->caller(); }
void tool_call::finish(call_tool_result r) const { state_->complete(std::move(r)); }
void tool_call::fail(error e) const { state_->complete(std::move(e)); }
bool tool_call::finished() const noexcept { return state_->done(); }
void tool_call::request_stop() const noexcept { state_->stop_source().request_stop(); }
void tool_call::on_result(std::function<void(call_tool_result&)> filter) const {
  state_->add_filter(std::move(filter));
}

void detail::plain_step::filter(const detail::call_state& /*call*/, call_tool_result& /*r*/) const {
}
bool detail::plain_step::filter_text(const detail::call_state& /*call*/,
                                     std::string& /*text*/) const {
  return false;
}

}  // namespace mcp
