// File: mcp/oauth.hpp
//
// The client side of MCP authorization (OAuth 2.1; the 2025-11-25 rules plus those of
// 2026-07-28), target `mcp::auth`: what a client does when a Streamable HTTP server answers 401
// or 403. Defines:
//
//   - `auth::oauth_client`: an `http_authorizer` (mcp/http_client.hpp). On a 401 it discovers
//     the server's Protected Resource Metadata (RFC 9728: the challenge's `resource_metadata`,
//     else the well-known URLs), then its authorization server's metadata (RFC 8414, else
//     OpenID Connect discovery; the `issuer` must be the one asked for, exactly), and obtains a
//     token for the resource (RFC 8707 `resource`) by one of four grants (`oauth_grant`):
//       - authorization code with PKCE S256 through a `user_agent` (a person in a browser), the
//         client pre-registered, a Client ID Metadata Document or dynamically registered
//         (RFC 7591, with `application_type`); the redirect's `iss` checked (RFC 9207);
//       - client credentials (a service on its own behalf), authenticated with a secret or a
//         private key JWT (RFC 7523 §2.2);
//       - a JWT bearer assertion (RFC 7523 §2.1) such as a workload identity token;
//       - enterprise-managed authorization: the user's ID token exchanged at the enterprise's
//         identity provider (RFC 8693) for an ID-JAG, which the authorization server takes.
//     Any of them may bind the token to a key with DPoP (RFC 9449). Tokens are kept in a
//     `token_store`, bound to the issuer that gave them. A token expired by its `expires_in` is
//     refreshed before it is sent, one the server refuses (401) after; a 403
//     `insufficient_scope` asks again for the union of what was asked and what the challenge
//     names (step-up). docs/auth.md says which grant fits which program.
//   - `auth::user_agent`, and `auth::loopback_agent`: the user's browser opens the
//     authorization URL and comes back to a listener on 127.0.0.1 (RFC 8252 §7.3).
//   - `auth::token_store`, `auth::file_token_store` (a JSON file, mode 0600) and
//     `auth::memory_token_store`.
//   - The parsers the flow uses, public so that they can be tested and fuzzed on their own:
//     `parse_bearer_challenge`, `parse_challenge`, `resource_metadata::parse`,
//     `server_metadata::parse`, `token_response::parse`.
//
// Example (a person at the keyboard):
//
//   auto oauth = std::make_shared<mcp::auth::oauth_client>(mcp::auth::oauth_client_options{
//       .resource_url = "https://mcp.example.com/mcp",
//       .agent = std::make_shared<mcp::auth::loopback_agent>(),
//       .store = std::make_shared<mcp::auth::file_token_store>(
//           mcp::auth::file_token_store::default_path())});
//   auto conn = mcp::make_http_client_connection(
//       {.url = "https://mcp.example.com/mcp", .authorizer = oauth});
//   // ... a client_session on conn: the first request that is refused runs the flow.
//
// Example (a service, no browser; the key registered with the authorization server):
//
//   auto oauth = mcp::auth::make_oauth_client({.resource_url = "https://mcp.example.com/mcp",
//                                              .grant = mcp::auth::oauth_grant::client_credentials,
//                                              .client_id = "billing-service",
//                                              .client_key_pem = read_file("billing.pem")});
//   if (!oauth) return oauth.error();  // e.g. the key does not parse
#pragma once

#include <mcp/error.hpp>
#include <mcp/http_client.hpp>
#include <mcp/json.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcp::auth {

/// A Bearer challenge from a `WWW-Authenticate` header (RFC 6750 §3, RFC 9728 §5.1), or a DPoP
/// one (RFC 9449 §7.1), which has the same parameters.
struct bearer_challenge {
  std::string error;              ///< e.g. "invalid_token", "insufficient_scope"; empty: none
  std::string error_description;  ///< as the server wrote it (untrusted text)
  std::string scope;              ///< space-separated scopes to ask for; empty: none named
  std::string resource_metadata;  ///< URL of the Protected Resource Metadata; empty: none
};

