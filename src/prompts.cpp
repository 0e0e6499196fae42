// The prompts and completion features: prompts/list, prompts/get (required arguments checked
// before the handler runs) and completion/complete for prompt arguments and resource template
// variables.
#include "prompts.hpp"

#include <algorithm>
#include <stdexcept>

#include "listing.hpp"
#include "rounds.hpp"
#include "server_core.hpp"
#include "server_session.hpp"
#include "wire.hpp"

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

/// Runs a completion handler and shapes its answer as `{"completion":{...}}` (at most 100
/// values; `hasMore` then set).
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

}  // namespace

// ---- prompts ----

prompts_feature::prompts_feature(server_core& core)
    : core_(core), list_index_(core.add_list("notifications/prompts/list_changed")) {
  core.router.add("prompts/list", "prompts", [this](server_session_impl& s, jsonrpc::request&& r) {
    const auto e = s.session_era();
    const auto who = s.who();
    answer_list(
        s, r, prompts, "prompts",
        [this, &who = *who](const prompt_entry& p) { return refusal(who, p.spec.name).empty(); },
        [](const prompt_entry&) { return std::size_t{0}; },
        [e](std::string& out, const prompt_entry& p) {
          append_json(out, wire::prompt(p.spec, e));
        });
  });
  core.router.add("prompts/get", "prompts", [this](server_session_impl& s, jsonrpc::request&& r) {
    s.answer_later(std::move(r), [this](server_session_impl& /*self*/, const jsonrpc::request& q,
                                        const std::shared_ptr<pending_answer>& p) { get(q, p); });
  });
}

std::optional<std::pair<std::string, json::object>> prompts_feature::capability(
    const server_session_impl&) const {
  if (prompts.empty()) return std::nullopt;
  return std::pair{std::string("prompts"), json::object{{"listChanged", true}}};
}

void prompts_feature::add(prompt_spec spec, prompt_handler handler) {
  if (spec.name.empty()) throw std::invalid_argument("add_prompt: the name is empty");
  if (!handler) throw std::invalid_argument("prompt \"" + spec.name + "\": handler is empty");
  for (std::size_t i = 0; i < spec.arguments.size(); ++i) {
    const auto& a = spec.arguments[i].name;
    if (a.empty()) {
      throw std::invalid_argument("prompt \"" + spec.name + "\": an argument name is empty");
    }
    for (std::size_t k = 0; k < i; ++k) {
      if (spec.arguments[k].name == a) {
        throw std::invalid_argument("prompt \"" + spec.name + "\": argument \"" + a +
                                    "\" is declared twice");
      }
    }
  }
  const auto key = spec.name;
  core_.add_listed(
      prompts, list_index_, key,
      std::make_shared<const prompt_entry>(prompt_entry{std::move(spec), std::move(handler)}),
      "prompt");
}

std::string prompts_feature::refusal(const principal& who, std::string_view name) const {
  for (const auto& x : *core_.pipeline()) {
    if (auto why = x->prompt_refusal(who, name); !why.empty()) return why;
  }
  return {};
}

bool prompts_feature::remove(std::string_view name) {
  return core_.remove_listed(prompts, list_index_, name);
}

namespace {

/// Where a prompt handler's reply goes: the prompts/get answer, for the request's revision.
class prompt_target final : public reply_target<get_prompt_result> {
 public:
  explicit prompt_target(std::shared_ptr<pending_answer> p) : p_(std::move(p)) {}
  void complete(result<get_prompt_result>&& got) override {
    if (!got) return fail_request(std::move(got).error());
    const auto e = p_->revision();
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
    p_->finish(std::move(out));
  }
  void fail_request(error&& e) override { p_->finish(std::move(e)); }

 private:
  std::shared_ptr<pending_answer> p_;
};

}  // namespace

void prompts_feature::get(const jsonrpc::request& req,
                          const std::shared_ptr<pending_answer>& p) const {
  auto target = std::make_shared<prompt_target>(p);
  auto fail = [&](std::string msg) { target->fail_request(bad_params(std::move(msg))); };
  if (traits(p->revision()).per_request_meta) {  // 2026-07-28: what was answered so far
    auto round = open_round(core_, req, p->caller(), p->client_caps());
    if (!round) return target->fail_request(std::move(round).error());
    if (*round) {
      p->set_round(std::move(*round));
    } else {
      p->defer_round(request_state::round_method::prompts_get);
    }
  }
  const auto& params = req.params;
  const auto* n = params.if_contains("name");
  if (!n || !n->is_string()) return fail("prompts/get needs a string \"name\"");
  auto entry = prompts.find(n->get_string());
  if (!entry) return fail("Unknown prompt: " + std::string(n->get_string()));
  if (auto why = refusal(p->caller(), entry->spec.name); !why.empty()) {
    return fail("Access denied: prompt " + entry->spec.name +
                " may not be used by this caller: " + why);
  }
  auto args = string_map(params.if_contains("arguments"), "arguments");
  if (!args) return target->fail_request(std::move(args).error());
  for (const auto& a : entry->spec.arguments) {
    if (a.required && !args->contains(a.name)) {
      return fail("Missing required argument \"" + a.name + "\" for prompt \"" + entry->spec.name +
                  "\"");
    }
  }
  prompt_request pr{
      .name = entry->spec.name, .arguments = std::move(*args), .caller = &p->caller()};
  const prompt_handler& handler = entry->handler;
  p->keep_alive = std::move(entry);
  request_context ctx(p);
  handler(ctx, pr, reply<get_prompt_result>(std::move(target)));
}

