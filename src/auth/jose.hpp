// Internal: the JOSE pieces the JWT verifier is made of: base64url (RFC 4648 §5), public keys
// from JWK members (RFC 7517/7518/8037), signature checks with OpenSSL 3, and fetching a JWKS
// document over HTTP(S).
#pragma once

#include <mcp/auth.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "http/fetch.hpp"
#include <openssl/evp.h>

namespace mcp::auth {

/// One usable public key of a key set.
struct key_set::key {
  std::string kid;  ///< may be empty
  std::string alg;  ///< the key's own `alg`; empty: any that fits its type
  std::string kty;  ///< "RSA", "EC" (P-256) or "OKP" (Ed25519)
  std::shared_ptr<EVP_PKEY> pkey;
};

namespace detail {

/// Decodes unpadded base64url; nullopt on any other character, on padding, or on a length no
/// encoding has.
[[nodiscard]] std::optional<std::string> base64url_decode(std::string_view in);
/// Encodes without padding.
[[nodiscard]] std::string base64url_encode(std::string_view in);

/// A refusal with `reason`.
[[nodiscard]] inline token_verdict refuse(std::string reason) {
  return token_verdict{.reason = std::move(reason)};
}

/// Whether a key of type `kty` can check signatures of `alg`.
[[nodiscard]] bool key_fits(std::string_view kty, std::string_view alg);

/// Checks `sig` over `input` with `k` for algorithm `alg` (which the key fits). Never throws.
[[nodiscard]] bool verify_signature(const key_set::key& k, std::string_view alg,
                                    std::string_view input, std::string_view sig);

/// What a token's claims (a JWT's payload, an introspection answer) must satisfy.
struct claim_rules {
  std::string issuer;    ///< required `iss`; empty: any (the principal's issuer is then `iss`)
  std::string audience;  ///< required among `aud`
  std::chrono::seconds clock_skew{60};
  bool require_expiry = true;
};

/// Checks `claims` and makes the principal (subject, issuer, client id, scopes, claims), or the
/// reason they are refused; `expires` gets the unix time (with skew) after which the verdict no
/// longer holds. Never throws (except std::bad_alloc).
[[nodiscard]] token_verdict check_claims(json::object claims, const claim_rules& rules,
                                         std::int64_t& expires);

/// A value for application/x-www-form-urlencoded (RFC 6749 appendix B) and URL queries: all but
/// RFC 3986 unreserved characters percent-encoded.
[[nodiscard]] std::string form_encode(std::string_view s);

/// Reads an RFC 7662 introspection answer: a JSON object whose `active` is true, then its
/// claims checked as `check_claims` does (an answer without `iss` is `rules.issuer`'s). Never
/// throws (except std::bad_alloc).
[[nodiscard]] token_verdict check_introspection_answer(std::string_view answer,
                                                       const claim_rules& rules);

/// Verified tokens, by their text, until they expire: a client sends the same token with every
/// request. Bounded (cleared of expired entries, then entirely, when full). Thread-safe.
class verdict_cache {
 public:
  void set_capacity(std::size_t n) { capacity_ = n; }
  [[nodiscard]] std::optional<principal> find(const std::string& token) const;
  void remember(std::string token, const principal& who, std::int64_t expires);

 private:
  struct entry {
    principal who;
    std::int64_t expires = 0;
  };
  std::size_t capacity_ = 10000;
  mutable std::mutex mu_;
  mutable std::unordered_map<std::string, entry> entries_;
};

/// The time now, in unix seconds.
[[nodiscard]] std::int64_t unix_now();

/// A request of `http_request` (method, ca_file, headers, body).
using http_call = http_detail::fetch_request;
/// An HTTP answer, whatever its status.
using http_response = http_detail::fetch_response;
/// One HTTP exchange with a deadline (`http_detail::fetch`) to a URL that `unusable_url`
/// accepts, returning any status. Throws `std::runtime_error` with the reason otherwise, or when
/// no complete answer (body at most `max_bytes`) arrives.
[[nodiscard]] http_response http_request(const std::string& url, const http_call& call,
                                         std::chrono::milliseconds timeout, std::size_t max_bytes);
/// The same, the body of a 200 answer; any other status throws `std::runtime_error`.
[[nodiscard]] std::string http_exchange(const std::string& url, const http_call& call,
                                        std::chrono::milliseconds timeout, std::size_t max_bytes);

/// GETs `url` (https, or http to a loopback host): the body of a 200 answer of at most
/// `max_bytes`. Throws `std::runtime_error` with the reason otherwise.
[[nodiscard]] std::string fetch_url(const std::string& url, std::chrono::milliseconds timeout,
                                    std::size_t max_bytes, const std::string& ca_file = {});

/// True when `url`'s host is a loopback name or address (localhost, 127.0.0.1, ::1).
[[nodiscard]] bool loopback_url(std::string_view url);
/// Whether `url` is one `fetch_url` accepts (scheme and host), else why not.
[[nodiscard]] std::optional<std::string> unusable_url(std::string_view url);

}  // namespace detail
}  // namespace mcp::auth
