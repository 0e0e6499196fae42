// DPoP proofs (RFC 9449 §4) and the nonces servers hand out (§8, §9).
#include "auth/dpop.hpp"

#include <boost/url/parse.hpp>

#include <algorithm>
#include <cctype>

#include "auth/jose.hpp"
#include "detail/sha256.hpp"

namespace mcp::auth::detail {
namespace {

constexpr std::size_t max_nonce = 1024;

/// scheme://authority of `url`, lowercased (the key nonces are kept under); the whole text when
/// it is not an absolute URL.
std::string origin_of(std::string_view url) {
  std::string out(url);
  if (auto u = boost::urls::parse_absolute_uri(url)) {
    out = std::string(u->scheme()) + "://" + std::string(u->encoded_authority());
  }
  std::transform(out.begin(), out.end(), out.begin(), [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  });
  return out;
}

}  // namespace

std::string dpop_htu(std::string_view url) {
  return std::string(url.substr(0, std::min(url.find('?'), url.find('#'))));
}

std::optional<std::string> dpop_nonce(std::string_view value) {
  // Surrounding white space is the header's, not the nonce's.
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  if (value.empty() || value.size() > max_nonce) return std::nullopt;
  const bool nqchar = std::all_of(value.begin(), value.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u == 0x21 || (u >= 0x23 && u <= 0x5b) || (u >= 0x5d && u <= 0x7e);
  });
  if (!nqchar) return std::nullopt;
  return std::string(value);
}

dpop_signer::dpop_signer(signing_key key, std::string alg)
    : key_(std::move(key)), alg_(std::move(alg)) {
  jkt_ = key_.thumbprint();
  jwk_ = key_.public_jwk();
}

std::string dpop_signer::proof(std::string_view method, std::string_view url,
                               std::string_view access_token) const {
  json::object claims{{"jti", random_base64url(18)},
                      {"htm", std::string(method)},
                      {"htu", dpop_htu(url)},
                      {"iat", unix_now()}};
  if (!access_token.empty()) {
    const auto digest = mcp::detail::sha256(access_token);
    claims["ath"] = base64url_encode(
        std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
  }
  if (auto n = nonce_for(url); !n.empty()) claims["nonce"] = std::move(n);
  return sign_jwt(key_, alg_, json::object{{"typ", "dpop+jwt"}, {"jwk", jwk_}}, claims);
}

bool dpop_signer::remember_nonce(std::string_view url, std::string_view value) {
  auto n = dpop_nonce(value);
  if (!n) return false;
  std::lock_guard lock(mu_);
  auto origin = origin_of(url);
  auto it = nonces_.find(origin);
  if (it != nonces_.end() && it->second == *n) return false;
  if (it == nonces_.end() && nonces_.size() >= 64) nonces_.clear();  // bounded: servers are few
  nonces_[std::move(origin)] = std::move(*n);
  return true;
}

std::string dpop_signer::nonce_for(std::string_view url) const {
  std::lock_guard lock(mu_);
  const auto it = nonces_.find(origin_of(url));
  return it == nonces_.end() ? std::string() : it->second;
}

}  // namespace mcp::auth::detail
