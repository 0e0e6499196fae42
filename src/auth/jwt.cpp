// The JWT access token verifier: key source with reloads, signature, claims, verified-token
// cache.
#include <mcp/json.hpp>

#include <algorithm>
#include <fstream>
#include <mutex>
#include <shared_mutex>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "auth/jose.hpp"

namespace mcp::auth {

namespace {

using steady = std::chrono::steady_clock;
constexpr std::size_t max_claims_bytes = 16384;

bool supported(std::string_view alg) {
  return alg == "RS256" || alg == "PS256" || alg == "ES256" || alg == "EdDSA";
}

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// A NumericDate claim (seconds; fractions allowed), or nullopt when absent. Throws the reason
/// when present but not a number.
std::optional<std::int64_t> numeric_date(const json::object& claims, std::string_view name) {
  const auto* v = claims.if_contains(name);
  if (v == nullptr) return std::nullopt;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64() && v->get_uint64() < (std::uint64_t{1} << 62U)) {
    return static_cast<std::int64_t>(v->get_uint64());
  }
  if (v->is_double() && v->get_double() > -1e15 && v->get_double() < 1e15) {
    return static_cast<std::int64_t>(v->get_double());
  }
  throw std::invalid_argument("\"" + std::string(name) + "\" is not a NumericDate");
}

token_verdict refuse(std::string reason) { return token_verdict{.reason = std::move(reason)}; }

}  // namespace

struct jwt_verifier::impl {
  jwt_options opts;

  // Keys: replaced whole under the lock; a reload runs with `reload_mu` held.
  mutable std::shared_mutex keys_mu;
  mutable std::mutex reload_mu;
  mutable key_set keys;
  mutable bool loaded = false;
  mutable steady::time_point loaded_at{};
  mutable steady::time_point last_attempt{};
  mutable std::string load_error;

  struct cached {
    principal who;
    std::int64_t expires = 0;  ///< unix seconds (exp + skew), or INT64_MAX without exp
  };
  mutable std::mutex cache_mu;
  mutable std::unordered_map<std::string, cached> cache;

  [[nodiscard]] bool from_document() const { return opts.keys.location.starts_with("{"); }
  [[nodiscard]] bool from_url() const {
    return opts.keys.location.starts_with("https://") || opts.keys.location.starts_with("http://");
  }

