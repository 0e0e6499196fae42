// File: mcp/oauth.hpp
//
// The client side of MCP 2025-11-25 authorization (OAuth 2.1), target `mcp::auth`: what a
// client does when a Streamable HTTP server answers 401 or 403. Defines:
//
//   - `auth::oauth_client`: an `http_authorizer` (mcp/http_client.hpp). On a 401 it discovers
//     the server's Protected Resource Metadata (RFC 9728: the challenge's `resource_metadata`,
//     else the well-known URLs), then its authorization server's metadata (RFC 8414, else
//     OpenID Connect discovery); it identifies the client (pre-registered, else a Client ID
//     Metadata Document, else dynamic registration, RFC 7591); it runs the authorization code
//     flow with PKCE S256 and the `resource` parameter (RFC 8707) through a `user_agent`, and
//     keeps the tokens in a `token_store`. A token expired by its `expires_in` is refreshed
//     before it is sent, one the server refuses (401) after; a 403
//     `insufficient_scope` asks again for the scopes the challenge names (step-up).
//   - `auth::user_agent`, and `auth::loopback_agent`: the user's browser opens the
//     authorization URL and comes back to a listener on 127.0.0.1 (RFC 8252 §7.3).
//   - `auth::token_store`, `auth::file_token_store` (a JSON file, mode 0600) and
//     `auth::memory_token_store`.
//   - The parsers the flow uses, public so that they can be tested and fuzzed on their own:
//     `parse_bearer_challenge`, `resource_metadata::parse`, `server_metadata::parse`.
//
// Example:
//
//   auto oauth = std::make_shared<mcp::auth::oauth_client>(mcp::auth::oauth_client_options{
//       .resource_url = "https://mcp.example.com/mcp",
//       .agent = std::make_shared<mcp::auth::loopback_agent>(),
//       .store = std::make_shared<mcp::auth::file_token_store>(
//           mcp::auth::file_token_store::default_path())});
//   auto conn = mcp::http_client_connection::create(
//       {.url = "https://mcp.example.com/mcp", .authorizer = oauth});
//   // ... a client_session on conn: the first request that is refused runs the flow.
#pragma once

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

/// A Bearer challenge from a `WWW-Authenticate` header (RFC 6750 §3, RFC 9728 §5.1).
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

/// The members of a Protected Resource Metadata document (RFC 9728 §2) a client uses.
struct resource_metadata {
  std::string resource;                            ///< the resource identifier (required)
  std::vector<std::string> authorization_servers;  ///< issuer URLs (at least one)
  std::vector<std::string> scopes_supported;

  /// Parses a document (a JSON object of at most 256 KiB). Throws `std::invalid_argument`
  /// naming the member at fault.
  [[nodiscard]] static resource_metadata parse(std::string_view json);
};

/// The members of authorization server metadata (RFC 8414 §2, or OpenID Connect discovery) a
/// client uses.
struct server_metadata {
  std::string issuer;
  std::string authorization_endpoint;
  std::string token_endpoint;
  std::string registration_endpoint;  ///< empty: no dynamic client registration
  std::vector<std::string> scopes_supported;
  std::vector<std::string> code_challenge_methods_supported;
  std::vector<std::string> token_endpoint_auth_methods_supported;  ///< empty: the default
  bool client_id_metadata_document_supported = false;
  /// RFC 9207: the authorization response carries `iss`, which must be `issuer`.
  bool authorization_response_iss_parameter_supported = false;

  /// Parses a document (a JSON object of at most 256 KiB) whose `issuer`, authorization and
  /// token endpoints are present. Throws `std::invalid_argument` naming the member at fault.
  [[nodiscard]] static server_metadata parse(std::string_view json);
};

/// Where the Protected Resource Metadata of the resource at `resource_url` is looked for when
/// the challenge names none, in order: the well-known URL with the resource's path, then
/// without. Throws `std::invalid_argument` for a URL that is not absolute http(s).
[[nodiscard]] std::vector<std::string> resource_metadata_urls(std::string_view resource_url);
/// Where the metadata of the authorization server `issuer` is looked for, in order (MCP
/// 2025-11-25): OAuth metadata then OpenID configuration with the path inserted, then OpenID
/// configuration with the path appended (for an issuer with a path). Throws like above.
[[nodiscard]] std::vector<std::string> server_metadata_urls(std::string_view issuer);

