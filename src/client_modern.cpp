// The client in both protocol eras: negotiation (initialize, server/discover, or a probe that
// falls back), the per-request `_meta` and headers of 2026-07-28, and its input rounds (an
// input_required answer is answered through the client's handlers and the request sent again,
// with a new id, the server's requestState echoed as it came).
#include <mcp/client.hpp>
#include <mcp/client_cache.hpp>

#include <algorithm>

#include "client_impl.hpp"
#include "param_headers.hpp"
#include "protocol.hpp"

namespace mcp {

namespace {

constexpr std::string_view version_key = "io.modelcontextprotocol/protocolVersion";
constexpr std::string_view caps_key = "io.modelcontextprotocol/clientCapabilities";
constexpr std::string_view info_key = "io.modelcontextprotocol/clientInfo";
constexpr std::string_view level_key = "io.modelcontextprotocol/logLevel";
constexpr std::string_view server_info_key = "io.modelcontextprotocol/serverInfo";
constexpr std::string_view tasks_extension = "io.modelcontextprotocol/tasks";

bool is_modern_version(std::string_view v) {
  const auto e = detail::find_era(v);
  return e && detail::traits(*e).per_request_meta;
}

/// The methods whose answer may be input_required.
bool takes_rounds(std::string_view method) {
  return method == "tools/call" || method == "prompts/get" || method == "resources/read";
}

/// The capabilities as 2026-07-28 has them: no `tasks` (an extension now), `roots` without
/// `listChanged`.
json::object modern_capabilities(json::object caps) {
  caps.erase("tasks");
  if (auto* roots = caps.if_contains("roots"); roots != nullptr) *roots = json::object{};
  return caps;
}

/// The `supported` revisions of a -32022 error's data.
std::vector<std::string> supported_of(const error& e) {
  std::vector<std::string> out;
  const auto* data = e.data ? e.data->if_object() : nullptr;
  const auto* list = data != nullptr ? data->if_contains("supported") : nullptr;
  if (list == nullptr || !list->is_array()) return out;
  for (const auto& v : list->get_array()) {
    if (v.is_string()) out.emplace_back(v.get_string());
  }
  return out;
}

detail::outbound_options outbound_for(const request_options& ro,
                                      std::chrono::milliseconds fallback) {
  detail::outbound_options o;
  o.timeout = ro.timeout.count() > 0 ? ro.timeout : fallback;
  o.on_sent = ro.on_sent;
  return o;
}

}  // namespace

result<std::pair<negotiation, std::string>> parse_negotiation(std::string_view text) {
  if (text == "auto") return std::pair{negotiation::automatic, std::string()};
  if (text == "legacy") return std::pair{negotiation::legacy, std::string()};
  if (is_supported_protocol_version(text)) return std::pair{negotiation::pinned, std::string(text)};
  std::string msg = "'";
  msg.append(text).append("' is not auto, legacy or a protocol revision this SDK speaks");
  return error{errc::invalid_params, std::move(msg)};
}

std::string client_session::protocol_version() const {
  return impl_->version_known.load() ? impl_->version : std::string();
}

protocol_era client_session::era() const {
  if (!impl_->version_known.load()) return protocol_era::none;
  return impl_->modern.load() ? protocol_era::modern : protocol_era::legacy;
}

result<json::object> client_session::impl::legacy_initialize(const std::string& wanted, bool exact,
                                                             const request_options& ro) {
  conn().set_protocol_version({});  // no header before the handshake (a probe may have set one)
  json::object params{
      {"protocolVersion", wanted},
      {"capabilities", opts.capabilities},
      {"clientInfo", json::object{{"name", opts.info.name}, {"version", opts.info.version}}}};
  detail::outbound_options o = outbound_for(ro, opts.timeout);
  o.on_progress = ro.on_progress;
  auto r = request("initialize", std::move(params), o);
  if (!r) return r;
  const auto* v = r->if_contains("protocolVersion");
  if (v == nullptr || !v->is_string()) {
    return error{errc::invalid_request, "the InitializeResult has no protocolVersion"};
  }
  if (exact && v->get_string() != wanted) {
    return error{errc::not_supported, "the server does not speak " + wanted + ": it answered " +
                                          std::string(v->get_string())};
  }
  conn().set_protocol_version(v->get_string());
  {
    std::lock_guard lock(mu);
    server_result = *r;
  }
  if (!version_known.load()) {
    version = std::string(v->get_string());
    version_known.store(true);
  }
  send(jsonrpc::encode_notification("notifications/initialized", json::object{}));
  observe_session_start();
  return r;
}

result<json::object> client_session::impl::discover(const std::string& rev,
                                                    const request_options& ro,
                                                    std::chrono::milliseconds timeout) {
  {
    std::lock_guard lock(mu);
    modern_version = rev;
  }
  conn().set_protocol_version(rev);
  json::object params;
  auto headers = stamp("server/discover", params);
  detail::outbound_options o = outbound_for(ro, timeout);
  o.headers = &headers;
  // A discover answer another session to the same origin kept (mcp/client_cache.hpp).
  const std::string cache_key = "server/discover " + rev;
  std::optional<json::object> kept;
  if (cache && !opts.origin.empty())
    kept = cache->lookup(opts.origin, cache_context, cache_key, {});
  auto r = kept ? result<json::object>(std::move(*kept))
                : request("server/discover", std::move(params), o);
  if (!r) return r;
  if (cache && !opts.origin.empty() && !kept) {
    cache->store(opts.origin, cache_context, cache_key, {}, *r);
  }
  if (auto step = read_answer("server/discover", *r, 0); !step) return step.error();
  // The DiscoverResult in an InitializeResult's shape, so that server_result() and
  // server_info() read the same in both eras.
  json::object shaped{{"protocolVersion", rev}};
  const auto* caps = r->if_contains("capabilities");
  shaped["capabilities"] = caps != nullptr && caps->is_object() ? *caps : json::object{};
  json::value info = json::object{{"name", ""}, {"version", ""}};
  if (const auto* meta = r->if_contains("_meta"); meta != nullptr && meta->is_object()) {
    const auto* i = meta->get_object().if_contains(server_info_key);
    if (i != nullptr && i->is_object()) info = *i;
    shaped["_meta"] = *meta;
  }
  shaped["serverInfo"] = std::move(info);
  if (const auto* i = r->if_contains("instructions"); i != nullptr && i->is_string()) {
    shaped["instructions"] = *i;
  }
  if (const auto* s = r->if_contains("supportedVersions"); s != nullptr) {
    shaped["supportedVersions"] = *s;
  }
  {
    std::lock_guard lock(mu);
    server_result = shaped;
  }
  modern.store(true);
  if (!version_known.load()) {
    version = rev;
    version_known.store(true);
  }
  observe_session_start();
  return shaped;
}

result<json::object> client_session::impl::negotiate(const request_options& ro) {
  const std::string& wanted = opts.protocol_version;
  switch (opts.negotiate) {
    case negotiation::legacy:
      return legacy_initialize(wanted, false, ro);
    case negotiation::pinned:
      if (!is_modern_version(wanted)) return legacy_initialize(wanted, true, ro);
      if (auto r = discover(wanted, ro, opts.timeout))
        return r;
      else {
        conn().set_protocol_version({});
        return error{errc::not_supported,
                     "the server does not speak " + wanted +
                         ": server/discover answered: " + r.error().message,
                     r.error().data};
      }
    case negotiation::automatic:
      break;
  }
  // Probe with the newest revision; a -32022 naming one both speak is tried once with it (the
  // same one too: the server says it speaks it, whatever made it refuse that request).
  std::string probing(latest_protocol_version);
  const auto timeout = ro.timeout.count() > 0 ? ro.timeout : opts.probe_timeout;
  std::string probe_error;  // why the probe did not settle the era, named if initialize fails
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto r = discover(probing, ro, timeout);
    if (r) return r;
    const auto& e = r.error();
    probe_error = e.message;
    if (e.is(errc::connection_closed) || e.is(errc::cancelled)) return e;
    if (e.is(errc::header_mismatch) || e.is(errc::missing_required_client_capability)) {
      return e;  // a server of the new era refused the request itself: nothing to fall back to
    }
    if (!e.is(errc::unsupported_protocol_version)) break;  // a server of the old era
    const auto supported = supported_of(e);
    const auto mutual = std::find_if(supported.begin(), supported.end(),
                                     [](const auto& v) { return is_modern_version(v); });
    if (mutual != supported.end() && attempt == 0) {
      probing = *mutual;
      continue;
    }
    const bool legacy_too = std::any_of(supported.begin(), supported.end(), [](const auto& v) {
      return is_supported_protocol_version(v) && !is_modern_version(v);
    });
    if (!legacy_too) {
      conn().set_protocol_version({});
      return error{errc::not_supported,
                   "the server speaks no protocol revision this client does: " + e.message, e.data};
    }
    break;
  }
  auto r = legacy_initialize(wanted, false, ro);
  if (r || probe_error.empty()) return r;
  auto e = r.error();
  e.message += " (server/discover before it: " + probe_error + ")";
  return e;
}

