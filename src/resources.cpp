// The resources feature: registration, resources/list, resources/templates/list,
// resources/read, subscriptions and resources/updated.
#include "resources.hpp"

#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>

#include <stdexcept>
#include <unordered_set>

#include "detail/utf8.hpp"
#include "listing.hpp"
#include "rounds.hpp"
#include "server_core.hpp"
#include "server_session.hpp"
#include "wire.hpp"

namespace mcp {

resource_contents resource_contents::text_of(std::string uri, std::string text,
                                             std::optional<std::string> mime_type) {
  resource_contents c;
  c.uri = std::move(uri);
  c.mime_type = std::move(mime_type);
  c.text = std::move(text);
  return c;
}

resource_contents resource_contents::blob_of(std::string uri, std::span<const std::byte> bytes,
                                             std::optional<std::string> mime_type) {
  resource_contents c;
  c.uri = std::move(uri);
  c.mime_type = std::move(mime_type);
  c.blob = base64_encode(bytes);
  return c;
}

json::object resource_contents::to_json() const {
  json::object o{{"uri", uri}};
  if (mime_type) o["mimeType"] = *mime_type;
  if (blob) {
    o["blob"] = *blob;
  } else {
    o["text"] = text.value_or(std::string{});
  }
  if (!meta.empty()) o["_meta"] = meta;
  return o;
}

error resource_not_found(std::string_view uri) {
  return error{errc::resource_not_found, "Resource not found: " + std::string(uri),
               json::value(json::object{{"uri", uri}})};
}

namespace detail {

namespace {

/// Resource subscriptions of one session.
struct subscriptions {
  std::mutex mu;
  std::unordered_set<std::string> uris;
};

/// Subscriptions one session may hold (each costs a stored URI).
constexpr std::size_t max_subscriptions = 10000;

}  // namespace

resources_feature::resources_feature(server_core& core)
    : core_(core),
      list_index_(core.add_list("notifications/resources/list_changed")),
      subscriptions_slot_(core.add_state_slot()) {
  auto& r = core.router;
  r.add("resources/list", "resources", [this](server_session_impl& s, jsonrpc::request&& req) {
    const auto e = s.session_era();
    const auto who = s.who();
    answer_list(
        s, req, resources, "resources",
        [this, &who = *who](const resource_entry& x) { return refusal(who, x.spec.uri).empty(); },
        [](const resource_entry&) { return std::size_t{0}; },
        [e](std::string& out, const resource_entry& x) {
          append_json(out, wire::resource(x.spec, e));
        });
  });
  r.add("resources/templates/list", "resources",
        [this](server_session_impl& s, jsonrpc::request&& req) {
          const auto e = s.session_era();
          answer_list(s, req, templates, "resourceTemplates",
                      [e](std::string& out, const template_entry& x) {
                        append_json(out, wire::resource_template(x.spec, e));
                      });
        });
  r.add("resources/read", "resources", [this](server_session_impl& s, jsonrpc::request&& req) {
    s.answer_later(std::move(req),
                   [this](server_session_impl& /*self*/, const jsonrpc::request& q,
                          const std::shared_ptr<pending_answer>& p) { read(q, p); });
  });
  // 2026-07-28 subscribes through subscriptions/listen instead.
  r.add(
      "resources/subscribe", "resources",
      [this](server_session_impl& s, jsonrpc::request&& req) { subscribe(s, req, true); },
      served_in::legacy);
  r.add(
      "resources/unsubscribe", "resources",
      [this](server_session_impl& s, jsonrpc::request&& req) { subscribe(s, req, false); },
      served_in::legacy);
}

std::optional<std::pair<std::string, json::object>> resources_feature::capability(
    const server_session_impl&) const {
  if (resources.empty() && templates.empty()) return std::nullopt;
  return std::pair{std::string("resources"),
                   json::object{{"subscribe", true}, {"listChanged", true}}};
}

void resources_feature::add(resource_spec spec, resource_handler handler) {
  if (spec.uri.empty()) throw std::invalid_argument("add_resource: the URI is empty");
  if (spec.name.empty()) {
    throw std::invalid_argument("resource \"" + spec.uri + "\": the name is empty");
  }
  if (!handler) throw std::invalid_argument("resource \"" + spec.uri + "\": handler is empty");
  const auto key = spec.uri;
  core_.add_listed(
      resources, list_index_, key,
      std::make_shared<const resource_entry>(resource_entry{std::move(spec), std::move(handler)}),
      "resource");
}

void resources_feature::add_template(resource_template_spec spec, resource_handler handler) {
  auto tmpl = uri_template::parse(spec.uri_template);
  if (!tmpl) throw std::invalid_argument(tmpl.error().message);
  if (spec.name.empty()) {
    throw std::invalid_argument("resource template \"" + spec.uri_template +
                                "\": the name is empty");
  }
  if (!handler) {
    throw std::invalid_argument("resource template \"" + spec.uri_template +
                                "\": handler is empty");
  }
  const auto key = spec.uri_template;
  core_.add_listed(templates, list_index_, key,
                   std::make_shared<const template_entry>(
                       template_entry{std::move(spec), std::move(*tmpl), std::move(handler)}),
                   "resource template");
}

std::string resources_feature::refusal(const principal& who, std::string_view uri) const {
  const auto pipeline = core_.pipeline();
  if (pipeline->empty()) return {};
  std::string normal(uri);
  if (auto u = boost::urls::parse_uri_reference(uri)) {
    boost::urls::url n(*u);
    n.normalize();
    normal = std::string(n.buffer());
  }
  for (const auto& x : *pipeline) {
    if (auto why = x->resource_refusal(who, normal); !why.empty()) return why;
  }
  return {};
}

bool resources_feature::remove(std::string_view uri) {
  return core_.remove_listed(resources, list_index_, uri);
}

bool resources_feature::remove_template(std::string_view uri_template) {
  return core_.remove_listed(templates, list_index_, uri_template);
}

namespace {

/// Where a read handler's reply goes: the resources/read answer, for the request's revision.
class read_target final : public reply_target<read_resource_result> {
 public:
  /// `cache`: the caching hint of what is read (kept alive with the request's entry).
  read_target(std::shared_ptr<pending_answer> p, const cache_policy* cache)
      : p_(std::move(p)), cache_(cache) {}
  void complete(result<read_resource_result>&& got) override {
    if (!got) return fail_request(std::move(got).error());
    json::array contents;
    for (const auto& item : got->contents) contents.emplace_back(item.to_json());
    json::object out{{"contents", std::move(contents)}};
    if (!got->meta.empty()) out["_meta"] = got->meta;
    if (traits(p_->revision()).cacheable_results && cache_ != nullptr) {
      out["ttlMs"] = std::max<std::int64_t>(0, cache_->ttl.count());
      out["cacheScope"] = cache_->shared ? "public" : "private";
    }
    p_->finish(std::move(out));
  }
  void fail_request(error&& e) override {
    // A resource that does not exist has the code of the request's revision.
    if (e.is(errc::resource_not_found)) e.code = traits(p_->revision()).resource_not_found_code;
    p_->finish(std::move(e));
  }