std::vector<prompt_argument> prompt_traits::arguments_of(const json::object& schema) {
  std::vector<prompt_argument> out;
  const auto* props = schema.if_contains("properties");
  if (props == nullptr || !props->is_object()) return out;
  std::vector<std::string_view> required;
  if (const auto* r = schema.if_contains("required"); r != nullptr && r->is_array()) {
    for (const auto& x : r->get_array()) {
      if (x.is_string()) required.emplace_back(x.get_string());
    }
  }
  for (const auto& [name, prop] : props->get_object()) {
    prompt_argument a{.name = std::string(name)};
    if (const auto* o = prop.if_object()) {
      if (const auto* t = o->if_contains("title"); t && t->is_string())
        a.title = std::string(t->get_string());
      if (const auto* d = o->if_contains("description"); d && d->is_string()) {
        a.description = std::string(d->get_string());
      }
    }
    a.required = std::find(required.begin(), required.end(), name) != required.end();
    out.push_back(std::move(a));
  }
  return out;
}

// ---- completion ----

completion_feature::completion_feature(server_core& core, const resources_feature& resources,
                                       const prompts_feature& prompts)
    : resources_(resources), prompts_(prompts) {
  core.router.add(
      "completion/complete", "completions", [this](server_session_impl& s, jsonrpc::request&& r) {
        s.answer_later(std::move(r), [this](server_session_impl& self, const jsonrpc::request& q,
                                            const std::shared_ptr<pending_answer>& p) {
          p->finish(complete(self, q));
        });
      });
}

std::optional<std::pair<std::string, json::object>> completion_feature::capability(
    const server_session_impl&) const {
  if (prompts_.prompts.empty() && resources_.templates.empty()) return std::nullopt;
  return std::pair{std::string("completions"), json::object{}};
}

result<json::value> completion_feature::complete(const server_session_impl& s,
                                                 const jsonrpc::request& req) const {
  const auto& params = req.params;
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
  completion_request cr{.argument = std::string(name->get_string()),
                        .value = std::string(value->get_string()),
                        .context = {}};
  if (const auto* ctx = params.if_contains("context"); ctx && ctx->is_object()) {
    auto vars = string_map(ctx->get_object().if_contains("arguments"), "context.arguments");
    if (!vars) return vars.error();
    cr.context = std::move(*vars);
  }
  const auto& r = ref->get_object();
  const auto* type = r.if_contains("type");
  const std::string_view t =
      type && type->is_string() ? std::string_view(type->get_string()) : std::string_view();
  if (t == "ref/prompt") {
    const auto* pn = r.if_contains("name");
    if (!pn || !pn->is_string()) return bad_params("ref/prompt needs a string \"name\"");
    auto entry = prompts_.prompts.find(pn->get_string());
    if (!entry) return bad_params("Unknown prompt: " + std::string(pn->get_string()));
    if (auto why = prompts_.refusal(*s.who(), entry->spec.name); !why.empty()) {
      return bad_params("Access denied: prompt " + entry->spec.name +
                        " may not be used by this caller: " + why);
    }
    return completion_wire(entry->spec.complete, cr);
  }
  if (t == "ref/resource") {
    const auto* uri = r.if_contains("uri");
    if (!uri || !uri->is_string()) return bad_params("ref/resource needs a string \"uri\"");
    if (auto why = resources_.refusal(*s.who(), uri->get_string()); !why.empty()) {
      return bad_params("Access denied: resource " + std::string(uri->get_string()) +
                        " may not be read by this caller: " + why);
    }
    auto entry = resources_.templates.find(uri->get_string());
    if (!entry) {
      // A plain resource has no variables to complete; anything else is unknown.
      if (resources_.resources.find(uri->get_string())) return completion_wire({}, cr);
      return resource_not_found(uri->get_string());
    }
    return completion_wire(entry->spec.complete, cr);
  }
  return bad_params("completion/complete: ref.type must be \"ref/prompt\" or \"ref/resource\"");
}

}  // namespace mcp::detail
