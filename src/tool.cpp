#include <mcp/pipeline.hpp>
#include <mcp/tool.hpp>

#include <array>

#include "detail/call_state.hpp"
#include "server_session.hpp"

namespace mcp {

namespace {
constexpr std::array<std::string_view, 8> level_names = {
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"};
const json::object empty_object;
const std::string empty_string;
}  // namespace

std::string_view to_string(log_level l) noexcept {
  return level_names[static_cast<std::size_t>(l)];
}

std::optional<log_level> parse_log_level(std::string_view s) noexcept {
  for (std::size_t i = 0; i < level_names.size(); ++i) {
    if (level_names[i] == s) return static_cast<log_level>(i);
  }
  return std::nullopt;
}

std::stop_token tool_context::stop_token() const noexcept {
  return state_->stop_source().get_token();
}

void tool_context::progress(double value, std::optional<double> total,
                            std::string_view message) const {
  auto params = state_->next_progress(value, total, message);
  if (!params) return;
  if (auto s = state_->session()) {
    state_->sink().annotate(*state_, *params);
    const auto related = state_->sink().related(*state_);
    s->send(jsonrpc::encode_notification("notifications/progress", *params),
            related ? &*related : nullptr);
  }
}

void tool_context::log(log_level level, const json::value& data, std::string_view logger) const {
  if (state_->done()) return;
  auto s = state_->session();
  if (!s || !s->log_enabled(level)) return;
  json::object p;
  p["level"] = to_string(level);
  if (!logger.empty()) p["logger"] = logger;
  p["data"] = data;
  state_->sink().annotate(*state_, p);
  const auto related = state_->sink().related(*state_);
  s->send(jsonrpc::encode_notification("notifications/message", p), related ? &*related : nullptr);
}

bool tool_context::close_sse_stream() const {
  auto s = state_->session();
  return s && !s->peer_closed() && !state_->done() && s->close_request_stream(state_->id());
}

const principal& tool_context::caller() const noexcept { return state_->caller(); }
const json::object& tool_context::request_meta() const noexcept { return state_->meta(); }

std::string_view tool_context::task_id() const noexcept {
  const auto* related = state_->meta().if_contains("io.modelcontextprotocol/related-task");
  if (related == nullptr || !related->is_object()) return {};
  const auto* id = related->get_object().if_contains("taskId");
  return id != nullptr && id->is_string() ? std::string_view(id->get_string()) : std::string_view{};
}

const json::object& tool_context::client_capabilities() const noexcept {
  auto s = state_->session();
  return s ? s->client_capabilities() : empty_object;
}

const std::string& tool_context::protocol_version() const noexcept {
  auto s = state_->session();
  return s ? s->version() : empty_string;
}

result<json::object> tool_context::request(std::string_view method, json::object params,
                                           std::chrono::milliseconds timeout) const {
  if (state_->run_inline()) {
    return error{errc::not_supported, "inline tool handlers cannot send requests to the client"};
  }
  state_->sink().annotate(*state_, params);
  return state_->sink().request_client(*state_, method, std::move(params), timeout);
}

result<detail::form_answer> tool_context::elicit_form(std::string_view message,
                                                      const json::object& schema,
                                                      std::chrono::milliseconds timeout) const {
  json::object params;
  params["message"] = message;
  params["requestedSchema"] = schema;
  auto r = request("elicitation/create", std::move(params), timeout);
  if (!r) return r.error();
  const json::value* action = r->if_contains("action");
  const std::string_view act =
      action != nullptr && action->is_string() ? std::string_view(action->get_string()) : "";
  detail::form_answer out;
  if (act == "accept") {
    out.action = elicit_action::accept;
    const json::value* content = r->if_contains("content");
    out.content = content != nullptr ? *content : json::value(json::object{});
  } else if (act == "decline") {
    out.action = elicit_action::decline;
  } else if (act == "cancel") {
    out.action = elicit_action::cancel;
  } else {
    return error{errc::invalid_params,
                 "the client's elicitation answer has no action accept, decline or cancel"};
  }
  return out;
}

result<std::string> tool_context::sample(std::string_view prompt,
                                         const sampling_options& opts) const {
  json::object content{{"type", "text"}, {"text", prompt}};
  json::object params;
  params["messages"] = json::array{json::object{{"role", "user"}, {"content", std::move(content)}}};
  params["maxTokens"] = opts.max_tokens;
  if (!opts.system_prompt.empty()) params["systemPrompt"] = opts.system_prompt;
  if (opts.temperature) params["temperature"] = *opts.temperature;
  if (!opts.model_hints.empty()) {
    json::array hints;
    for (const auto& h : opts.model_hints) hints.emplace_back(json::object{{"name", h}});
    params["modelPreferences"] = json::object{{"hints", std::move(hints)}};
  }
  auto r = request("sampling/createMessage", std::move(params), opts.timeout);
  if (!r) return r.error();
  // `content` is one block, or (2025-11-25) an array of blocks.
  std::string text;
  bool found = false;
  auto take = [&](const json::value& block) {
    const auto* o = block.if_object();
    if (o == nullptr) return;
    const auto* type = o->if_contains("type");
    const auto* t = o->if_contains("text");
    if (type != nullptr && *type == "text" && t != nullptr && t->is_string()) {
      text += t->get_string();
      found = true;
    }
  };
  if (const json::value* c = r->if_contains("content")) {
    if (const auto* blocks = c->if_array()) {
      for (const auto& b : *blocks) take(b);
    } else {
      take(*c);
    }
  }
  if (!found) return error{errc::internal_error, "the client's sampling answer holds no text"};
  return text;
}

error url_elicitation_required(json::array elicitations, std::string message) {
  return error{errc::url_elicitation_required, std::move(message),
               json::value(json::object{{"elicitations", std::move(elicitations)}})};
}

void responder::finish(call_tool_result r) const { state_->complete(std::move(r)); }
void responder::fail(error e) const { state_->complete(std::move(e)); }

const std::string& tool_call::tool_name() const noexcept { return state_->tool(); }
const tool_spec& tool_call::tool() const noexcept { return state_->entry().spec; }
bool tool_call::passed_interceptors() const noexcept { return state_->passed_interceptors(); }
const json::object& tool_call::arguments() const noexcept { return state_->arguments(); }
const principal& tool_call::caller() const noexcept { return state_->caller(); }
void tool_call::finish(call_tool_result r) const { state_->complete(std::move(r)); }
void tool_call::fail(error e) const { state_->complete(std::move(e)); }
bool tool_call::finished() const noexcept { return state_->done(); }
void tool_call::request_stop() const noexcept { state_->stop_source().request_stop(); }
void tool_call::on_result(std::function<void(call_tool_result&)> filter) const {
  state_->add_filter(std::move(filter));
}

}  // namespace mcp