std::vector<std::pair<std::string, std::string>> client_session::impl::stamp(
    std::string_view method, json::object& params, bool tasks_ext) {
  json::object meta;
  if (auto* m = params.if_contains("_meta"); m != nullptr && m->is_object()) {
    meta = std::move(m->get_object());
  }
  std::string level;
  {
    std::lock_guard lock(mu);
    meta[version_key] = modern_version;
    level = log_level;
  }
  json::object caps = modern_capabilities(opts.capabilities);
  if (tasks_ext) {
    auto& ext = caps["extensions"];
    if (!ext.is_object()) ext = json::object{};
    ext.get_object()[tasks_extension] = json::object{};
  }
  meta[caps_key] = std::move(caps);
  meta[info_key] = json::object{{"name", opts.info.name}, {"version", opts.info.version}};
  if (!level.empty()) meta[level_key] = level;
  params["_meta"] = std::move(meta);

  std::vector<std::pair<std::string, std::string>> headers;
  headers.emplace_back("Mcp-Method", detail::encode_header_value(method));
  // The tasks extension routes its methods by the task's id.
  const bool task_method =
      method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel";
  const std::string_view key =
      method == "resources/read" ? "uri" : (task_method ? "taskId" : "name");
  if (takes_rounds(method) || task_method) {
    if (const auto* n = params.if_contains(key); n != nullptr && n->is_string()) {
      headers.emplace_back("Mcp-Name", detail::encode_header_value(n->get_string()));
    }
  }
  if (method == "tools/call") {
    const auto* name = params.if_contains("name");
    const auto* args = params.if_contains("arguments");
    if (name != nullptr && name->is_string() && args != nullptr && args->is_object()) {
      std::optional<json::object> schema;
      {
        std::lock_guard lock(mu);
        if (const auto* tool = definition_of(listed_tools, name->get_string())) {
          const auto* in = tool->if_contains("inputSchema");
          if (in != nullptr && in->is_object()) schema = in->get_object();
        }
      }
      if (schema) {
        try {
          auto params_of = detail::param_headers_of(*schema, name->get_string());
          for (auto& h : detail::param_header_values(params_of, args->get_object())) {
            headers.push_back(std::move(h));
          }
        } catch (const std::invalid_argument&) {
          // An invalid annotation: no Mcp-Param-* headers (the server will say what it needs).
        }
      }
    }
  }
  return headers;
}

