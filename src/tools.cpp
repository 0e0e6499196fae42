// The tools feature: registration, tools/list and the start of tools/call.
#include "tools.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "detail/call_scan.hpp"
#include "detail/call_state.hpp"
#include "detail/scopes.hpp"
#include "listing.hpp"
#include "rounds.hpp"
#include "server_core.hpp"
#include "server_session.hpp"
#include "session_reuse.hpp"
#include "tasks.hpp"
#include "wire.hpp"

namespace mcp::detail {

void check_tool_name(std::string_view name) {
  if (name.empty() || name.size() > 128) {
    throw std::invalid_argument("tool name must be 1-128 characters: \"" + std::string(name) +
                                "\"");
  }
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '.';
    if (!ok) {
      throw std::invalid_argument("tool name \"" + std::string(name) +
                                  "\" may contain only A-Z a-z 0-9 _ - .");
    }
  }
}

std::vector<std::string> missing_scopes(const std::vector<std::string>& needed,
                                        const principal& who) {
  std::vector<std::string> out;
  for (const auto& scope : needed) {
    if (!who.has_scope(scope)) out.push_back(scope);
  }
  return out;
}

json::object principal_to_json(const principal& who) {
  json::object o{{"subject", who.subject}, {"claims", who.claims}};
  if (!who.issuer.empty()) o["issuer"] = who.issuer;
  if (!who.client_id.empty()) o["client_id"] = who.client_id;
  if (who.scopes) {
    json::array a;
    for (const auto& scope : *who.scopes) a.emplace_back(scope);
    o["scopes"] = std::move(a);
  }
  return o;
}

principal principal_from_json(const json::object& o) {
  principal who;
  auto text = [&o](std::string_view key) -> const json::string* {
    const auto* v = o.if_contains(key);
    return v != nullptr && v->is_string() ? &v->get_string() : nullptr;
  };
  if (const auto* s = text("subject")) who.subject = std::string(*s);
  if (const auto* s = text("issuer")) who.issuer = std::string(*s);
  if (const auto* s = text("client_id")) who.client_id = std::string(*s);
  if (const auto* c = o.if_contains("claims"); c && c->is_object()) who.claims = c->get_object();
  if (const auto* a = o.if_contains("scopes"); a && a->is_array()) {
    who.scopes.emplace();
    for (const auto& scope : a->get_array()) {
      if (scope.is_string()) who.scopes->emplace_back(scope.get_string());
    }
  }
  return who;
}

namespace {

void check_scopes(const tool_spec& spec) {
  for (const auto& scope : spec.scopes) {
    if (!is_scope_token(scope)) {
      throw std::invalid_argument("tool \"" + spec.name + "\": invalid scope \"" + scope + "\"");
    }
  }
}

std::shared_ptr<const json_schema::validator> compile_schema(const json::object& schema,
                                                             std::string_view what,
                                                             std::string_view tool) {
  const auto* type = schema.if_contains("type");
  if (!type || !type->is_string() || type->get_string() != "object") {
    throw std::invalid_argument("tool \"" + std::string(tool) + "\": " + std::string(what) +
                                " must have \"type\": \"object\" at its root");
  }
  // A declared "format" is part of the tool's contract: asserted, not only an annotation.
  auto v = json_schema::validator::compile(json::value(schema), {.format_assertion = true});
  if (!v) {
    throw std::invalid_argument("tool \"" + std::string(tool) + "\": " + std::string(what) +
                                " does not compile: " + v.error().message);
  }
  return std::make_shared<const json_schema::validator>(std::move(*v));
}

}  // namespace

tools_feature::tools_feature(server_core& core)
    : core_(core), list_index_(core.add_list("notifications/tools/list_changed")) {
  // Served whatever was declared: tools may be added while serving, and a session that
  // initialized before the first one is told through list_changed.
  core.router.add("tools/list", "",
                  [this](server_session_impl& s, jsonrpc::request&& r) { list(s, r); });
  core.router.add("tools/call", "",
                  [this](server_session_impl& s, jsonrpc::request&& r) { call(s, std::move(r)); });
}

std::optional<std::pair<std::string, json::object>> tools_feature::capability(
    const server_session_impl&) const {
  if (tools_.empty()) return std::nullopt;
  return std::pair{std::string("tools"), json::object{{"listChanged", true}}};
}

