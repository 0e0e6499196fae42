// File: mcp/auth.hpp
//
// Bearer token verification for a server that is an OAuth 2.1 protected resource (MCP
// 2025-11-25 authorization), target `mcp::auth` (OpenSSL 3). Defines:
//
//   - `auth::key_set`: a JSON Web Key Set (RFC 7517) of public keys: RSA, EC P-256, Ed25519.
//   - `auth::jwt_verifier`: checks a JWT access token (RFC 9068 / RFC 7519): the signature
//     (RS256, PS256, ES256, EdDSA; never `none` or HMAC) against keys from a JWKS file, URL or
//     document (cached, fetched again for an unknown `kid`), then `iss`, `aud` (this resource:
//     tokens for another resource are refused), `exp`, `nbf`, `iat` with a clock skew. The
//     caller's principal carries the issuer, subject, client id, scopes and every claim.
//     Verified tokens are remembered until they expire, so a client that sends the same token
//     with every request pays for the signature once.
//   - `auth::introspection_verifier`: opaque tokens checked with the authorization server's
//     introspection endpoint (RFC 7662), answers cached for a bounded time.
//
// Both are `token_verifier`s (mcp/http_server.hpp).
//
// Example:
//
//   mcp::auth::jwt_verifier jwt({.issuer = "https://auth.example.com",
//                                .audience = "https://mcp.example.com/mcp",
//                                .keys = {.location = "https://auth.example.com/jwks.json"}});
//   mcp::http_server http(server, {.protected_resource = mcp::protected_resource_options{
//                                      .resource = "https://mcp.example.com/mcp",
//                                      .authorization_servers = {"https://auth.example.com"},
//                                      .scopes_supported = {"tools.read", "tools.write"},
//                                      .verify = jwt}});
#pragma once

#include <mcp/http_server.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mcp::auth {

/// A set of public keys from a JWKS document. Immutable; cheap to copy (keys are shared).
///
/// Thread-safety: const members may be called from any thread.
class key_set {
 public:
  struct key;

  key_set() = default;

  /// Parses a JWKS document (`{"keys":[...]}`, at most 1 MiB, 256 keys). Keys the verifier
  /// cannot use are skipped: symmetric (`oct`) keys, other key types and curves, RSA keys under
  /// 2048 bits, keys whose `use` is not `sig`, and keys with private members. Never throws
  /// (but std::bad_alloc): a text that is not a JWKS document or a usable key that is malformed
  /// is `errc::invalid_params` with the reason (e.g. "JWKS: key 1: a P-256 key needs 32-byte x
  /// and y"); more than 256 keys is `errc::limit_exceeded`.
  [[nodiscard]] static result<key_set> parse(std::string_view json);

  /// Number of usable keys.
  [[nodiscard]] std::size_t size() const noexcept { return keys_.size(); }
  /// The key a token signed with `alg` and header `kid` (empty: none given) must be checked
  /// against: the key with that `kid` whose type fits `alg` (and whose `alg`, if it names one,
  /// is `alg`); without a `kid`, the only key that fits. Null when there is none.
  [[nodiscard]] std::shared_ptr<const key> find(std::string_view alg, std::string_view kid) const;

 private:
  std::vector<std::shared_ptr<const key>> keys_;
};

/// Where a verifier's keys come from, and how they are kept fresh.
struct jwks_options {
  /// An `https://` URL (`http://` only for localhost, 127.0.0.1 and [::1]), a file path, or
  /// the JWKS document itself (text starting with `{`).
  std::string location{};
  /// URL or file: loaded again after this long.
  std::chrono::seconds cache_for{600};
  /// A token with an unknown `kid` makes the verifier load the keys again (the issuer may have
  /// rotated them), at most this often.
  std::chrono::seconds min_refresh{30};
  /// URL: the whole fetch (host name lookup, connect, TLS, request and response).
  std::chrono::milliseconds fetch_timeout{5000};
  /// https: trust the CA certificates in this PEM file instead of the system's (a private CA).
  std::string ca_file{};
};

