// Internal: the state and the steps of `auth::oauth_client`, in two files along one seam:
// oauth_client.cpp decides when a flow runs and what it asks for (refusals, discovery, scopes,
// the client's identity, the authorization code flow with the browser); oauth_grants.cpp talks
// to token endpoints (client authentication, DPoP proofs and nonces, the grants without a
// browser, the enterprise token exchange, refresh).
#pragma once

#include <mcp/oauth.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "auth/dpop.hpp"
#include "auth/jose.hpp"
#include "auth/jws.hpp"

namespace mcp::auth {
namespace detail {

inline constexpr std::size_t max_oauth_answer = 256 * 1024;
inline constexpr std::string_view jwt_bearer_grant = "urn:ietf:params:oauth:grant-type:jwt-bearer";

using form_params = std::vector<std::pair<std::string, std::string>>;

/// An application/x-www-form-urlencoded body or query.
[[nodiscard]] std::string form_body(const form_params& ps);
[[nodiscard]] std::set<std::string> split_scopes(std::string_view s);
[[nodiscard]] std::string join_scopes(const std::set<std::string>& s);
[[nodiscard]] bool contains(const std::vector<std::string>& v, std::string_view x);
/// RFC 6750 §2.1 b64token: what may follow "Bearer " (so no header can be injected).
[[nodiscard]] bool b64token(std::string_view t);
/// An OAuth error answer (RFC 6749 §5.2) for a message: "HTTP 400: invalid_grant (...)".
[[nodiscard]] std::string oauth_error(const http_response& r);
/// The `error` member of an OAuth error answer (empty: none).
[[nodiscard]] std::string oauth_error_code(const http_response& r);

/// A server that answered a token request with a refusal (not a failure to reach it).
struct token_refused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace detail

struct oauth_client::impl {
  oauth_client_options opts;
  std::string config_error;  // options that cannot work: every flow fails with this
  std::optional<detail::signing_key> client_key;  // private_key_jwt
  std::string client_alg;
  std::unique_ptr<detail::dpop_signer> dpop;  // null: no DPoP

  mutable std::mutex mu;  // creds, loaded, error
  oauth_credentials creds;
  bool loaded = false;
  std::string error;
  std::mutex flow_mu;       // one flow at a time; what follows is used under it
  std::string fresh_token;  // the Authorization value of the last token a flow obtained,
  std::chrono::steady_clock::time_point fresh_at{};  // when
  std::size_t fresh_refusals = 0;  // such tokens refused in a row soon after they were obtained
  std::atomic<std::uint64_t> flows{0};  // refusals handled
  bool last_flow_ok = true;             // how the last one ended
  std::string refused_assertion;        // jwt_bearer: an assertion the server refused,
  std::string refused_assertion_why;    // and why

  // ---- oauth_client.cpp ----
  void load_locked();
  [[nodiscard]] oauth_credentials current();
  void keep(const oauth_credentials& c);
  /// A URL the flow may use (https, or http to a loopback host when the MCP server is on this
  /// machine too); throws `std::runtime_error` naming `what` otherwise.
  void check_url(const std::string& url, std::string_view what) const;
  detail::http_response call(const std::string& url, const detail::http_call& c);
  /// The first of `urls` that answers 200 with a document `Doc::parse` accepts.
  template <class Doc>
  Doc discover(const std::vector<std::string>& urls, std::string_view what) {
    std::string why;
    for (const auto& url : urls) {
      try {
        auto r = call(url, {.ca_file = opts.ca_file, .headers = {{"Accept", "application/json"}}});
        if (r.status == 200) {
          auto doc = Doc::parse(r.body);
          if (doc) return std::move(*doc);
          why = url + ": " + doc.error().message;
          continue;
        }
        why = url + ": HTTP " + std::to_string(r.status);
      } catch (const std::exception& e) {
        why = url + ": " + e.what();
      }
    }
    throw std::runtime_error("no " + std::string(what) + " found (last tried " + why + ")");
  }
  /// The metadata of the authorization server `issuer`, whose `issuer` must be that, exactly.
  [[nodiscard]] server_metadata server_metadata_of(const std::string& issuer);
  /// The resource's metadata, its authorization server's, and the resource identifier.
  std::pair<server_metadata, std::string> discover_servers(const bearer_challenge& ch,
                                                           resource_metadata* prm_out);
  [[nodiscard]] std::string choose_scope(const bearer_challenge& ch, const resource_metadata& prm,
                                         const server_metadata& as) const;
  /// A pre-registered client at `as` (checked against `client_issuer`).
  [[nodiscard]] oauth_credentials pre_registered(const server_metadata& as) const;
  /// This client's identity at `as` for the authorization code flow.
  oauth_credentials identify(const server_metadata& as, oauth_credentials c);
  /// The agent's redirect URI; throws std::runtime_error with its error (inside a flow).
  std::string agent_redirect_uri();
  oauth_credentials authorize(const server_metadata& as, const std::string& resource,
                              oauth_credentials c, const std::string& scope);
  bool handle(int status, std::string_view challenge, std::string_view sent);

  // ---- oauth_grants.cpp ----
  /// Reads the keys and checks that the options can work; sets `config_error` otherwise.
  void configure();
  /// The Authorization value of `c`'s token ("Bearer x", "DPoP x"; empty: none).
  [[nodiscard]] static std::string auth_value(const oauth_credentials& c);
  /// Adds the client's authentication to a request to `as`'s token endpoint.
  void authenticate(const server_metadata& as, const oauth_credentials& c,
                    detail::form_params& body, detail::http_call& req) const;
  /// POSTs a token request (with a DPoP proof, and once more with the server's nonce when it
  /// asks); the new credentials on top of `c`. Throws `detail::token_refused` for a refusal.
  oauth_credentials token_request(const server_metadata& as, oauth_credentials c,
                                  detail::form_params body, const std::string& asked_scope);
  /// A token for `resource` by the configured grant.
  oauth_credentials obtain(const server_metadata& as, const std::string& resource,
                           oauth_credentials c, const std::string& scope);
  /// The enterprise IdP's identity assertion grant (ID-JAG) for `as` and `resource`.
  std::string identity_assertion(const server_metadata& as, const std::string& resource,
                                 const std::string& scope);
  /// A refresh_token grant at `as`; nullopt when there is none or it fails.
  std::optional<oauth_credentials> refresh(oauth_credentials c, const server_metadata& as,
                                           const std::string& resource);
  /// The same with the stored issuer and resource (a token expired by its own account).
  std::optional<oauth_credentials> refresh_stored(const oauth_credentials& c);
};

}  // namespace mcp::auth
