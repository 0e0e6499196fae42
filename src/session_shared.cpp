// A 2025-11-25 session kept in `server_options::shared`, so that any process of a service
// serves it: the record a session saves when what a later request depends on changes
// (initialize, logging/setLevel, resources/subscribe and unsubscribe), and the session another
// process opens from it. The record is JSON: {"v": version, "c": client capabilities, "l": log
// level, "s": [subscribed URIs], "p": the caller's principal key, "o": the task owner}. A record
// is parsed once, within the server's limits, and opens a session only for the caller whose key
// "p" holds.
#include <mcp/shared_state.hpp>

#include <boost/json/serialize.hpp>

#include "resources.hpp"
#include "server_core.hpp"
#include "server_session.hpp"

namespace mcp::detail {

void server_session_impl::save_shared() {
  const auto& shared = core_->opts.shared;
  if (!shared || stateless_ || !initialized_.load() || modern()) return;
  const auto facts = conn().facts();
  if (facts.session_id.empty()) return;
  json::array subs;
  if (core_->resources) {
    for (auto& u : core_->resources->subscribed(*this)) subs.emplace_back(std::move(u));
  }
  const json::object record{
      {"v", version_},        {"c", *client_caps_}, {"l", to_string(level_.load())},
      {"s", std::move(subs)}, {"p", who()->key()},  {"o", task_owner_}};
  // A Redis that cannot be reached loses the record: this process still serves the session;
  // another one answers 404 and the client starts a new session.
  (void)shared->save_session(facts.session_id, json::serialize(record));
}

bool server_session_impl::resume_from(std::string_view record) {
  auto parsed = parse_json(record, core_->opts.limits);
  if (!parsed || !parsed->is_object()) return false;
  const auto& o = parsed->get_object();
  // The session answers only the caller that opened it.
  const auto* p = o.if_contains("p");
  if (p == nullptr || !p->is_string() || p->get_string() != who()->key()) return false;
  const auto* v = o.if_contains("v");
  if (v == nullptr || !v->is_string()) return false;
  const auto e = find_era(v->get_string());
  if (!e || traits(*e).per_request_meta) return false;
  if (const auto* c = o.if_contains("c"); c != nullptr && c->is_object()) {
    client_caps_ = std::make_shared<const json::object>(c->get_object());
  }
  if (const auto* l = o.if_contains("l"); l != nullptr && l->is_string()) {
    if (auto level = parse_log_level(l->get_string())) level_.store(*level);
  }
  std::vector<std::string> uris;
  if (const auto* s = o.if_contains("s"); s != nullptr && s->is_array()) {
    for (const auto& u : s->get_array()) {
      if (u.is_string()) uris.emplace_back(u.get_string());
    }
  }
  const std::lock_guard lock(init_mu_);
  era_ = *e;
  version_ = std::string(traits(*e).version);
  declared_ = declare_capabilities();
  for (std::size_t k = 0; k < core_->list_count(); ++k) {
    lists_seen_[k].store(core_->list_generation(k));
  }
  if (core_->resources) core_->resources->restore_subscriptions(*this, uris);
  initialized_.store(true);
  return true;
}

}  // namespace mcp::detail
