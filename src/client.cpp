// The client face of a session: initialize, requests and the server's requests to the client,
// on the peer core (peer.hpp) the server face shares.
#include <mcp/client.hpp>
#include <mcp/tool.hpp>

#include <stdexcept>
#include <unordered_set>

#include "client_impl.hpp"
#include "detail/rfc3339.hpp"

namespace mcp {

client_session::client_session(std::shared_ptr<connection> conn, client_options opts)
    : impl_(std::make_shared<impl>(std::move(conn), std::move(opts))) {}

client_session::~client_session() { close(); }

void client_session::receive(std::string_view message) { impl_->receive_text(message); }

namespace {

detail::outbound_options outbound(const request_options& opts, std::chrono::milliseconds fallback) {
  detail::outbound_options o;
  o.timeout = opts.timeout.count() > 0 ? opts.timeout : fallback;
  o.on_progress = opts.on_progress;
  o.on_sent = opts.on_sent;
  o.reset_on_progress = opts.reset_on_progress;
  o.max_total = opts.max_total;
  return o;
}

}  // namespace

result<json::object> client_session::request(std::string_view method, json::object params,
                                             const request_options& opts) {
  return impl_->send_checked(method, std::move(params), outbound(opts, impl_->opts.timeout));
}

void client_session::notify(std::string_view method, json::object params) {
  // A cancellation sent by hand tells the transport which request it gives up, as `cancel` does.
  if (auto id = jsonrpc::cancelled_request(method, params)) {
    return impl_->send_cancellation(jsonrpc::encode_notification(method, params), *id);
  }
  impl_->send(jsonrpc::encode_notification(method, params));
}

void client_session::cancel(std::int64_t id, std::string_view reason) {
  impl_->cancel_outbound(id, reason);
}

result<json::object> client_session::initialize(const request_options& opts) {
  return impl_->negotiate_remembered(opts);  // client_remember.cpp, client_modern.cpp
}

std::optional<error> client_session::denial(std::string_view name, const json::object& arguments,
                                            bool may_list) {
  if (!impl_->opts.confirm) return std::nullopt;
  const auto t0 = std::chrono::steady_clock::now();
  std::optional<tool_info> definition;  // the one definition, decoded, not the listing
  auto adopt = [&definition](const json::object* d) {
    if (d == nullptr) return;
    if (auto t = from_json<tool_info>(*d)) definition = std::move(*t);
  };
  if (may_list) {
    if (auto listed = tools()) adopt(impl::definition_of(*listed, name));
  } else {
    std::lock_guard lock(impl_->mu);
    adopt(impl::definition_of(impl_->listed_tools, name));
  }
  if (impl_->confirmed(name, arguments, definition ? &*definition : nullptr)) return std::nullopt;
  impl_->audit(name, arguments, t0, "denied", "the confirmation hook denied it");
  return error{errc::user_rejected, "tools/call " + std::string(name) + " was denied"};
}

result<json::object> client_session::impl::finish_call(std::string_view name,
                                                       const json::object& arguments,
                                                       std::chrono::steady_clock::time_point t0,
                                                       result<json::object> r) {
  if (r) r = checked_result(name, std::move(*r));
  if (!r) {
    const auto& e = r.error();
    audit(name, arguments, t0,
          e.is(errc::request_timeout) ? "timeout"
          : e.is(errc::cancelled)     ? "cancelled"
                                      : "error",
          e.message);
    return r;
  }
  const auto* is_error = r->if_contains("isError");
  const bool tool_error = is_error != nullptr && is_error->is_bool() && is_error->get_bool();
  audit(name, arguments, t0, tool_error ? "tool_error" : "ok",
        tool_error ? joined_text(*r) : std::string());
  return r;
}

result<json::object> client_session::call_tool(std::string_view name, json::object arguments,
                                               const request_options& opts) {
  if (auto denied = denial(name, arguments, true)) return *denied;
  const auto t0 = std::chrono::steady_clock::now();  // the call's duration, not the person's
  auto r = request("tools/call", json::object{{"name", name}, {"arguments", arguments}}, opts);
  return impl_->finish_call(name, arguments, t0, std::move(r));
}

std::int64_t client_session::call_tool_async(std::string_view name, json::object arguments,
                                             call_callback done, const request_options& opts) {
  if (!done) throw std::invalid_argument("call_tool_async: no callback");
  if (auto denied = denial(name, arguments, false)) {
    done(std::move(*denied));
    return 0;
  }
  const auto t0 = std::chrono::steady_clock::now();
  json::object params{{"name", name}, {"arguments", arguments}};
  return impl_->send_checked_async(
      "tools/call", std::move(params), outbound(opts, impl_->opts.timeout),
      [self = impl_, tool = std::string(name), arguments = std::move(arguments), t0,
       done = std::move(done)](result<json::object> r) {
        try {
          done(self->finish_call(tool, arguments, t0, std::move(r)));
        } catch (...) {  // documented as not throwing: never let it end a transport's thread
        }
      });
}

std::string audit_line(const call_record& r) {
  json::object line{{"time", detail::rfc3339(r.time)},
                    {"server", r.server},
                    {"tool", r.tool},
                    {"arguments", r.arguments},
                    {"outcome", r.outcome},
                    {"duration_ms", r.duration.count()}};
  if (!r.detail.empty()) line["message"] = r.detail;
  return to_json_string(json::value(std::move(line)));
}

confirm_handler confirm_unless_read_only(confirm_handler ask) {
  return [ask = std::move(ask)](const call_confirmation& c) {
    if (c.server_trusted && c.definition != nullptr && c.definition->annotations &&
        c.definition->annotations->read_only_hint.value_or(false)) {
      return true;
    }
    return ask ? ask(c) : false;
  };
}

result<std::vector<json::object>> client_session::tools() {
  {
    std::lock_guard lock(impl_->mu);
    if (impl_->tools_listed) return impl_->listed_tools;
  }
  return list_all_tools();
}

result<json::object> client_session::impl::checked_result(std::string_view name, json::object r) {
  if (const auto* e = r.if_contains("isError"); e != nullptr && e->is_bool() && e->get_bool()) {
    return r;
  }
  std::shared_ptr<const impl::output_schema> schema;
  {
    std::lock_guard lock(mu);
    if (auto it = output_schemas.find(name); it != output_schemas.end()) {
      schema = it->second;
    }
  }
  if (!schema) return r;
  const std::string tool(name);
  if (!schema->validator) {
    return error{errc::invalid_params, "the outputSchema of tool " + tool +
                                           " does not compile: " + schema->compile_error};
  }
  const auto* sc = r.if_contains("structuredContent");
  if (sc == nullptr) {
    return error{errc::invalid_params,
                 "tool " + tool + " declares an outputSchema but returned no structuredContent"};
  }
  auto errors = schema->validator->validate(*sc);
  if (!errors.empty()) {
    json::object data;
    data.emplace("path", errors.front().instance_location);
    return error{errc::invalid_params,
                 "structuredContent of tool " + tool +
                     " does not match its outputSchema: " + errors.front().message,
                 json::value(std::move(data))};
  }
  return r;
}

result<bool> client_session::learn_output_schema(std::string_view name) {
  {
    std::lock_guard lock(impl_->mu);
    if (impl_->tools_listed || impl_->output_schemas.contains(name)) return true;
  }
  auto listed = list_all_tools();
  if (!listed) return listed.error();
  return true;
}

std::string client_session::joined_text(const json::object& call_result) {
  std::string text;
  const auto* content = call_result.if_contains("content");
  if (content == nullptr || !content->is_array()) return text;
  for (const auto& block : content->get_array()) {
    const auto* b = block.if_object();
    if (b == nullptr) continue;
    const auto* type = b->if_contains("type");
    const auto* t = b->if_contains("text");
    if (type == nullptr || *type != "text" || t == nullptr || !t->is_string()) continue;
    if (!text.empty()) text += '\n';
    text += t->get_string();
  }
  return text;
}

result<std::vector<json::object>> client_session::list_all_tools() {
  std::uint64_t changes = 0;
  {
    std::lock_guard lock(impl_->mu);
    changes = impl_->tools_changes;
  }
  auto all = list_all("tools/list", "tools");
  if (all) impl_->drop_invalid_header_tools(*all);  // client_modern.cpp
  if (all) impl_->remember_output_schemas(*all, changes);
  return all;
}

result<std::vector<json::object>> client_session::list_all(std::string_view method,
                                                           std::string_view key) {
  std::vector<json::object> all;
  std::optional<std::string> cursor;
  std::unordered_set<std::string> seen;
  for (int page = 0; page < 100000; ++page) {
    json::object params;
    if (cursor) params["cursor"] = *cursor;
    auto r = request(method, std::move(params));
    if (!r) return r.error();
    if (const auto* items = r->if_contains(key); items && items->is_array()) {
      for (const auto& t : items->get_array()) {
        if (t.is_object()) all.push_back(t.get_object());
      }
    }
    const auto* next = r->if_contains("nextCursor");
    if (!next || !next->is_string()) return all;
    cursor = std::string(next->get_string());
    if (!seen.insert(*cursor).second) {
      return error{errc::limit_exceeded,
                   std::string(method) + ": the server sent the same cursor twice"};
    }
  }
  return error{errc::limit_exceeded, std::string(method) + " did not end after 100000 pages"};
}

result<json::object> client_session::read_resource(std::string_view uri,
                                                   const request_options& opts) {
  return request("resources/read", json::object{{"uri", uri}}, opts);
}

result<json::object> client_session::get_prompt(std::string_view name, json::object arguments,
                                                const request_options& opts) {
  json::object params{{"name", name}};
  if (!arguments.empty()) params["arguments"] = std::move(arguments);
  return request("prompts/get", std::move(params), opts);
}

namespace {

/// Whether the server declared capability `name` (and, when given, its flag `sub`).
bool declared(const json::object& server_result, std::string_view name, std::string_view sub) {
  const auto* caps = server_result.if_contains("capabilities");
  const auto* cap =
      caps != nullptr && caps->is_object() ? caps->get_object().if_contains(name) : nullptr;
  if (cap == nullptr || !cap->is_object()) return false;
  if (sub.empty()) return true;
  const auto* flag = cap->get_object().if_contains(sub);
  return flag != nullptr && flag->is_bool() && flag->get_bool();
}

result<void> done(const result<json::object>& r) {
  if (!r) return r.error();
  return {};
}

}  // namespace

result<json::object> client_session::complete(json::object ref, std::string_view argument,
                                              std::string_view value, json::object context) {
  if (!declared(server_result(), "completions", {})) {
    return error{errc::not_supported, "the server does not offer completions"};
  }
  json::object params{{"ref", std::move(ref)},
                      {"argument", json::object{{"name", argument}, {"value", value}}}};
  if (!context.empty()) params["context"] = json::object{{"arguments", std::move(context)}};
  auto r = request("completion/complete", std::move(params));
  if (!r) return r.error();
  auto* completion = r->if_contains("completion");
  if (completion == nullptr || !completion->is_object()) {
    return error{errc::invalid_request, "the server's completion answer has no completion"};
  }
  return std::move(completion->get_object());
}

result<void> client_session::subscribe(std::string_view uri) {
  if (impl_->modern.load()) return impl_->listen_subscribe(uri, true);  // client_listen.cpp
  if (!declared(server_result(), "resources", "subscribe")) {
    return error{errc::not_supported, "the server does not offer resource subscriptions"};
  }
  return done(request("resources/subscribe", json::object{{"uri", uri}}));
}

result<void> client_session::unsubscribe(std::string_view uri) {
  if (impl_->modern.load()) return impl_->listen_subscribe(uri, false);
  if (!declared(server_result(), "resources", "subscribe")) {
    return error{errc::not_supported, "the server does not offer resource subscriptions"};
  }
  return done(request("resources/unsubscribe", json::object{{"uri", uri}}));
}

result<void> client_session::set_log_level(std::string_view level) {
  if (!parse_log_level(level)) {
    std::string msg = "'";  // built in steps: GCC 12 misreads "x" + std::string as overlapping
    msg.append(level).append("' is not a log level");
    return error{errc::invalid_params, std::move(msg)};
  }
  if (!declared(server_result(), "logging", {})) {
    return error{errc::not_supported, "the server does not offer logging"};
  }
  if (impl_->modern.load()) {  // 2026-07-28: the level travels in every request's _meta
    std::lock_guard lock(impl_->mu);
    impl_->log_level = std::string(level);
    return {};
  }
  return done(request("logging/setLevel", json::object{{"level", level}}));
}

json::object client_session::server_result() const {
  std::lock_guard lock(impl_->mu);
  return impl_->server_result;
}

std::shared_ptr<result_cache> client_session::cache() const { return impl_->cache; }

void client_session::close() { impl_->close_peer(); }

}  // namespace mcp
