// The claims every bearer token is checked for (a JWT's payload, an introspection answer), and
// the cache of verified tokens.
#include <mcp/json.hpp>

#include <algorithm>
#include <stdexcept>

#include "auth/jose.hpp"

namespace mcp::auth::detail {
namespace {

/// A NumericDate claim (seconds; fractions allowed), or nullopt when absent. Throws the reason
/// when present but not a number.
std::optional<std::int64_t> numeric_date(const json::object& claims, std::string_view name) {
  const auto* v = claims.if_contains(name);
  if (v == nullptr) return std::nullopt;
  constexpr std::int64_t bound = std::int64_t{1} << 50U;  // far past any date; no overflow
  if (v->is_int64() && v->get_int64() < bound && v->get_int64() > -bound) return v->get_int64();
  if (v->is_uint64() && v->get_uint64() < static_cast<std::uint64_t>(bound)) {
    return static_cast<std::int64_t>(v->get_uint64());
  }
  if (v->is_double() && v->get_double() > -1e15 && v->get_double() < 1e15) {  // < 2^50
    return static_cast<std::int64_t>(v->get_double());
  }
  throw std::invalid_argument("\"" + std::string(name) + "\" is not a NumericDate");
}

}  // namespace

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

token_verdict check_claims(json::object claims, const claim_rules& opts, std::int64_t& expires) {
  auto text = [&claims](std::string_view name) -> std::optional<std::string> {
    const auto* v = claims.if_contains(name);
    if (v == nullptr || !v->is_string()) return std::nullopt;
    return std::string(v->get_string());
  };
  const auto iss = text("iss");
  if (!opts.issuer.empty() && iss != opts.issuer) {
    return refuse("the token was issued by another issuer");
  }
  bool audience = false;
  if (const auto* aud = claims.if_contains("aud")) {
    if (aud->is_string()) audience = aud->get_string() == opts.audience;
    if (aud->is_array()) {
      for (const auto& a : aud->get_array()) {
        audience = audience || (a.is_string() && a.get_string() == opts.audience);
      }
    }
  }
  if (!audience) return refuse("the token was issued for another resource");
  const auto sub = text("sub");
  if (!sub || sub->empty()) return refuse("the token has no subject");
  const auto now = unix_now();
  const auto skew = opts.clock_skew.count();
  try {
    const auto exp = numeric_date(claims, "exp");
    if (!exp && opts.require_expiry) return refuse("the token has no expiry");
    if (exp && now >= *exp + skew) return refuse("the token has expired");
    if (const auto nbf = numeric_date(claims, "nbf"); nbf && now + skew < *nbf) {
      return refuse("the token is not valid yet");
    }
    if (const auto iat = numeric_date(claims, "iat"); iat && now + skew < *iat) {
      return refuse("the token was issued in the future");
    }
    expires = exp ? *exp + skew : INT64_MAX;
  } catch (const std::invalid_argument& e) {
    return refuse(std::string("the token's claim ") + e.what());
  }
  principal who;
  who.subject = *sub;
  who.issuer = opts.issuer.empty() ? iss.value_or("") : opts.issuer;
  who.client_id = text("client_id").value_or(text("azp").value_or(""));
  who.scopes.emplace();
  if (auto scope = text("scope")) {  // RFC 9068: space-separated
    std::size_t i = 0;
    while (i < scope->size()) {
      const auto end = std::min(scope->find(' ', i), scope->size());
      if (end > i) who.scopes->push_back(scope->substr(i, end - i));
      i = end + 1;
    }
  } else if (const auto* scp = claims.if_contains("scp"); scp && scp->is_array()) {
    for (const auto& s : scp->get_array()) {
      if (s.is_string()) who.scopes->emplace_back(s.get_string());
    }
  }
  who.claims = std::move(claims);
  return token_verdict{.who = std::move(who)};
}

std::optional<principal> verdict_cache::find(const std::string& token) const {
  if (capacity_ == 0) return std::nullopt;
  std::lock_guard lock(mu_);
  auto it = entries_.find(token);
  if (it == entries_.end()) return std::nullopt;
  if (unix_now() >= it->second.expires) {
    entries_.erase(it);
    return std::nullopt;
  }
  return it->second.who;
}

void verdict_cache::remember(std::string token, const principal& who, std::int64_t expires) {
  if (capacity_ == 0) return;
  std::lock_guard lock(mu_);
  if (entries_.size() >= capacity_) {
    const auto now = unix_now();
    std::erase_if(entries_, [now](const auto& kv) { return now >= kv.second.expires; });
    if (entries_.size() >= capacity_) entries_.clear();
  }
  entries_.insert_or_assign(std::move(token), entry{who, expires});
}

}  // namespace mcp::auth::detail
