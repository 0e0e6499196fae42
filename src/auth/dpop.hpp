// Internal: DPoP (RFC 9449) for one OAuth client: its key, a fresh proof JWT per request (typ
// dpop+jwt, the public key in `jwk`; jti, htm, htu, iat; ath for a resource request; the server's
// nonce when it gave one), and the nonces servers gave (DPoP-Nonce), kept by origin.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "auth/jws.hpp"

namespace mcp::auth::detail {

/// The `htu` of a request to `url` (RFC 9449 §4.2): the URL without its query and fragment.
[[nodiscard]] std::string dpop_htu(std::string_view url);

/// `value` as a nonce to send back, when it is one (RFC 9449 §8.1: 1*NQCHAR, here at most 1024
/// characters); nullopt otherwise. Never throws (except std::bad_alloc).
[[nodiscard]] std::optional<std::string> dpop_nonce(std::string_view value);

/// One client's DPoP key and the nonces servers asked it to use.
///
/// Thread-safety: every member may be called from any thread.
class dpop_signer {
 public:
  /// Proofs signed by `key` with `alg` (which the key fits).
  dpop_signer(signing_key key, std::string alg);

  /// A new proof for a request of HTTP `method` to `url`: a random `jti`, `iat` now, `ath` when
  /// an access token is presented with it, and the nonce last given by `url`'s origin. Throws
  /// `std::runtime_error` when it cannot be signed.
  [[nodiscard]] std::string proof(std::string_view method, std::string_view url,
                                  std::string_view access_token = {}) const;
  /// The key's RFC 7638 thumbprint (what a bound token's `cnf.jkt` names).
  [[nodiscard]] const std::string& jkt() const noexcept { return jkt_; }
  [[nodiscard]] const std::string& algorithm() const noexcept { return alg_; }

  /// Notes a `DPoP-Nonce` header value from an answer of `url`'s server (ignored unless it is
  /// a valid nonce). Returns true when it is a nonce different from the one kept.
  bool remember_nonce(std::string_view url, std::string_view value);
  /// The nonce kept for `url`'s origin (empty: none).
  [[nodiscard]] std::string nonce_for(std::string_view url) const;

 private:
  signing_key key_;
  std::string alg_;
  std::string jkt_;
  json::object jwk_;
  mutable std::mutex mu_;
  std::map<std::string, std::string, std::less<>> nonces_;  // origin → nonce
};

}  // namespace mcp::auth::detail