/// The Bearer challenge in a `WWW-Authenticate` value (among other schemes' challenges), or
/// nullopt when there is none or the header does not parse. At most 8 KiB are read. Never
/// throws (except std::bad_alloc).
[[nodiscard]] std::optional<bearer_challenge> parse_bearer_challenge(std::string_view header);
/// The same for the first challenge of scheme `scheme` (compared without case, e.g. "DPoP").
[[nodiscard]] std::optional<bearer_challenge> parse_challenge(std::string_view header,
                                                              std::string_view scheme);

/// The members of a Protected Resource Metadata document (RFC 9728 §2) a client uses.
struct resource_metadata {
  std::string resource;                            ///< the resource identifier (required)
  std::vector<std::string> authorization_servers;  ///< issuer URLs (at least one)
  std::vector<std::string> scopes_supported;       ///< empty: not said

  /// Parses a document (a JSON object of at most 256 KiB). Never throws (but std::bad_alloc):
  /// a document that is not one is `errc::invalid_params` naming the member at fault (e.g.
  /// "protected resource metadata: no resource"); one over 256 KiB is `errc::limit_exceeded`.
  [[nodiscard]] static result<resource_metadata> parse(std::string_view json);
};

/// The members of authorization server metadata (RFC 8414 §2, or OpenID Connect discovery) a
/// client uses.
struct server_metadata {
  std::string issuer;                         ///< the issuer identifier (required)
  std::string authorization_endpoint;         ///< where the user authorizes (required)
  std::string token_endpoint;                 ///< where tokens are obtained (required)
  std::string registration_endpoint;          ///< empty: no dynamic client registration
  std::vector<std::string> scopes_supported;  ///< empty: not said
  /// PKCE methods; the authorization code flow refuses a server that does not list S256.
  std::vector<std::string> code_challenge_methods_supported;
  std::vector<std::string> token_endpoint_auth_methods_supported;  ///< empty: the default
  std::vector<std::string> grant_types_supported;                  ///< empty: not said
  /// Algorithms the token endpoint takes for private_key_jwt (empty: not said).
  std::vector<std::string> token_endpoint_auth_signing_alg_values_supported;
  /// RFC 9449 §5.1: DPoP proof algorithms the server takes (empty: no DPoP announced).
  std::vector<std::string> dpop_signing_alg_values_supported;
  /// The server takes a Client ID Metadata Document URL as a client_id (no registration).
  bool client_id_metadata_document_supported = false;
  /// RFC 9207: the authorization response carries `iss`, which must be `issuer`.
  bool authorization_response_iss_parameter_supported = false;

  /// Parses a document (a JSON object of at most 256 KiB) whose `issuer`, authorization and
  /// token endpoints are present. Never throws (but std::bad_alloc); errors as
  /// `resource_metadata::parse` (e.g. "authorization server metadata: no token_endpoint").
  [[nodiscard]] static result<server_metadata> parse(std::string_view json);
};

/// A token endpoint's successful answer (RFC 6749 §5.1; RFC 8693 §2.2.1 for a token exchange;
/// RFC 9449 §5 for a DPoP-bound token).
struct token_response {
  std::string access_token;       ///< never empty
  std::string token_type;         ///< as written ("Bearer", "DPoP", "N_A"); empty: not said
  std::string refresh_token;      ///< empty: none issued
  std::string scope;              ///< empty: not said (the scopes asked for were granted)
  std::int64_t expires_in = 0;    ///< seconds, from 1 to 10^9; 0: not said (or out of range)
  std::string issued_token_type;  ///< RFC 8693 token exchange; empty: not said

  /// Parses an answer (a JSON object of at most 256 KiB) with a non-empty string
  /// `access_token`; `expires_in` may be a number or a string of digits. Never throws (but
  /// std::bad_alloc); errors as `resource_metadata::parse` (e.g. "the token endpoint's answer:
  /// empty access_token").
  [[nodiscard]] static result<token_response> parse(std::string_view json);
};

