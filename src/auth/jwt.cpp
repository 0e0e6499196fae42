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

using detail::refuse;

namespace {

using steady = std::chrono::steady_clock;
constexpr std::size_t max_claims_bytes = 16384;

bool supported(std::string_view alg) {
  return alg == "RS256" || alg == "PS256" || alg == "ES256" || alg == "EdDSA";
}

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
  mutable std::string load_detail;

  mutable detail::verdict_cache cache;

  [[nodiscard]] bool from_document() const { return opts.keys.location.starts_with("{"); }
  [[nodiscard]] bool from_url() const {
    return opts.keys.location.starts_with("https://") || opts.keys.location.starts_with("http://");
  }

  /// The keys; throws std::runtime_error with the reason (caught by `refresh`).
  [[nodiscard]] key_set read_keys() const {
    auto checked = [](result<key_set> set) {
      if (!set) throw std::runtime_error(set.error().message);
      return std::move(*set);
    };
    const auto& loc = opts.keys.location;
    if (from_document()) return checked(key_set::parse(loc));
    if (from_url()) {
      return checked(key_set::parse(detail::fetch_url(loc, opts.keys.fetch_timeout,
                                                      std::size_t{1} << 20U, opts.keys.ca_file)));
    }
    std::ifstream in(loc, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open JWKS file " + loc);
    std::ostringstream text;
    text << in.rdbuf();
    return checked(key_set::parse(text.str()));
  }

  /// Loads the keys when never loaded, when stale, or (`unknown_kid`) when a token names a key
  /// not in the set and the last attempt is older than `min_refresh`. Returns the reason when
  /// no keys are available at all.
  enum class plan { keep, reload, refuse };

  /// What to do now (under `keys_mu`, shared or not).
  [[nodiscard]] plan decide(steady::time_point now, bool unknown_kid, bool force) const {
    if (force) return plan::reload;
    const bool stale = loaded && !from_document() && now - loaded_at >= opts.keys.cache_for;
    const bool may_retry =
        last_attempt == steady::time_point{} || now - last_attempt >= opts.keys.min_refresh;
    if (loaded && !stale && !(unknown_kid && may_retry && !from_document())) return plan::keep;
    // Never loaded: load, or wait for the load under way; refuse only after one failed.
    if (!loaded) return may_retry || load_error.empty() ? plan::reload : plan::refuse;
    return may_retry ? plan::reload : plan::keep;  // stale: keep the old keys a while
  }

  /// Loads the keys when never loaded, when stale, or (`unknown_kid`) when a token names a key
  /// not in the set and the last attempt is older than `min_refresh`. Returns the reason when
  /// no keys are available at all. While one thread loads, the others go on with the keys they
  /// have (only the first load is waited for).
  std::optional<std::string> refresh(bool unknown_kid, bool force = false) const {
    const auto now = steady::now();
    bool have_keys = false;
    {
      std::shared_lock lock(keys_mu);
      const auto p = decide(now, unknown_kid, force);
      if (p == plan::keep) return std::nullopt;
      if (p == plan::refuse) return load_error;
      have_keys = loaded;
    }
    std::unique_lock reload(reload_mu, std::defer_lock);
    if (have_keys && !force) {
      if (!reload.try_lock()) return std::nullopt;  // another thread is loading them
    } else {
      reload.lock();
    }
    {
      std::unique_lock lock(keys_mu);  // decided again: another thread may have just loaded
      const auto p = decide(now, unknown_kid, force);
      if (p == plan::keep) return std::nullopt;
      if (p == plan::refuse) return load_error;
      last_attempt = now;
    }
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
      load_detail = e.what();
      // The caller (unauthenticated) is told that much; `load_keys` says why.
      load_error = "the signing keys cannot be loaded";
      if (force) throw std::runtime_error(load_error + ": " + load_detail);
      return loaded ? std::nullopt : std::optional<std::string>(load_error);
    }
  }

  [[nodiscard]] std::shared_ptr<const key_set::key> find_key(std::string_view alg,
                                                             std::string_view kid) const {
    std::shared_lock lock(keys_mu);
    return keys.find(alg, kid);
  }

  [[nodiscard]] token_verdict check(std::string_view token) const;
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
  auto verdict = detail::check_claims(std::move(payload->get_object()),
                                      {.issuer = opts.issuer,
                                       .audience = opts.audience,
                                       .clock_skew = opts.clock_skew,
                                       .require_expiry = opts.require_expiry},
                                      expires);
  if (verdict.who) cache.remember(std::string(token), *verdict.who, expires);
  return verdict;
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
  impl_->cache.set_capacity(opts.cache_entries);
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
      if (auto who = impl_->cache.find(std::string(token))) {
        return token_verdict{.who = std::move(who)};
      }
    }
    return impl_->check(token);
  } catch (const std::exception& e) {
    return refuse(std::string("the token cannot be checked: ") + e.what());
  }
}

result<void> jwt_verifier::load_keys() const {
  try {
    (void)impl_->refresh(false, true);
    return {};
  } catch (const std::runtime_error& e) {
    return error{errc::connection_closed, e.what()};
  }
}

}  // namespace mcp::auth