  [[nodiscard]] key_set read_keys() const {
    const auto& loc = opts.keys.location;
    if (from_document()) return key_set::parse(loc);
    if (from_url()) {
      return key_set::parse(detail::fetch_url(loc, opts.keys.fetch_timeout, std::size_t{1} << 20U));
    }
    std::ifstream in(loc, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open JWKS file " + loc);
    std::ostringstream text;
    text << in.rdbuf();
    return key_set::parse(text.str());
  }

  /// Loads the keys when never loaded, when stale, or (`unknown_kid`) when a token names a key
  /// not in the set and the last attempt is older than `min_refresh`. Returns the reason when
  /// no keys are available at all.
  std::optional<std::string> refresh(bool unknown_kid, bool force = false) const {
    std::lock_guard reload(reload_mu);
    const auto now = steady::now();
    {
      std::shared_lock lock(keys_mu);
      const bool stale = loaded && !from_document() && now - loaded_at >= opts.keys.cache_for;
      const bool may_retry =
          last_attempt == steady::time_point{} || now - last_attempt >= opts.keys.min_refresh;
      if (!force && loaded && !stale && !(unknown_kid && may_retry && !from_document())) {
        return std::nullopt;
      }
      if (!force && !loaded && !may_retry) return load_error;
      if (!force && stale && !may_retry) return std::nullopt;  // keep the old keys a while
    }
    last_attempt = now;
    try {
      auto fresh = read_keys();
      std::unique_lock lock(keys_mu);
      keys = std::move(fresh);
      loaded = true;
      loaded_at = now;
      load_error.clear();
      return std::nullopt;
    } catch (const std::exception& e) {
      std::unique_lock lock(keys_mu);
      load_error = std::string("the signing keys cannot be loaded: ") + e.what();
      if (force) throw std::runtime_error(load_error);
      return loaded ? std::nullopt : std::optional<std::string>(load_error);
    }
  }

  [[nodiscard]] std::shared_ptr<const key_set::key> find_key(std::string_view alg,
                                                             std::string_view kid) const {
    std::shared_lock lock(keys_mu);
    return keys.find(alg, kid);
  }

  [[nodiscard]] std::optional<principal> cached_principal(const std::string& token) const {
    if (opts.cache_entries == 0) return std::nullopt;
    std::lock_guard lock(cache_mu);
    auto it = cache.find(token);
    if (it == cache.end()) return std::nullopt;
    if (unix_now() >= it->second.expires) {
      cache.erase(it);
      return std::nullopt;
    }
    return it->second.who;
  }

  void remember(std::string token, const principal& who, std::int64_t expires) const {
    if (opts.cache_entries == 0) return;
    std::lock_guard lock(cache_mu);
    if (cache.size() >= opts.cache_entries) {
      const auto now = unix_now();
      std::erase_if(cache, [now](const auto& kv) { return now >= kv.second.expires; });
      if (cache.size() >= opts.cache_entries) cache.clear();
    }
    cache.insert_or_assign(std::move(token), cached{who, expires});
  }

  [[nodiscard]] token_verdict check(std::string_view token) const;
  [[nodiscard]] token_verdict claims_check(json::object claims, std::int64_t& expires) const;
};

token_verdict jwt_verifier::impl::check(std::string_view token) const {
  if (token.size() > opts.max_token_bytes) return refuse("the token is too long");
  const auto dot1 = token.find('.');
  const auto dot2 = dot1 == std::string_view::npos ? dot1 : token.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos || token.find('.', dot2 + 1) != std::string_view::npos) {
    return refuse("the token is not a JWS compact serialization");
  }
  const auto header_text = detail::base64url_decode(token.substr(0, dot1));
  const auto payload_text = detail::base64url_decode(token.substr(dot1 + 1, dot2 - dot1 - 1));
  const auto signature = detail::base64url_decode(token.substr(dot2 + 1));
  if (!header_text || !payload_text || !signature) return refuse("the token is not base64url");
  const json_limits limits{.max_size = max_claims_bytes, .max_depth = 16};
  auto header = parse_json(*header_text, limits);
  if (!header || !header->is_object()) return refuse("the token header is not a JSON object");
  const auto& h = header->get_object();
  const auto* alg_v = h.if_contains("alg");
  if (alg_v == nullptr || !alg_v->is_string()) return refuse("the token header has no \"alg\"");
  const std::string alg(alg_v->get_string());
  if (std::find(opts.algorithms.begin(), opts.algorithms.end(), alg) == opts.algorithms.end()) {
    return refuse("signature algorithm \"" + alg + "\" is not accepted");
  }
  if (h.contains("crit")) return refuse("the token header has \"crit\" extensions");
  if (opts.require_at_jwt_type) {
    const auto* typ = h.if_contains("typ");
    const bool ok = typ != nullptr && typ->is_string() &&
                    (typ->get_string() == "at+jwt" || typ->get_string() == "application/at+jwt");
    if (!ok) return refuse("the token's \"typ\" is not at+jwt");
  }
  std::string kid;
  if (const auto* k = h.if_contains("kid")) {
    if (!k->is_string()) return refuse("the token's \"kid\" is not a string");
    kid = std::string(k->get_string());
  }
  if (auto why = refresh(false)) return refuse(*why);
  auto key = find_key(alg, kid);
  if (!key) {
    if (auto why = refresh(true)) return refuse(*why);
    key = find_key(alg, kid);
    if (!key) {
      return refuse(kid.empty() ? "no single signing key fits the token's algorithm"
                                : "unknown signing key \"" + kid + "\"");
    }
  }
  if (!detail::verify_signature(*key, alg, token.substr(0, dot2), *signature)) {
    return refuse("the token's signature is invalid");
  }
  auto payload = parse_json(*payload_text, limits);
  if (!payload || !payload->is_object()) return refuse("the token's claims are not a JSON object");
  std::int64_t expires = 0;
  auto verdict = claims_check(std::move(payload->get_object()), expires);
  if (verdict.who) remember(std::string(token), *verdict.who, expires);
  return verdict;
}

token_verdict jwt_verifier::impl::claims_check(json::object claims, std::int64_t& expires) const {
  auto text = [&claims](std::string_view name) -> std::optional<std::string> {
    const auto* v = claims.if_contains(name);
    if (v == nullptr || !v->is_string()) return std::nullopt;
    return std::string(v->get_string());
  };
  if (text("iss") != opts.issuer) return refuse("the token was issued by another issuer");
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
  who.issuer = opts.issuer;
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

jwt_verifier::jwt_verifier(jwt_options opts) : impl_(std::make_shared<impl>()) {
  if (opts.issuer.empty()) throw std::invalid_argument("jwt_verifier: issuer is empty");
  if (opts.audience.empty()) throw std::invalid_argument("jwt_verifier: audience is empty");
  if (opts.keys.location.empty()) {
    throw std::invalid_argument("jwt_verifier: keys.location is empty");
  }
  if (opts.algorithms.empty()) throw std::invalid_argument("jwt_verifier: no algorithm");
  for (const auto& a : opts.algorithms) {
    if (!supported(a)) throw std::invalid_argument("jwt_verifier: unsupported algorithm " + a);
  }
  impl_->opts = std::move(opts);
  if (impl_->from_url()) {
    if (auto why = detail::unusable_url(impl_->opts.keys.location)) {
      throw std::invalid_argument("jwt_verifier: " + *why);
    }
  }
}

token_verdict jwt_verifier::verify(std::string_view token) const {
  try {
    if (token.empty()) return refuse("the token is empty");
    if (token.size() <= impl_->opts.max_token_bytes) {
      if (auto who = impl_->cached_principal(std::string(token))) {
        return token_verdict{.who = std::move(who)};
      }
    }
    return impl_->check(token);
  } catch (const std::exception& e) {
    return refuse(std::string("the token cannot be checked: ") + e.what());
  }
}

void jwt_verifier::load_keys() const { (void)impl_->refresh(false, true); }

}  // namespace mcp::auth