void tools_feature::add(tool_spec spec, async_tool_handler handler) {
  check_tool_name(spec.name);
  check_scopes(spec);
  if (!handler) throw std::invalid_argument("tool \"" + spec.name + "\": handler is empty");
  auto e = std::make_shared<tool_entry>();
  if (!spec.input_schema) spec.input_schema = json::object{{"type", "object"}};
  e->input_validator = compile_schema(*spec.input_schema, "inputSchema", spec.name);
  e->param_headers = param_headers_of(*spec.input_schema, spec.name);
  if (!e->param_headers.empty()) any_param_headers_.store(true);
  if (spec.output_schema) {
    e->output_validator = compile_schema(*spec.output_schema, "outputSchema", spec.name);
  }
  for (std::size_t i = 0; i < era_count; ++i) e->wire[i] = wire::tool(spec, static_cast<era>(i));
  e->spec = std::move(spec);
  e->handler = std::make_shared<const async_tool_handler>(std::move(handler));
  const auto name = e->spec.name;
  core_.add_listed<tool_entry>(tools_, list_index_, name, std::move(e), "tool");
}

bool tools_feature::remove(std::string_view name, bool cancel) {
  auto e = tools_.find(name);
  if (!e || !core_.remove_listed(tools_, list_index_, name)) return false;
  auto& runs = *e->runs;
  runs.removed.store(true);
  std::vector<std::shared_ptr<call_state>> running;
  std::unique_lock lock(runs.mu);
  if (cancel) {
    for (auto* c = runs.head; c != nullptr; c = c->next_run()) {
      if (auto sp = c->weak_self().lock()) running.push_back(std::move(sp));
    }
    lock.unlock();
    for (const auto& c : running) c->stop_source().request_stop();
    running.clear();  // outside the lock: the last reference may end a call
    lock.lock();
  }
  // A handler removing its own tool does not wait for itself.
  const auto* current = call_state::current();
  const std::size_t own = current != nullptr && current->entry().runs.get() == &runs ? 1 : 0;
  ++runs.waiters;
  runs.cv.wait(lock, [&] { return runs.count <= own; });
  --runs.waiters;
  return true;
}

void tools_feature::changed() { core_.list_changed(list_index_); }

std::optional<scope_shortfall> tools_feature::shortfall(const jsonrpc::request& req,
                                                        const principal& who) const {
  if (req.method != "tools/call") return std::nullopt;
  const auto* name = req.params.if_contains("name");
  if (name == nullptr || !name->is_string()) return std::nullopt;  // the call answers -32602
  auto e = find(name->get_string());
  if (!e) return std::nullopt;
  auto lacking = missing_scopes(e->spec.scopes, who);
  if (lacking.empty()) return std::nullopt;
  return scope_shortfall{"tool " + e->spec.name, std::move(lacking)};
}

std::optional<error> tools_feature::check_param_headers(
    const jsonrpc::request& req,
    const std::function<std::optional<std::string_view>(std::string_view)>& header) const {
  if (!any_param_headers_.load() || req.method != "tools/call") return std::nullopt;
  const auto* name = req.params.if_contains("name");
  if (name == nullptr || !name->is_string()) return std::nullopt;
  auto e = find(name->get_string());
  if (!e || e->param_headers.empty()) return std::nullopt;
  static const json::object none;
  const auto* args = req.params.if_contains("arguments");
  return detail::check_param_headers(
      e->param_headers, args != nullptr && args->is_object() ? args->get_object() : none, header);
}

bool tools_feature::set_enabled(std::string_view name, bool enabled) {
  bool changed = false;
  const bool found = tools_.replace(name, [&](const tool_entry& old) {
    std::shared_ptr<const tool_entry> next;
    if (old.enabled != enabled) {
      auto copy = std::make_shared<tool_entry>(old);
      copy->enabled = enabled;
      next = std::move(copy);
      changed = true;
    }
    return next;
  });
  if (changed) core_.list_changed(list_index_);
  return found;
}

bool tools_feature::offers_tasks() const {
  for (const auto& e : tools_.all()) {
    if (e->spec.task_support_mode.value_or(task_support::forbidden) != task_support::forbidden) {
      return true;
    }
  }
  return false;
}

std::vector<std::string> tools_feature::names() const {
  std::vector<std::string> out;
  for (const auto& e : tools_.all()) out.push_back(e->spec.name);
  return out;
}

std::shared_ptr<const tool_entry> tools_feature::find(std::string_view name) const {
  auto e = tools_.find(name);
  return e && e->enabled ? e : nullptr;
}

