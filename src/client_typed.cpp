// The typed face of the client: listings, reads and the InitializeResult decoded into the
// types of mcp/client_types.hpp, and the typed handlers of the server's requests (elicitation,
// sampling, roots) that declare their own capability.
#include <mcp/client.hpp>

#include <stdexcept>

#include "client_impl.hpp"

namespace mcp {

namespace {

/// `error` with `what` (the method) in front of its message.
error prefixed(std::string_view what, const error& e) {
  std::string msg(what);
  msg.append(": ").append(e.message);
  return error{e.code, std::move(msg), e.data};
}

/// Decodes every item of a listing; `key` names the result's array (for the error's pointer).
template <class T>
result<std::vector<T>> decode_items(std::string_view method, std::string_view key,
                                    result<std::vector<json::object>> items) {
  if (!items) return items.error();
  std::vector<T> out;
  out.reserve(items->size());
  const json_path root;
  const json_path list = root.member(key);
  for (std::size_t i = 0; i < items->size(); ++i) {
    auto item = from_json<T>((*items)[i], list.element(i));
    if (!item) return prefixed(method, item.error());
    out.push_back(std::move(*item));
  }
  return out;
}

/// Decodes a result object as `T`.
template <class T>
result<T> decode_result(std::string_view method, result<json::object> r) {
  if (!r) return r.error();
  auto out = from_json<T>(*r);
  if (!out) return prefixed(method, out.error());
  return out;
}

/// A request handler that decodes the params as `Req`, calls `f` and encodes its answer.
template <class Req, class F>
client_request_handler typed_handler(std::string method, F f) {
  return [method = std::move(method), f = std::move(f)](
             const json::object& params, std::stop_token stop) -> result<json::object> {
    auto req = from_json<Req>(params);
    if (!req) return prefixed(method, req.error());
    auto answer = f(*req, std::move(stop));
    if (!answer) return answer.error();
    json::value v = to_json(*answer);
    return std::move(v.get_object());
  };
}

}  // namespace

void client_session::impl::adopt_typed_handlers() {
  auto add = [this](std::string method, std::string_view capability, json::object declared,
                    client_request_handler h) {
    for (const auto& entry : opts.request_handlers) {
      if (entry.first == method) {
        throw std::invalid_argument("client_options: " + method +
                                    " has both a typed handler and a request_handlers entry");
      }
    }
    opts.request_handlers.emplace_back(std::move(method), std::move(h));
    if (!opts.capabilities.contains(capability)) {
      opts.capabilities.emplace(capability, std::move(declared));
    }
  };
  if (opts.on_elicitation) {
    json::object modes{{"form", json::object{}}};
    if (opts.elicitation_url) modes.emplace("url", json::object{});
    add("elicitation/create", "elicitation", std::move(modes),
        typed_handler<elicitation_request>("elicitation/create", opts.on_elicitation));
  }
  if (opts.on_sampling) {
    add("sampling/createMessage", "sampling", json::object{},
        typed_handler<sampling_request>("sampling/createMessage", opts.on_sampling));
  }
  if (opts.roots) {
    roots = *opts.roots;
    // The handler lives in `opts`, owned by this impl, and runs while the impl is alive.
    add("roots/list", "roots", json::object{{"listChanged", true}},
        [this](const json::object&, std::stop_token) -> result<json::object> {
          std::vector<root_info> now;
          {
            std::lock_guard lock(mu);
            now = roots;
          }
          return json::object{{"roots", to_json(now)}};
        });
  }
}

result<initialize_result> client_session::server_info() const {
  auto r = server_result();
  if (r.empty()) return error{errc::invalid_request, "the session is not initialized"};
  return decode_result<initialize_result>("initialize", std::move(r));
}

result<std::vector<tool_info>> client_session::list_tools() {
  return decode_items<tool_info>("tools/list", "tools", list_all_tools());
}

result<std::vector<resource_info>> client_session::list_resources() {
  return decode_items<resource_info>("resources/list", "resources",
                                     list_all("resources/list", "resources"));
}

result<std::vector<resource_template_info>> client_session::list_resource_templates() {
  return decode_items<resource_template_info>(
      "resources/templates/list", "resourceTemplates",
      list_all("resources/templates/list", "resourceTemplates"));
}

result<std::vector<prompt_info>> client_session::list_prompts() {
  return decode_items<prompt_info>("prompts/list", "prompts", list_all("prompts/list", "prompts"));
}

result<read_resource_result> client_session::read_resource_contents(std::string_view uri,
                                                                    const request_options& opts) {
  return decode_result<read_resource_result>("resources/read", read_resource(uri, opts));
}

result<get_prompt_result> client_session::get_prompt_messages(std::string_view name,
                                                              json::object arguments,
                                                              const request_options& opts) {
  return decode_result<get_prompt_result>("prompts/get",
                                          get_prompt(name, std::move(arguments), opts));
}

result<void> client_session::set_roots(std::vector<root_info> roots) {
  if (!impl_->opts.roots) {
    return error{errc::invalid_request, "set_roots: the client was made without roots"};
  }
  bool initialized = false;
  {
    std::lock_guard lock(impl_->mu);
    impl_->roots = std::move(roots);
    initialized = !impl_->server_result.empty();
  }
  // 2026-07-28 has no such notification: the server asks for the roots when it needs them.
  if (initialized && !impl_->modern.load()) notify("notifications/roots/list_changed");
  return {};
}

}  // namespace mcp