/// Where the Protected Resource Metadata of the resource at `resource_url` is looked for when
/// the challenge names none, in order: the well-known URL with the resource's path, then
/// without. Never throws (but std::bad_alloc): a URL that is not absolute http(s) is
/// `errc::invalid_params` ("not an absolute http(s) URL: URL").
[[nodiscard]] result<std::vector<std::string>> resource_metadata_urls(
    std::string_view resource_url);
/// Where the metadata of the authorization server `issuer` is looked for, in order (MCP
/// 2025-11-25): OAuth metadata then OpenID configuration with the path inserted, then OpenID
/// configuration with the path appended (for an issuer with a path). Errors like above.
[[nodiscard]] result<std::vector<std::string>> server_metadata_urls(std::string_view issuer);

/// What an OAuth client keeps for one resource: its registration with the authorization
/// server and its tokens. Secrets: keep it where only its owner can read it.
struct oauth_credentials {
  /// The issuer identifier the registration and tokens come from, exactly as its metadata
  /// wrote it: they are used with that authorization server only.
  std::string authorization_server;
  std::string resource;       ///< the resource identifier the tokens were issued for
  std::string client_id;      ///< this client at the authorization server
  std::string client_secret;  ///< empty: a public client
  /// client_secret_basic, client_secret_post, private_key_jwt or none
  std::string token_endpoint_auth_method;
  std::string access_token;     ///< empty: none yet
  std::string token_type;       ///< "DPoP" for a DPoP-bound token; empty: Bearer
  std::string dpop_jkt;         ///< a DPoP-bound token's key thumbprint (RFC 7638)
  std::string refresh_token;    ///< empty: none issued
  std::string scope;            ///< the scopes granted, space-separated
  std::string requested_scope;  ///< the scopes last asked for (step-up asks for these again)
  std::int64_t expires_at = 0;  ///< unix seconds; 0: unknown

  /// The non-empty members, as strings (`expires_at` a number, when known), for a
  /// `token_store` to keep.
  [[nodiscard]] json::object to_json() const;
  /// Reads what `to_json` wrote; members that are missing or not strings stay empty.
  [[nodiscard]] static oauth_credentials from_json(const json::object& o);
};

/// Where an `oauth_client` keeps credentials, by resource URL.
///
/// Thread-safety: an implementation must allow calls from any thread.
class token_store {
 public:
  virtual ~token_store() = default;
  /// The credentials kept for `resource`, or nullopt when there are none (or they cannot be
  /// read). Must not throw (but std::bad_alloc).
  [[nodiscard]] virtual std::optional<oauth_credentials> load(const std::string& resource) = 0;
  /// Keeps `creds` for `resource`. Errors: an `mcp::error` saying why the credentials cannot be
  /// kept (e.g. `errc::connection_closed`, "cannot write FILE: REASON"); must not throw (but
  /// std::bad_alloc). A flow whose tokens cannot be kept fails with this message.
  [[nodiscard]] virtual result<void> save(const std::string& resource,
                                          const oauth_credentials& creds) = 0;
  /// Forgets the credentials of `resource` (nothing when there are none). Errors: like `save`.
  [[nodiscard]] virtual result<void> erase(const std::string& resource) = 0;
};

/// Credentials in memory, gone with the process.
class memory_token_store final : public token_store {
 public:
  /// A copy of what `save` kept for `resource`.
  std::optional<oauth_credentials> load(const std::string& resource) override;
  /// Keeps a copy; never fails.
  result<void> save(const std::string& resource, const oauth_credentials& creds) override;
  /// Drops the entry; never fails.
  result<void> erase(const std::string& resource) override;

 private:
  std::mutex mu_;
  std::vector<std::pair<std::string, oauth_credentials>> entries_;
};