void client_session::impl::drop_invalid_header_tools(std::vector<json::object>& tools) const {
  // Clients over other transports may ignore the annotations; over HTTP they become headers.
  if (!modern.load() || conn().facts().protocol_name != "http") return;
  std::erase_if(tools, [this](const json::object& tool) {
    const auto* schema = tool.if_contains("inputSchema");
    if (schema == nullptr || !schema->is_object()) return false;
    const auto* name = tool.if_contains("name");
    try {
      (void)detail::param_headers_of(schema->get_object(), name != nullptr && name->is_string()
                                                               ? name->get_string()
                                                               : std::string_view());
      return false;
    } catch (const std::invalid_argument& e) {
      if (opts.on_warning) {
        try {
          opts.on_warning(std::string("tools/list: left out ") + e.what());
        } catch (...) {  // documented as not throwing: the listing goes on
        }
      }
      return true;
    }
  });
}

result<client_session::impl::round_step> client_session::impl::read_answer(std::string_view method,
                                                                           const json::object& r,
                                                                           int round,
                                                                           bool task_ok) const {
  const auto* type = r.if_contains("resultType");
  if (type == nullptr || *type == "complete") return round_step{};  // missing: complete
  if (task_ok && *type == "task") return round_step{};              // the caller reads it
  if (!type->is_string()) {
    return error{errc::invalid_request, std::string(method) + ": resultType is not a string"};
  }
  if (*type != "input_required") {
    return error{errc::invalid_request, std::string(method) + ": unknown resultType \"" +
                                            std::string(type->get_string()) + "\""};
  }
  if (!takes_rounds(method)) {
    return error{errc::invalid_request,
                 std::string(method) + " was answered input_required, which it cannot be"};
  }
  round_step step{.complete = false, .requests = {}, .state = std::nullopt};
  const auto* requests = r.if_contains("inputRequests");
  const auto* state = r.if_contains("requestState");
  if (requests != nullptr && !requests->is_object()) {
    return error{errc::invalid_request, std::string(method) + ": inputRequests is not an object"};
  }
  if (state != nullptr && !state->is_string()) {
    return error{errc::invalid_request, std::string(method) + ": requestState is not a string"};
  }
  if (requests == nullptr && state == nullptr) {
    return error{errc::invalid_request,
                 std::string(method) + ": input_required without inputRequests or requestState"};
  }
  if (round + 1 > opts.max_input_rounds) {
    return error{errc::limit_exceeded, std::string(method) + ": the server asked for input " +
                                           std::to_string(round + 1) + " times (at most " +
                                           std::to_string(opts.max_input_rounds) + ")"};
  }
  if (requests != nullptr) step.requests = requests->get_object();
  if (state != nullptr) step.state = *state;
  return step;
}