/// What a JWT access token must satisfy.
struct jwt_options {
  std::string issuer{};    ///< required: exactly the token's `iss`
  std::string audience{};  ///< required: one of the token's `aud` (this resource's canonical URI)
  jwks_options keys{};     ///< where the signing keys come from (`location` required)
  /// Signature algorithms accepted; any of RS256, PS256, ES256, EdDSA.
  std::vector<std::string> algorithms{"RS256", "PS256", "ES256", "EdDSA"};
  std::chrono::seconds clock_skew{60};  ///< allowed for `exp`, `nbf` and `iat`
  bool require_expiry = true;           ///< refuse tokens without `exp`
  /// RFC 9068 `typ`: when true, the header's `typ` must be `at+jwt` (or
  /// `application/at+jwt`); when false, any `typ` or none is accepted. RFC 9068 asks for true;
  /// the default is false because many authorization servers still issue `typ: JWT` access
  /// tokens, and the audience check already refuses tokens minted for anything else.
  bool require_at_jwt_type = false;
  std::size_t max_token_bytes = 8192;  ///< longer tokens are refused unread
  std::size_t cache_entries = 10000;   ///< verified tokens remembered until they expire; 0: none
};

/// Verifies JWT access tokens. Copies share the key cache and the verified-token cache.
///
/// Thread-safety: `verify` (and the call operator) may be called from any thread at once; a
/// key reload (file read or URL fetch) happens on the calling thread, one at a time, while
/// other threads keep using the previous keys.
class jwt_verifier {
 public:
  /// Throws `std::invalid_argument` when `issuer`, `audience` or `keys.location` is empty, an
  /// algorithm is not supported, or `keys.location` is a URL that may not be used (`http://`
  /// to a host that is not loopback). Keys are loaded at the first verification.
  explicit jwt_verifier(jwt_options opts);

  /// The caller the token names, or why it is refused (never throws; a key source that cannot
  /// be loaded refuses the token with "the signing keys cannot be loaded", without the details,
  /// which `load_keys` gives).
  [[nodiscard]] token_verdict verify(std::string_view token) const;
  /// The same: a `jwt_verifier` is a `token_verifier`.
  [[nodiscard]] token_verdict operator()(std::string_view token) const { return verify(token); }

  /// Loads the keys now (e.g. at start-up, to fail early). Never throws (but std::bad_alloc).
  /// Errors: `errc::connection_closed` with the reason ("the signing keys cannot be loaded: …")
  /// when they cannot be read, fetched or parsed.
  [[nodiscard]] result<void> load_keys() const;

 private:
  struct impl;
  std::shared_ptr<impl> impl_;
};

/// How opaque tokens are checked with the authorization server (RFC 7662).
struct introspection_options {
  /// The introspection endpoint: `https://` (`http://` only for a loopback host).
  std::string endpoint{};
  /// This resource's credentials at the authorization server (HTTP Basic); both empty: none.
  std::string client_id{};
  std::string client_secret{};  ///< with `client_id`
  /// When set, an answer's `iss`, if it has one, must be exactly this, and the principal's
  /// issuer is this.
  std::string issuer{};
  std::string audience{};               ///< required: an active token's `aud` must hold it
  std::chrono::seconds clock_skew{60};  ///< allowed for the answer's `exp`, `nbf` and `iat`
  /// An active answer is remembered this long at most (and never past the token's `exp`), so
  /// a revoked token stops working within this time.
  std::chrono::seconds cache_for{60};
  /// A token the server called inactive (or whose claims failed) is refused without asking
  /// again for this long (0: always ask). Failures to reach the endpoint are not remembered.
  std::chrono::seconds refused_for{10};
  std::chrono::milliseconds timeout{5000};  ///< per introspection request
  std::string ca_file{};  ///< https: trust this PEM file's CA certificates instead of the system's
  std::size_t max_token_bytes = 8192;  ///< longer tokens are refused without a request
  /// Answers remembered (active ones, and refusals for `refused_for`); 0: none.
  std::size_t cache_entries = 10000;
};

/// Verifies opaque (or any) tokens by asking the authorization server: `POST endpoint` with
/// `token=…&token_type_hint=access_token`; an answer with `"active": true` is then checked like
/// a JWT's claims (issuer, audience, expiry, subject; scopes from `scope`). Copies share the
/// cache.
///
/// Thread-safety: `verify` may be called from any thread at once; an uncached token costs one
/// request to the endpoint on the calling thread.
class introspection_verifier {
 public:
  /// Throws `std::invalid_argument` when `endpoint` or `audience` is empty or the endpoint is
  /// not a URL that may be used.
  explicit introspection_verifier(introspection_options opts);

  /// The caller the token names, or why it is refused (never throws: an endpoint that cannot
  /// be reached refuses the token and says so).
  [[nodiscard]] token_verdict verify(std::string_view token) const;
  /// The same: an `introspection_verifier` is a `token_verifier`.
  [[nodiscard]] token_verdict operator()(std::string_view token) const { return verify(token); }

 private:
  struct impl;
  std::shared_ptr<impl> impl_;
};

}  // namespace mcp::auth
