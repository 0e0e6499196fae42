// Prompts and completion: the Prompt wire form, prompts/list, prompts/get (required arguments
// checked before the handler runs) and completion/complete for prompt arguments and resource
// template variables.
#include <exception>

#include "catalog.hpp"

namespace mcp::detail {

namespace {

constexpr std::size_t max_completion_values = 100;  // CompleteResult.completion.values

error bad_params(std::string msg) { return error{errc::invalid_params, std::move(msg)}; }

/// A string-to-string object (`arguments`, `context.arguments`).
result<uri_variables> string_map(const json::value* v, std::string_view what) {
  uri_variables out;
  if (!v) return out;
  if (!v->is_object()) return bad_params(std::string(what) + " must be an object");
  for (const auto& [k, x] : v->get_object()) {
    if (!x.is_string()) return bad_params(std::string(what) + " values must be strings");
    out.emplace(std::string(k), std::string(x.get_string()));
  }
  return out;
}

}  // namespace

json::object prompt_wire(const prompt_spec& s, era e) {
  json::object o{{"name", s.name}};
  if (e >= era::v2025_06_18 && s.title) o["title"] = *s.title;
  if (s.description) o["description"] = *s.description;
  if (!s.arguments.empty()) {
    json::array args;
    for (const auto& a : s.arguments) {
      json::object ao{{"name", a.name}};
      if (e >= era::v2025_06_18 && a.title) ao["title"] = *a.title;
      if (a.description) ao["description"] = *a.description;
      if (a.required) ao["required"] = true;
      args.emplace_back(std::move(ao));
    }
    o["arguments"] = std::move(args);
  }
  if (e >= era::v2025_11_25 && !s.icons.empty()) o["icons"] = icons_to_json(s.icons);
  if (e >= era::v2025_06_18 && !s.meta.empty()) o["_meta"] = s.meta;
  return o;
}

result<json::object> prompts_list(const resource_catalogs& c, const json::object& params, era e,
                                  std::size_t page_size) {
  auto cursor = cursor_param(params);
  if (!cursor) return cursor.error();
  auto page = c.prompts.page(*cursor, page_size,
                             [e](const prompt_entry& p) { return prompt_wire(p.spec, e); });
  if (!page) return page.error();
  json::object out{{"prompts", std::move(page->first)}};
  if (page->second) out["nextCursor"] = *page->second;
  return out;
}

result<json::object> prompts_get(const resource_catalogs& c, const json::object& params,
                                 const principal& who, era e) {
  const auto* n = params.if_contains("name");
  if (!n || !n->is_string()) return bad_params("prompts/get needs a string \"name\"");
  auto entry = c.prompts.find(n->get_string());
  if (!entry) return bad_params("Unknown prompt: " + std::string(n->get_string()));
  auto args = string_map(params.if_contains("arguments"), "arguments");
  if (!args) return args.error();
  for (const auto& a : entry->spec.arguments) {
    if (a.required && !args->contains(a.name)) {
      return bad_params("Missing required argument \"" + a.name + "\" for prompt \"" +
                        entry->spec.name + "\"");
    }
  }
  prompt_request req{.name = entry->spec.name, .arguments = std::move(*args), .caller = &who};
  result<get_prompt_result> got = error{errc::internal_error, "no result"};
  try {
    got = entry->handler(req);
  } catch (const std::exception& ex) {
    return error{errc::internal_error, "prompt \"" + req.name + "\" failed: " + ex.what()};
  } catch (...) {
    return error{errc::internal_error, "prompt \"" + req.name + "\" failed"};
  }
  if (!got) return got.error();
  json::array messages;
  for (const auto& m : got->messages) {
    const auto* type = m.content.if_contains("type");
    if (type != nullptr && type->is_string() && !content_type_known(type->get_string(), e)) {
      continue;  // e.g. a resource_link for a 2025-03-26 client
    }
    messages.emplace_back(json::object{{"role", m.role}, {"content", m.content}});
  }
  json::object out;
  if (got->description) out["description"] = *got->description;
  out["messages"] = std::move(messages);
  if (!got->meta.empty()) out["_meta"] = got->meta;
  return out;
}

json::object completion_wire(const completion_handler& h, const completion_request& r) {
  completion_result got;
  if (h) got = h(r);
  json::array values;
  for (std::size_t i = 0; i < got.values.size() && i < max_completion_values; ++i) {
    values.emplace_back(got.values[i]);
  }
  json::object completion{{"values", std::move(values)}};
  if (got.total) completion["total"] = *got.total;
  if (got.has_more || got.values.size() > max_completion_values) completion["hasMore"] = true;
  return json::object{{"completion", std::move(completion)}};
}

result<json::object> complete(const resource_catalogs& c, const json::object& params) {
  const auto* ref = params.if_contains("ref");
  const auto* arg = params.if_contains("argument");
  if (!ref || !ref->is_object() || !arg || !arg->is_object()) {
    return bad_params("completion/complete needs \"ref\" and \"argument\" objects");
  }
  const auto* name = arg->get_object().if_contains("name");
  const auto* value = arg->get_object().if_contains("value");
  if (!name || !name->is_string() || !value || !value->is_string()) {
    return bad_params("completion/complete: argument needs string \"name\" and \"value\"");
  }
  completion_request req{.argument = std::string(name->get_string()),
                         .value = std::string(value->get_string()),
                         .context = {}};
  if (const auto* ctx = params.if_contains("context"); ctx && ctx->is_object()) {
    auto vars = string_map(ctx->get_object().if_contains("arguments"), "context.arguments");
    if (!vars) return vars.error();
    req.context = std::move(*vars);
  }
  const auto& r = ref->get_object();
  const auto* type = r.if_contains("type");
  const std::string_view t =
      type && type->is_string() ? std::string_view(type->get_string()) : std::string_view();
  try {
    if (t == "ref/prompt") {
      const auto* pn = r.if_contains("name");
      if (!pn || !pn->is_string()) return bad_params("ref/prompt needs a string \"name\"");
      auto entry = c.prompts.find(pn->get_string());
      if (!entry) return bad_params("Unknown prompt: " + std::string(pn->get_string()));
      return completion_wire(entry->spec.complete, req);
    }
    if (t == "ref/resource") {
      const auto* uri = r.if_contains("uri");
      if (!uri || !uri->is_string()) return bad_params("ref/resource needs a string \"uri\"");
      auto entry = c.templates.find(uri->get_string());
      if (!entry) {
        // A plain resource has no variables to complete; anything else is unknown.
        if (c.resources.find(uri->get_string())) return completion_wire({}, req);
        return resource_not_found(uri->get_string());
      }
      return completion_wire(entry->spec.complete, req);
    }
  } catch (const std::exception& ex) {
    return error{errc::internal_error, std::string("completion failed: ") + ex.what()};
  } catch (...) {
    return error{errc::internal_error, "completion failed"};
  }
  return bad_params("completion/complete: ref.type must be \"ref/prompt\" or \"ref/resource\"");
}

}  // namespace mcp::detail