/// Credentials in one JSON file (`{"<resource>": {...}}`), created with mode 0600 in a
/// directory created with mode 0700, replaced atomically on each save (a write to a temporary
/// file, then rename) under an advisory lock, so that processes sharing the file do not lose
/// each other's entries. A file that does not parse is treated as empty and replaced on save.
class file_token_store final : public token_store {
 public:
  /// Keeps credentials in `file` (see `default_path()`); nothing is read or created until used.
  explicit file_token_store(std::filesystem::path file);
  /// `$XDG_STATE_HOME/mcp-cpp/oauth-tokens.json`, else `~/.local/state/mcp-cpp/...`.
  [[nodiscard]] static std::filesystem::path default_path();

  /// Reads the file (no lock: saves replace it by a rename); a missing file has no entries.
  std::optional<oauth_credentials> load(const std::string& resource) override;
  /// Errors: `errc::connection_closed` when the directory, the lock or the file cannot be
  /// created or written ("cannot write FILE.tmp: REASON").
  result<void> save(const std::string& resource, const oauth_credentials& creds) override;
  /// Removes the entry and rewrites the file, under the lock; no file: nothing to do.
  /// Errors: like `save`.
  result<void> erase(const std::string& resource) override;

 private:
  std::filesystem::path file_;
};

/// The user's side of the authorization step.
///
/// Thread-safety: `oauth_client` calls it from one thread at a time.
class user_agent {
 public:
  virtual ~user_agent() = default;
  /// The redirect URI the client registers and sends. Errors: an `mcp::error` when none can be
  /// had (e.g. no port to listen on); must not throw (but std::bad_alloc).
  [[nodiscard]] virtual result<std::string> redirect_uri() = 0;
  /// Has the user visit `authorization_url` and returns the URL the authorization server
  /// redirected the browser to (with `code` and `state`, or `error`). Errors: an `mcp::error`
  /// on failure or timeout, which ends the flow (`oauth_client::last_error()` gives its
  /// message); must not throw (but std::bad_alloc).
  [[nodiscard]] virtual result<std::string> authorize(const std::string& authorization_url) = 0;
};

/// How a `loopback_agent` listens for the redirect and shows the authorization URL.
struct loopback_options {
  std::uint16_t port = 0;             ///< 0: any free port, chosen on first use
  std::string path = "/callback";     ///< the redirect URI's path
  std::chrono::seconds timeout{300};  ///< how long to wait for the redirect
  /// Shows the authorization URL to the user. Default: runs `$BROWSER URL` when set, else
  /// `xdg-open URL` when it exists, and always prints the URL on stderr.
  std::function<void(const std::string& url)> open{};
};