 private:
  std::shared_ptr<pending_answer> p_;
  const cache_policy* cache_;
};

}  // namespace

void resources_feature::read(const jsonrpc::request& req,
                             const std::shared_ptr<pending_answer>& p) const {
  auto target = std::make_shared<read_target>(p, &core_.opts.read_cache);
  auto fail = [&](error e) { target->fail_request(std::move(e)); };
  if (traits(p->revision()).per_request_meta) {  // 2026-07-28: what was answered so far
    auto round = open_round(core_, req, p->caller(), p->client_caps());
    if (!round) return fail(std::move(round).error());
    if (*round) {
      p->set_round(std::move(*round));
    } else {
      p->defer_round(request_state::round_method::resources_read);
    }
  }
  const auto* u = req.params.if_contains("uri");
  if (!u || !u->is_string())
    return fail(error{errc::invalid_params, "resources/read needs a string \"uri\""});
  resource_request rr{.uri = std::string(u->get_string()), .variables = {}, .caller = &p->caller()};
  if (auto why = refusal(p->caller(), rr.uri); !why.empty()) {
    return fail(error{errc::invalid_params, "Access denied: resource " + rr.uri +
                                                " may not be read by this caller: " + why});
  }
  const resource_handler* handler = nullptr;
  if (auto r = resources.find(rr.uri)) {
    handler = &r->handler;
    if (r->spec.cache) target = std::make_shared<read_target>(p, &*r->spec.cache);
    p->keep_alive = std::move(r);
  } else {
    for (const auto& t : templates.all()) {
      if (auto vars = t->tmpl.match(rr.uri)) {
        for (const auto& [name, value] : *vars) {
          if (!detail::valid_utf8(value)) {
            // Percent-decoding made bytes that are not text: no handler gets them as a string.
            return fail(error{errc::invalid_params,
                              "Invalid params: variable \"" + name + "\" of the URI (template \"" +
                                  t->tmpl.text() + "\") does not decode to UTF-8 text"});
          }
        }
        rr.variables = std::move(*vars);
        handler = &t->handler;
        if (t->spec.cache) target = std::make_shared<read_target>(p, &*t->spec.cache);
        p->keep_alive = t;
        break;
      }
    }
  }
  if (handler == nullptr) return fail(resource_not_found(rr.uri));
  request_context ctx(p);
  (*handler)(ctx, rr, reply<read_resource_result>(std::move(target)));
}

void resources_feature::subscribe(server_session_impl& s, const jsonrpc::request& req,
                                  bool on) const {
  const auto* u = req.params.if_contains("uri");
  if (!u || !u->is_string()) {
    return s.reply_error(req.id,
                         error{errc::invalid_params, req.method + " needs a string \"uri\""});
  }
  if (auto why = refusal(*s.who(), u->get_string()); on && !why.empty()) {
    return s.reply_error(req.id, error{errc::invalid_params,
                                       "Access denied: resource " + std::string(u->get_string()) +
                                           " may not be read by this caller: " + why});
  }
  auto subs = s.state<subscriptions>(subscriptions_slot_);
  std::string uri(u->get_string());
  bool full = false;
  {
    std::lock_guard lock(subs->mu);
    if (!on) {
      subs->uris.erase(uri);
    } else if (subs->uris.size() < max_subscriptions || subs->uris.contains(uri)) {
      subs->uris.emplace(std::move(uri));
    } else {
      full = true;
    }
  }
  if (full) {
    return s.reply_error(
        req.id, error{errc::invalid_request, "Invalid Request: too many resource subscriptions"});
  }
  s.save_shared();
  s.reply(req.id, json::object{});
}

std::vector<std::string> resources_feature::subscribed(const server_session_impl& s) const {
  std::vector<std::string> out;
  auto subs = s.existing_state<subscriptions>(subscriptions_slot_);
  if (!subs) return out;
  std::lock_guard lock(subs->mu);
  out.assign(subs->uris.begin(), subs->uris.end());
  return out;
}

void resources_feature::restore_subscriptions(server_session_impl& s,
                                              const std::vector<std::string>& uris) const {
  if (uris.empty()) return;
  auto subs = s.state<subscriptions>(subscriptions_slot_);
  std::lock_guard lock(subs->mu);
  for (const auto& u : uris) {
    if (subs->uris.size() >= max_subscriptions) break;
    subs->uris.insert(u);
  }
}

void resources_feature::updated(std::string_view uri) const {
  const std::string u(uri);
  const auto message =
      jsonrpc::encode_notification("notifications/resources/updated", json::object{{"uri", u}});
  for (const auto& s : core_.live_sessions()) {
    if (!s->initialized()) continue;
    auto subs = s->existing_state<subscriptions>(subscriptions_slot_);
    if (!subs) continue;
    {
      std::lock_guard lock(subs->mu);
      if (!subs->uris.contains(u)) continue;
    }
    s->send_everywhere(message);
  }
}

}  // namespace detail

}  // namespace mcp