result<json::object> client_session::impl::answer_inputs(const json::object& requests) {
  json::object responses;
  for (const auto& [key, entry] : requests) {
    const auto* e = entry.if_object();
    const auto* m = e != nullptr ? e->if_contains("method") : nullptr;
    if (m == nullptr || !m->is_string()) {
      return error{errc::invalid_request,
                   "input request \"" + std::string(key) + "\" has no method"};
    }
    const std::string method(m->get_string());
    const client_request_handler* handler = nullptr;
    for (const auto& [name, h] : opts.request_handlers) {
      if (name == method) handler = &h;
    }
    if (handler == nullptr) {
      return error{errc::method_not_found,
                   "the server asked for " + method + ", which this client does not answer"};
    }
    const auto* p = e->if_contains("params");
    const json::object params = p != nullptr && p->is_object() ? p->get_object() : json::object{};
    result<json::object> answer = error{errc::internal_error, "no answer"};
    try {
      answer = (*handler)(params, std::stop_token{});
    } catch (const std::exception& ex) {
      answer = error{errc::internal_error, method + " failed: " + ex.what()};
    }
    if (!answer) return answer.error();
    responses[key] = std::move(*answer);
  }
  return responses;
}

result<json::object> client_session::impl::send_request(std::string_view method,
                                                        json::object params,
                                                        detail::outbound_options o,
                                                        bool tasks_ext) {
  if (!modern.load()) return request(method, std::move(params), std::move(o));
  json::object responses;
  std::optional<json::value> state;
  for (int round = 0;; ++round) {
    json::object p = params;
    if (round > 0) p["inputResponses"] = responses;
    if (state) p["requestState"] = *state;
    auto headers = stamp(method, p, tasks_ext);
    detail::outbound_options each = o;
    each.headers = &headers;
    auto r = request(method, std::move(p), std::move(each));
    if (!r) return r;
    auto step = read_answer(method, *r, round, tasks_ext);
    if (!step) return step.error();
    if (step->complete) {
      if (round > 0) r->erase("ttlMs");  // reached through input rounds: never cached
      return r;
    }
    auto answered = answer_inputs(step->requests);
    if (!answered) return answered.error();
    responses = std::move(*answered);
    state = std::move(step->state);
  }
}

std::int64_t client_session::impl::send_request_async(std::string method, json::object params,
                                                      detail::outbound_options o,
                                                      detail::outbound_callback done, int round,
                                                      json::object responses,
                                                      std::optional<json::value> state) {
  if (!modern.load())
    return request_async(method, std::move(params), std::move(o), std::move(done));
  json::object p = params;
  if (round > 0) p["inputResponses"] = std::move(responses);
  if (state) p["requestState"] = std::move(*state);
  auto headers = stamp(method, p);
  detail::outbound_options each = o;
  each.headers = &headers;
  auto self = std::static_pointer_cast<impl>(shared_from_this());
  return request_async(
      method, std::move(p), std::move(each),
      [self, method, params = std::move(params), o = std::move(o), round,
       done = std::move(done)](result<json::object> r) mutable {
        if (!r) return done(std::move(r));
        auto step = self->read_answer(method, *r, round);
        if (!step) return done(step.error());
        if (step->complete) return done(std::move(r));
        // The handlers may wait for a person: never on the thread that received the answer.
        self->executor_for_requests().post(
            [self, method = std::move(method), params = std::move(params), o = std::move(o), round,
             step = std::move(*step), done = std::move(done)]() mutable {
              auto answered = self->answer_inputs(step.requests);
              if (!answered) return done(answered.error());
              self->send_request_async(std::move(method), std::move(params), std::move(o),
                                       std::move(done), round + 1, std::move(*answered),
                                       std::move(step.state));
            });
      });
}

}  // namespace mcp
