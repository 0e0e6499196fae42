// The request context every handler sees (tools, resources, prompts): notifications, the
// caller, and requests to the client, sent as requests (2025-11-25 and older) or asked in an
// input round (2026-07-28, input_round.hpp).
#include <mcp/context.hpp>
#include <mcp/executor.hpp>

#include <array>

#include "detail/fallback_executor.hpp"
#include "detail/input_round.hpp"
#include "detail/request_state.hpp"
#include "server_core.hpp"
#include "server_session.hpp"

namespace mcp {

namespace {
constexpr std::array<std::string_view, 8> level_names = {
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"};

/// Reads an ElicitResult: its action and (accepted) content.
result<detail::form_answer> read_form_answer(result<json::object>&& r) {
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

json::object form_params(std::string_view message, const json::object& schema) {
  json::object params;
  params["message"] = message;
  params["requestedSchema"] = schema;
  return params;
}

json::object sampling_params(std::string_view prompt, const sampling_options& opts) {
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
  return params;
}

/// The text of a CreateMessageResult (`content` is one block, or, 2025-11-25, an array).
result<std::string> sampled_text(result<json::object>&& r) {
  if (!r) return r.error();
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

error inline_refusal() {
  return error{errc::not_supported, "inline handlers cannot send requests to the client"};
}
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

std::stop_token request_context::stop_token() const noexcept {
  return state_->stop_source().get_token();
}

std::string request_context::trace_id() const {
  auto s = state_->session();
  if (!s || s->observer() == nullptr) return {};
  const auto t = s->trace_of(state_->id());
  return t.valid() ? t.trace_id_hex() : std::string{};
}

void request_context::progress(double value, std::optional<double> total,
                               std::string_view message) const {
  auto params = state_->next_progress(value, total, message);
  if (!params) return;
  if (auto s = state_->session()) {
    state_->annotate(*params);
    const auto related = state_->related();
    s->send(jsonrpc::encode_notification("notifications/progress", *params),
            related ? &*related : nullptr);
  }
}

void request_context::log(log_level level, const json::value& data, std::string_view logger) const {
  if (state_->finished() || !state_->log_enabled(level)) return;
  auto s = state_->session();
  if (!s) return;
  json::object p;
  p["level"] = to_string(level);
  if (!logger.empty()) p["logger"] = logger;
  p["data"] = data;
  state_->annotate(p);
  const auto related = state_->related();
  s->send(jsonrpc::encode_notification("notifications/message", p), related ? &*related : nullptr);
}

const principal& request_context::caller() const noexcept { return state_->caller(); }
const json::object& request_context::request_meta() const noexcept { return state_->meta(); }
json::object request_context::client_capabilities() const { return state_->client_caps(); }
std::string request_context::protocol_version() const {
  return std::string(detail::traits(state_->revision()).version);
}

result<json::object> request_context::request(std::string_view method, json::object params,
                                              const ask_options& opts) const {
  if (state_->inline_handler()) return inline_refusal();
  if (const auto round = state_->round()) return round->ask(method, std::move(params), opts.key);
  state_->annotate(params);
  return state_->ask_client(method, std::move(params), opts.timeout, opts.key);
}

void request_context::request_async(std::string_view method, json::object params,
                                    unique_function<void(result<json::object>)> done,
                                    const ask_options& opts) const {
  if (state_->inline_handler()) return done(inline_refusal());
  if (const auto round = state_->round()) {
    return done(round->ask(method, std::move(params), opts.key));
  }
  state_->annotate(params);
  state_->ask_client_async(method, std::move(params), opts.timeout, opts.key, std::move(done));
}

result<detail::form_answer> request_context::elicit_form(std::string_view message,
                                                         const json::object& schema,
                                                         const ask_options& opts) const {
  return read_form_answer(request("elicitation/create", form_params(message, schema), opts));
}

void request_context::elicit_form_async(std::string_view message, const json::object& schema,
                                        unique_function<void(result<detail::form_answer>)> done,
                                        const ask_options& opts) const {
  request_async(
      "elicitation/create", form_params(message, schema),
      [done = std::move(done)](result<json::object> r) mutable {
        done(read_form_answer(std::move(r)));
      },
      opts);
}

result<std::string> request_context::sample(std::string_view prompt,
                                            const sampling_options& opts) const {
  return sampled_text(request("sampling/createMessage", sampling_params(prompt, opts),
                              ask_options{.key = opts.key, .timeout = opts.timeout}));
}

void request_context::sample_async(std::string_view prompt, const sampling_options& opts,
                                   unique_function<void(result<std::string>)> done) const {
  request_async(
      "sampling/createMessage", sampling_params(prompt, opts),
      [done = std::move(done)](result<json::object> r) mutable {
        done(sampled_text(std::move(r)));
      },
      ask_options{.key = opts.key, .timeout = opts.timeout});
}

const json::value* request_context::round_state() const noexcept {
  // A deferred round has no saved state: it is not opened for the asking.
  const auto round = state_->opened_round();
  return round ? round->saved_state() : nullptr;
}

void request_context::save_round_state(json::value state) const {
  if (const auto round = state_->round()) round->save_state(std::move(state));
}

executor& request_context::handler_executor() const noexcept {
  if (auto* e = state_->exec()) return *e;
  return detail::fallback_executor();
}

}  // namespace mcp
