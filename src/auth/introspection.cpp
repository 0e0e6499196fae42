// Opaque tokens checked with the authorization server (RFC 7662 token introspection).
#include <mcp/content.hpp>
#include <mcp/json.hpp>

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include "auth/jose.hpp"

namespace mcp::auth {

using detail::refuse;
namespace {}  // namespace

struct introspection_verifier::impl {
  introspection_options opts;
  detail::verdict_cache cache;
  // Tokens the server called inactive (or whose claims failed), for `refused_for`: a client
  // repeating a bad token does not make a request to the endpoint each time.
  mutable std::mutex refused_mu;
  mutable std::unordered_map<std::string, std::pair<std::int64_t, std::string>> refused;

  [[nodiscard]] std::optional<std::string> refused_before(const std::string& token) const {
    std::lock_guard lock(refused_mu);
    auto it = refused.find(token);
    if (it == refused.end()) return std::nullopt;
    if (detail::unix_now() >= it->second.first) {
      refused.erase(it);
      return std::nullopt;
    }
    return it->second.second;
  }
  void remember_refusal(std::string token, std::string reason) const {
    std::lock_guard lock(refused_mu);
    if (refused.size() >= opts.cache_entries) refused.clear();
    refused.insert_or_assign(
        std::move(token),
        std::pair{detail::unix_now() + opts.refused_for.count(), std::move(reason)});
  }

  /// `answered`: the endpoint answered (a refusal then is the token's, not the network's).
  [[nodiscard]] token_verdict ask(std::string_view token, bool& answered) const {
    detail::http_call call{
        .method = "POST",
        .ca_file = opts.ca_file,
        .headers = {{"Content-Type", "application/x-www-form-urlencoded"},
                    {"Accept", "application/json"}},
        .body = "token=" + detail::form_encode(token) + "&token_type_hint=access_token"};
    if (!opts.client_id.empty() || !opts.client_secret.empty()) {
      // RFC 6749 §2.3.1: the credentials are form-encoded, then Basic.
      call.headers.emplace_back(
          "Authorization", "Basic " + mcp::base64_encode(detail::form_encode(opts.client_id) + ":" +
                                                         detail::form_encode(opts.client_secret)));
    }
    std::string answer;
    try {
      answer = detail::http_exchange(opts.endpoint, call, opts.timeout, 65536);
    } catch (const std::exception&) {  // the endpoint's address is not the caller's business
      return refuse("the token cannot be introspected");
    }
    answered = true;
    return check_answer(answer);
  }

  [[nodiscard]] token_verdict check_answer(std::string_view answer) const {
    return detail::check_introspection_answer(answer, {.issuer = opts.issuer,
                                                       .audience = opts.audience,
                                                       .clock_skew = opts.clock_skew,
                                                       .require_expiry = false});
  }
};

introspection_verifier::introspection_verifier(introspection_options opts)
    : impl_(std::make_shared<impl>()) {
  if (opts.endpoint.empty()) throw std::invalid_argument("introspection: endpoint is empty");
  if (opts.audience.empty()) throw std::invalid_argument("introspection: audience is empty");
  if (auto why = detail::unusable_url(opts.endpoint)) {
    throw std::invalid_argument("introspection: " + *why);
  }
  impl_->cache.set_capacity(opts.cache_entries);
  impl_->opts = std::move(opts);
}

token_verdict introspection_verifier::verify(std::string_view token) const {
  try {
    if (token.empty()) return refuse("the token is empty");
    if (token.size() > impl_->opts.max_token_bytes) return refuse("the token is too long");
    std::string key(token);
    if (auto who = impl_->cache.find(key)) return token_verdict{.who = std::move(who)};
    if (auto why = impl_->refused_before(key)) return refuse(std::move(*why));
    bool answered = false;
    auto verdict = impl_->ask(token, answered);
    if (!verdict.who && answered && impl_->opts.refused_for.count() > 0 &&
        impl_->opts.cache_entries > 0) {
      impl_->remember_refusal(key, verdict.reason);
    }
    if (verdict.who) {
      std::int64_t until = detail::unix_now() + impl_->opts.cache_for.count();
      if (const auto* exp = verdict.who->claims.if_contains("exp"); exp && exp->is_int64()) {
        until = std::min(until, exp->get_int64());
      }
      impl_->cache.remember(std::move(key), *verdict.who, until);
    }
    return verdict;
  } catch (const std::exception& e) {
    return refuse(std::string("the token cannot be checked: ") + e.what());
  }
}

namespace detail {

token_verdict check_introspection_answer(std::string_view answer, const claim_rules& rules) {
  auto doc = parse_json(answer, json_limits{.max_size = 65536, .max_depth = 16});
  if (!doc || !doc->is_object()) return refuse("the introspection answer is not a JSON object");
  auto& o = doc->get_object();
  const auto* active = o.if_contains("active");
  if (active == nullptr || !active->is_bool() || !active->get_bool()) {
    return refuse("the token is not active");
  }
  // The endpoint speaks for its own server: an answer without `iss` is that issuer's.
  if (!rules.issuer.empty() && !o.contains("iss")) o["iss"] = rules.issuer;
  std::int64_t expires = 0;
  return check_claims(std::move(o), rules, expires);
}

std::string form_encode(std::string_view s) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) != 0 || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4U]);
      out.push_back(hex[c & 0xfU]);
    }
  }
  return out;
}

}  // namespace detail
}  // namespace mcp::auth