/// A redirect to a listener on 127.0.0.1 (RFC 8252 §7.3). The listener runs from
/// `redirect_uri` until `authorize` returns, on the same port each flow (the one first chosen);
/// between flows nothing listens. Only the redirect carrying the authorization URL's `state`
/// ends the wait; other requests get 404 or 400.
class loopback_agent final : public user_agent {
 public:
  /// Nothing listens yet; a `path` without a leading `/` gets one.
  explicit loopback_agent(loopback_options opts = {});
  ~loopback_agent() override;
  /// Starts listening (on the port chosen first, or `port`). Errors: `errc::connection_closed`,
  /// "loopback redirect: cannot listen on 127.0.0.1:PORT: REASON".
  result<std::string> redirect_uri() override;
  /// Errors: as `redirect_uri`; `errc::request_timeout` when no redirect came within
  /// `timeout`. An exception thrown by `loopback_options::open` propagates.
  result<std::string> authorize(const std::string& authorization_url) override;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// How an `oauth_client` obtains tokens. docs/auth.md compares them.
enum class oauth_grant {
  /// A person signs in through a browser (`agent`): the authorization code flow with PKCE. For
  /// an application acting for its user: an IDE, a chat client, `mcp-cpp` at a terminal.
  authorization_code,
  /// The client acts on its own behalf, with no person (RFC 6749 §4.4; MCP extension
  /// io.modelcontextprotocol/oauth-client-credentials): a service, a scheduled job, a backend
  /// calling an MCP server. Needs a pre-registered `client_id` with `client_secret`
  /// (client_secret_basic, or _post when the server takes only that) or `client_key_pem`
  /// (private_key_jwt: no shared secret stored at the client).
  client_credentials,
  /// A JWT the client's platform issued it is exchanged for a token (RFC 7523 §2.1; MCP
  /// extension io.modelcontextprotocol/auth/wif): workload identity federation, where a cloud
  /// or Kubernetes gives the workload a short-lived signed identity the authorization server
  /// trusts, so no client secret exists at all. `assertion` supplies the JWT. A refused
  /// assertion is not sent again.
  jwt_bearer,
  /// Enterprise-managed authorization (MCP extension
  /// io.modelcontextprotocol/enterprise-managed-authorization): the user's ID token from the
  /// enterprise's identity provider is exchanged there (RFC 8693) for an identity assertion
  /// grant (ID-JAG) naming this authorization server and resource, which the authorization
  /// server takes (RFC 7523) with this client's credentials. For an organization whose IdP
  /// decides which employees' applications reach which MCP servers, with no consent screen.
  /// `enterprise` holds the IdP side; `client_id` (and a secret or key) the client at the
  /// authorization server.
  enterprise,
};

/// The enterprise identity provider of `oauth_grant::enterprise`.
struct enterprise_idp {
  /// The IdP's token endpoint (https; http only for a loopback host); empty: from the IdP's
  /// metadata at `issuer`.
  std::string token_endpoint{};
  std::string issuer{};         ///< the IdP's issuer (used only when token_endpoint is empty)
  std::string client_id{};      ///< this client at the IdP
  std::string client_secret{};  ///< empty: a public client at the IdP (its client_id is sent)
  /// The user's OpenID Connect ID token from the IdP (the application's own sign-in), asked for
  /// each exchange. Must not be empty for this grant.
  std::function<std::string()> id_token{};
};

/// DPoP (RFC 9449; MCP extension io.modelcontextprotocol/auth/dpop): tokens bound to a key of
/// the client, so a token that leaks (a log, a proxy) is useless without the key. Each token
/// request and each request to the MCP server carries a new proof signed by the key; a
/// server's `DPoP-Nonce` is used from then on. An authorization server that issues a Bearer
/// token anyway (it does not do DPoP) is used as Bearer.
struct dpop_options {
  bool enabled = false;  ///< ask for DPoP-bound tokens; false: Bearer tokens
  /// The key (PEM, as `client_key_pem`); empty: a P-256 key made for this `oauth_client`, so
  /// that tokens stored by an earlier process (bound to its key) are not used.
  std::string key_pem{};
  std::string algorithm{};  ///< empty: the key's own (ES256 for P-256)
};

/// What an `oauth_client` authorizes for, and how (`make_oauth_client` checks them).
struct oauth_client_options {
  std::string resource_url;                             ///< the MCP server's URL (required)
  oauth_grant grant = oauth_grant::authorization_code;  ///< how tokens are obtained
  std::shared_ptr<user_agent> agent{};   ///< required for the authorization code flow
  std::shared_ptr<token_store> store{};  ///< default: a `memory_token_store`
  /// A pre-registered client (RFC 6749 §2); empty: the client registers itself (authorization
  /// code only; the other grants need one, jwt_bearer excepted).
  std::string client_id{};
  std::string client_secret{};               ///< the pre-registered client's secret; empty: none
  std::string token_endpoint_auth_method{};  ///< empty: from the secret or key and the server
  /// private_key_jwt (RFC 7523 §2.2): the client authenticates with a JWT (`iss` = `sub` =
  /// client_id, `aud` = the issuer) signed by this PEM private key (EC P-256, RSA, Ed25519),
  /// whose public key is registered with the authorization server.
  std::string client_key_pem{};
  std::string client_key_algorithm{};  ///< ES256, RS256, PS256, EdDSA; empty: the key's own
  /// The issuer the pre-registered client belongs to; when set, an authorization server with
  /// another issuer gets no request with these credentials (the flow fails and says why).
  std::string client_issuer{};
  /// An https URL serving this client's Client ID Metadata Document, used as its client_id
  /// where the authorization server supports that; empty: none.
  std::string client_metadata_url{};
  std::string client_name = "mcp-cpp";  ///< in a dynamic registration
  /// OpenID Connect `application_type` in a dynamic registration; empty: "native" for a
  /// loopback or private-scheme redirect URI, else "web".
  std::string application_type{};
  /// Scopes to ask for; empty: those the challenge names, else the resource's scopes_supported.
  std::vector<std::string> scopes{};
  /// Authorization code: also ask for `offline_access` (a refresh token) when the
  /// authorization server lists it in `scopes_supported` (never otherwise).
  bool offline_access = true;
  /// jwt_bearer: the assertion to present, asked for each token request (e.g. reading a
  /// projected service account token file, which the platform renews).
  std::function<std::string()> assertion{};
  enterprise_idp enterprise{};  ///< oauth_grant::enterprise
  dpop_options dpop{};          ///< DPoP-bound tokens; off by default
  std::string ca_file{};        ///< https: trust these PEM certificates instead of the system's
  std::chrono::milliseconds timeout{10000};  ///< each exchange with a metadata or OAuth server
  /// Newly obtained tokens refused as invalid in a row (within a minute of being obtained)
  /// before giving up, so that a resource that takes no token from this authorization server
  /// does not send the user to the browser (or the service to the token endpoint) forever. A
  /// 403 for scopes the token already has is given up at once.
  std::size_t max_attempts = 3;
};

/// OAuth 2.1 for an MCP client (see the banner). The flow runs in `refused`, on the thread of
/// the request that was refused; concurrent refusals wait for one flow.
///
/// Thread-safety: every member may be called from any thread.
/// Errors: a flow that fails makes `refused` return false (the request fails with the server's
/// 401/403); `last_error()` tells why. Options that cannot work (a key that does not parse, a
/// grant without what it needs) fail every flow; `make_oauth_client` reports them at once.
class oauth_client final : public http_authorizer {
 public:
  /// Never throws (but std::bad_alloc): options that cannot work fail every flow, with
  /// `last_error()` saying why (`make_oauth_client` reports them instead). Default `store`: a
  /// `memory_token_store`.
  explicit oauth_client(oauth_client_options opts);
  ~oauth_client() override;