void tools_feature::list(server_session_impl& s, const jsonrpc::request& req) const {
  const auto i = static_cast<std::size_t>(s.session_era());
  const auto who = s.who();
  const auto pipeline = core_.pipeline();
  answer_list(
      s, req, tools_, "tools",
      [&who = *who, &pipeline = *pipeline](const tool_entry& e) {
        if (!e.enabled || !missing_scopes(e.spec.scopes, who).empty()) return false;
        return std::all_of(pipeline.begin(), pipeline.end(),
                           [&](const auto& x) { return x->visible(who, e.spec); });
      },
      [i](const tool_entry& e) { return e.wire[i].size(); },
      [i](std::string& out, const tool_entry& e) { out += e.wire[i]; });
}

void tools_feature::call(server_session_impl& s, jsonrpc::request&& req) {
  auto origin = s.origin_of(req);  // before `_meta` leaves the params
  // 2026-07-28: what the client answered so far (before the params are taken apart).
  auto who = s.who();
  std::shared_ptr<input_round> round;
  const bool modern = s.modern();
  if (modern) {
    auto opened = open_round(core_, req, *who, *origin.client_caps);
    if (!opened) return s.reply_error(req.id, opened.error());
    round = std::move(*opened);
  }
  auto& p = req.params;
  const auto* name = p.if_contains("name");
  if (!name || !name->is_string()) {
    return s.reply_error(req.id, invalid_params("tools/call needs a string \"name\""));
  }
  auto* a = p.if_contains("arguments");
  if (a && !a->is_object()) {
    return s.reply_error(req.id, invalid_params("tools/call: \"arguments\" must be an object"));
  }
  // Moved out of the message once (no copy), then pilfered into the call: each further move
  // would take, and later drop, a reference to the message's storage. Absent ones are empty,
  // in the default storage.
  auto* mt = p.if_contains("_meta");
  if (mt && !mt->is_object()) mt = nullptr;
  json::value args = a ? json::value(std::move(*a)) : json::value(json::object_kind);
  json::object meta = mt ? json::object(std::move(mt->get_object())) : json::object();
  // Or kept as text (session_reuse.hpp), read when something asks for it.
  std::string_view meta_text = mt ? std::string_view() : kept_meta_text(req);
  auto entry = find(name->get_string());
  if (!entry) {
    return s.reply_error(req.id,
                         invalid_params("Unknown tool: " + std::string(name->get_string())));
  }
  if (auto missing = missing_scopes(entry->spec.scopes, *who); !missing.empty()) {
    return s.reply_error(req.id, invalid_params("Tool \"" + entry->spec.name +
                                                "\" needs scopes the caller was not granted: " +
                                                join_scopes(missing)));
  }
  // Tasks (2025-11-25): `task` is read only where the era has tasks; elsewhere it is ignored.
  const auto mode = entry->spec.task_support_mode.value_or(task_support::forbidden);
  const auto* task = traits(s.session_era()).tasks ? p.if_contains("task") : nullptr;
  static const json::value no_ttl = json::object{};
  if (s.modern() && mode != task_support::forbidden) {
    // 2026-07-28, the tasks extension: the server decides; a request that cannot take a task
    // gets none, and -32021 when the tool runs only as one.
    const bool ext = tasks_feature::declares_extension(*origin.client_caps);
    if (!ext && mode == task_support::required) {
      return s.reply_error(req.id,
                           tasks_feature::extension_required("Tool \"" + entry->spec.name + "\""));
    }
    if (ext) task = &no_ttl;
  }
  if (task != nullptr) {
    if (mode == task_support::forbidden) {
      return s.reply_error(
          req.id, error{errc::method_not_found,
                        "Tool \"" + entry->spec.name + "\" does not support task-augmented calls"});
    }
    auto admitted = core_.tasks->admit(s, *task);
    if (!admitted) return s.reply_error(req.id, admitted.error());
    if (!meta_text.empty()) meta = meta_object(std::exchange(meta_text, {}));
    tasks_feature::mark(meta, *admitted);
  } else if (mode == task_support::required) {
    return s.reply_error(
        req.id, error{errc::method_not_found,
                      "Tool \"" + entry->spec.name + "\" must be called as a task (params.task)"});
  }
  auto call = std::make_shared<call_state>(s.self(), shared_from_this(), req.id, std::move(entry),
                                           std::move(args), std::move(meta), std::move(who),
                                           core_.pipeline(), std::move(origin));
  // A task call runs through the interceptors as a plain call (a rate limit or an access check
  // refuses it without creating a task); it becomes a task just before the handler.
  if (!meta_text.empty()) call->keep_meta_text(meta_text, p.storage());
  if (task != nullptr) call->task_request = task->get_object();
  if (round) {
    call->set_round(std::move(round));
  } else if (modern) {
    call->defer_round(request_state::round_method::tools_call);
  }
  if (!s.track(call)) return;
  run(call);
}

}  // namespace mcp::detail
