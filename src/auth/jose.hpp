// Internal: the JOSE pieces the JWT verifier is made of: base64url (RFC 4648 §5), public keys
// from JWK members (RFC 7517/7518/8037), signature checks with OpenSSL 3, and fetching a JWKS
// document over HTTP(S).
#pragma once

#include <mcp/auth.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

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

/// Whether a key of type `kty` can check signatures of `alg`.
[[nodiscard]] bool key_fits(std::string_view kty, std::string_view alg);

/// Checks `sig` over `input` with `k` for algorithm `alg` (which the key fits). Never throws.
[[nodiscard]] bool verify_signature(const key_set::key& k, std::string_view alg,
                                    std::string_view input, std::string_view sig);

/// GETs `url` (https, or http to a loopback host): the body of a 200 answer of at most
/// `max_bytes`. Throws `std::runtime_error` with the reason otherwise.
[[nodiscard]] std::string fetch_url(const std::string& url, std::chrono::milliseconds timeout,
                                    std::size_t max_bytes);

/// Whether `url` is one `fetch_url` accepts (scheme and host), else why not.
[[nodiscard]] std::optional<std::string> unusable_url(std::string_view url);

}  // namespace detail
}  // namespace mcp::auth