  /// "Bearer <token>" or "DPoP <token>"; empty before the first flow.
  std::string authorization() override;
  /// `Authorization`, and with a DPoP-bound token a new `DPoP` proof for `method` and `url`.
  http_header_list request_headers(std::string_view method, std::string_view url) override;
  /// Keeps a `DPoP-Nonce` the MCP server sends.
  void answered(int status, const http_header_reader& header) override;
  bool refused(int status, std::string_view challenge, std::string_view sent) override;

  /// Why the last flow failed (empty: it did not).
  [[nodiscard]] std::string last_error() const;
  /// `last_error()`, which the transport adds to the failed request's message.
  [[nodiscard]] std::string refusal_reason() const override { return last_error(); }
  /// Forgets this resource's tokens (the registration is kept). Errors: the token store's, when
  /// it cannot keep the change (the tokens are forgotten in memory all the same).
  result<void> sign_out();

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// An `oauth_client` whose options were checked first: `errc::invalid_params` says what cannot
/// work (a grant without the client id, secret, key, assertion or IdP it needs; a key that does
/// not parse or does not fit its algorithm; an unknown token endpoint auth method).
[[nodiscard]] result<std::shared_ptr<oauth_client>> make_oauth_client(oauth_client_options opts);

}  // namespace mcp::auth