/// What an OAuth client keeps for one resource: its registration with the authorization
/// server and its tokens. Secrets: keep it where only its owner can read it.
struct oauth_credentials {
  std::string authorization_server;  ///< issuer the registration and tokens come from
  std::string resource;              ///< the resource identifier the tokens were issued for
  std::string client_id;
  std::string client_secret;               ///< empty: a public client
  std::string token_endpoint_auth_method;  ///< client_secret_basic, client_secret_post or none
  std::string access_token;
  std::string refresh_token;
  std::string scope;            ///< the scopes granted, space-separated
  std::int64_t expires_at = 0;  ///< unix seconds; 0: unknown

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
  [[nodiscard]] virtual std::optional<oauth_credentials> load(const std::string& resource) = 0;
  /// Errors: throws `std::runtime_error` when the credentials cannot be kept.
  virtual void save(const std::string& resource, const oauth_credentials& creds) = 0;
  virtual void erase(const std::string& resource) = 0;
};

/// Credentials in memory, gone with the process.
class memory_token_store final : public token_store {
 public:
  std::optional<oauth_credentials> load(const std::string& resource) override;
  void save(const std::string& resource, const oauth_credentials& creds) override;
  void erase(const std::string& resource) override;

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
  explicit file_token_store(std::filesystem::path file);
  /// `$XDG_STATE_HOME/mcp-cpp/oauth-tokens.json`, else `~/.local/state/mcp-cpp/...`.
  [[nodiscard]] static std::filesystem::path default_path();

  std::optional<oauth_credentials> load(const std::string& resource) override;
  void save(const std::string& resource, const oauth_credentials& creds) override;
  void erase(const std::string& resource) override;

 private:
  std::filesystem::path file_;
};

/// The user's side of the authorization step.
///
/// Thread-safety: `oauth_client` calls it from one thread at a time.
class user_agent {
 public:
  virtual ~user_agent() = default;
  /// The redirect URI the client registers and sends. Throws `std::runtime_error` when none can
  /// be had (e.g. no port to listen on).
  virtual std::string redirect_uri() = 0;
  /// Has the user visit `authorization_url` and returns the URL the authorization server
  /// redirected the browser to (with `code` and `state`, or `error`). Throws
  /// `std::runtime_error` on failure or timeout.
  virtual std::string authorize(const std::string& authorization_url) = 0;
};

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
  explicit loopback_agent(loopback_options opts = {});
  ~loopback_agent() override;
  std::string redirect_uri() override;
  std::string authorize(const std::string& authorization_url) override;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

struct oauth_client_options {
  std::string resource_url;              ///< the MCP server's URL (required)
  std::shared_ptr<user_agent> agent{};   ///< required for the authorization code flow
  std::shared_ptr<token_store> store{};  ///< default: a `memory_token_store`
  /// A pre-registered client (RFC 6749 §2); empty: the client registers itself.
  std::string client_id{};
  std::string client_secret{};
  std::string token_endpoint_auth_method{};  ///< empty: from the secret and the server's list
  /// An https URL serving this client's Client ID Metadata Document, used as its client_id
  /// where the authorization server supports that; empty: none.
  std::string client_metadata_url{};
  std::string client_name = "mcp-cpp";  ///< in a dynamic registration
  /// Scopes to ask for; empty: those the challenge names, else the resource's scopes_supported.
  std::vector<std::string> scopes{};
  std::string ca_file{};  ///< https: trust these PEM certificates instead of the system's
  std::chrono::milliseconds timeout{10000};  ///< each exchange with a metadata or OAuth server
  /// Newly authorized tokens refused as invalid in a row (within a minute of being obtained)
  /// before giving up, so that a resource that takes no token from this authorization server
  /// does not send the user to the browser forever. A 403 for scopes the token already has is
  /// given up at once.
  std::size_t max_attempts = 3;
};

/// OAuth 2.1 for an MCP client (see the banner). The flow runs in `refused`, on the thread of
/// the request that was refused; concurrent refusals wait for one flow.
///
/// Thread-safety: every member may be called from any thread.
/// Errors: a flow that fails makes `refused` return false (the request fails with the server's
/// 401/403); `last_error()` tells why.
class oauth_client final : public http_authorizer {
 public:
  explicit oauth_client(oauth_client_options opts);
  ~oauth_client() override;

  std::string authorization() override;
  bool refused(int status, std::string_view challenge, std::string_view sent) override;

  /// Why the last flow failed (empty: it did not).
  [[nodiscard]] std::string last_error() const;
  /// `last_error()`, which the transport adds to the failed request's message.
  [[nodiscard]] std::string refusal_reason() const override { return last_error(); }
  /// Forgets this resource's tokens (the registration is kept).
  void sign_out();

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace mcp::auth
