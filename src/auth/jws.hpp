// Internal: signing JWTs (RFC 7515 compact serialization) with OpenSSL 3, the other half of
// the verifier in jwk.cpp: the private keys a client signs with (read from PEM, or a fresh
// P-256 key), their public JWK and RFC 7638 thumbprint, signatures for ES256, RS256, PS256 and
// EdDSA. Used for private_key_jwt client assertions (RFC 7523 §2.2) and DPoP proofs (RFC 9449).
#pragma once

#include <mcp/json.hpp>

#include <memory>
#include <string>
#include <string_view>

#include <openssl/evp.h>

namespace mcp::auth::detail {

/// A private key a client signs with. Immutable; copies share the key.
///
/// Thread-safety: const members may be called from any thread at once.
class signing_key {
 public:
  /// Reads a PEM private key: PKCS#8 (`BEGIN PRIVATE KEY`) or the traditional EC and RSA forms,
  /// unencrypted; an EC P-256 key, an RSA key of at least 2048 bits, or an Ed25519 key. Throws
  /// `std::invalid_argument` with the reason otherwise.
  [[nodiscard]] static signing_key from_pem(std::string_view pem);
  /// A new P-256 key. Throws `std::runtime_error` when OpenSSL cannot make one.
  [[nodiscard]] static signing_key generate_p256();

  /// "EC" (P-256), "RSA" or "OKP" (Ed25519).
  [[nodiscard]] const std::string& kty() const noexcept { return kty_; }
  /// The JWS algorithm this key signs with: `wanted` when the key fits it (ES256 for EC; RS256
  /// or PS256 for RSA; EdDSA for OKP), else, for an empty `wanted`, the key's own (ES256, RS256,
  /// EdDSA). Throws `std::invalid_argument` when `wanted` does not fit the key.
  [[nodiscard]] std::string algorithm(std::string_view wanted = {}) const;
  /// The public key as a JWK (`kty` and its public members only).
  [[nodiscard]] json::object public_jwk() const;
  /// The RFC 7638 SHA-256 thumbprint of the public JWK, base64url.
  [[nodiscard]] std::string thumbprint() const;
  /// The JWS signature of `input` with algorithm `alg` (which `algorithm` accepted): for ES256
  /// the 64 bytes r || s, else OpenSSL's signature. Throws `std::runtime_error` on failure.
  [[nodiscard]] std::string sign(std::string_view alg, std::string_view input) const;

 private:
  signing_key(std::shared_ptr<EVP_PKEY> pkey, std::string kty)
      : pkey_(std::move(pkey)), kty_(std::move(kty)) {}
  std::shared_ptr<EVP_PKEY> pkey_;
  std::string kty_;
};

/// `bytes` random bytes (OpenSSL's generator), base64url: nonces, `jti`s, PKCE verifiers. Throws
/// `std::runtime_error` when the generator fails.
[[nodiscard]] std::string random_base64url(std::size_t bytes);

/// A compact JWS of `claims` signed by `key` with `alg`; `header` gets `alg` set (other members,
/// such as `typ`, `kid` or `jwk`, are the caller's). Throws like `signing_key::sign`.
[[nodiscard]] std::string sign_jwt(const signing_key& key, std::string_view alg,
                                   json::object header, const json::object& claims);

}  // namespace mcp::auth::detail
