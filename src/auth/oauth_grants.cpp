// The token endpoint side of `auth::oauth_client`: the client's authentication (a secret in
// Basic or the body, or a private key JWT, RFC 7523 §2.2), DPoP proofs and the nonce retry
// (RFC 9449 §8), reading the answer, and the grants that need no browser: client credentials,
// a JWT bearer assertion (workload identity), and enterprise-managed authorization (an RFC 8693
// token exchange at the enterprise's IdP for an ID-JAG, then the jwt-bearer grant); refresh.
#include <mcp/content.hpp>

#include <algorithm>
#include <cctype>

#include "auth/oauth_client_impl.hpp"

namespace mcp::auth {
namespace {

constexpr std::string_view token_exchange_grant = "urn:ietf:params:oauth:grant-type:token-exchange";
constexpr std::string_view id_token_type = "urn:ietf:params:oauth:token-type:id_token";
constexpr std::string_view id_jag_type = "urn:ietf:params:oauth:token-type:id-jag";
constexpr std::string_view jwt_assertion_type =
    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  });
  return s;
}

std::string basic(const std::string& id, const std::string& secret) {
  // RFC 6749 §2.3.1: each part form-encoded, then Basic.
  return "Basic " + base64_encode(detail::form_encode(id) + ":" + detail::form_encode(secret));
}

/// The grant `as` must offer (when it lists what it offers).
void require_grant(const server_metadata& as, std::string_view grant) {
  if (!as.grant_types_supported.empty() && !detail::contains(as.grant_types_supported, grant)) {
    throw std::runtime_error("the authorization server " + as.issuer + " does not offer the " +
                             std::string(grant) + " grant");
  }
}

token_response read_answer(const detail::http_response& r, std::string_view who) {
  auto t = token_response::parse(r.body);
  if (!t) throw std::runtime_error(std::string(who) + ": " + t.error().message);
  return std::move(*t);
}

}  // namespace

void oauth_client::impl::configure() {
  try {
    const std::string_view methods[] = {"", "client_secret_basic", "client_secret_post",
                                        "private_key_jwt", "none"};
    if (std::find(std::begin(methods), std::end(methods), opts.token_endpoint_auth_method) ==
        std::end(methods)) {
      throw std::invalid_argument("token endpoint auth method " + opts.token_endpoint_auth_method +
                                  " is not one of client_secret_basic, client_secret_post, "
                                  "private_key_jwt, none");
    }
    if (!opts.client_key_pem.empty()) {
      try {
        client_key = detail::signing_key::from_pem(opts.client_key_pem);
        client_alg = client_key->algorithm(opts.client_key_algorithm);
      } catch (const std::exception& e) {
        throw std::invalid_argument(std::string("the client's private key: ") + e.what());
      }
    } else if (opts.token_endpoint_auth_method == "private_key_jwt") {
      throw std::invalid_argument("private_key_jwt needs the client's private key");
    }
    if (opts.dpop.enabled) {
      try {
        auto key = opts.dpop.key_pem.empty() ? detail::signing_key::generate_p256()
                                             : detail::signing_key::from_pem(opts.dpop.key_pem);
        auto alg = key.algorithm(opts.dpop.algorithm);
        dpop = std::make_unique<detail::dpop_signer>(std::move(key), std::move(alg));
      } catch (const std::exception& e) {
        throw std::invalid_argument(std::string("the DPoP key: ") + e.what());
      }
    }
    const bool has_credential = !opts.client_secret.empty() || client_key.has_value();
    switch (opts.grant) {
      case oauth_grant::authorization_code:
        break;
      case oauth_grant::client_credentials:
        if (opts.client_id.empty() || !has_credential) {
          throw std::invalid_argument(
              "the client credentials grant needs a client id and its secret or private key");
        }
        break;
      case oauth_grant::jwt_bearer:
        if (!opts.assertion) {
          throw std::invalid_argument("the JWT bearer grant needs an assertion to present");
        }
        break;
      case oauth_grant::enterprise:
        if (opts.client_id.empty()) {
          throw std::invalid_argument(
              "enterprise-managed authorization needs this client's id at the authorization "
              "server");
        }
        if (!opts.enterprise.id_token ||
            (opts.enterprise.token_endpoint.empty() && opts.enterprise.issuer.empty()) ||
            opts.enterprise.client_id.empty()) {
          throw std::invalid_argument(
              "enterprise-managed authorization needs the identity provider's token endpoint "
              "(or issuer), this client's id there, and the user's ID token");
        }
        break;
    }
  } catch (const std::exception& e) {
    config_error = std::string("OAuth options: ") + e.what();
  }
}

std::string oauth_client::impl::auth_value(const oauth_credentials& c) {
  if (c.access_token.empty()) return {};
  return (c.token_type == "DPoP" ? "DPoP " : "Bearer ") + c.access_token;
}

void oauth_client::impl::authenticate(const server_metadata& as, const oauth_credentials& c,
                                      detail::form_params& body, detail::http_call& req) const {
  const auto& method = c.token_endpoint_auth_method;
  if (method == "client_secret_basic") {
    req.headers.emplace_back("Authorization", basic(c.client_id, c.client_secret));
    return;
  }
  if (!c.client_id.empty()) body.emplace_back("client_id", c.client_id);
  if (method == "client_secret_post") body.emplace_back("client_secret", c.client_secret);
  if (method != "private_key_jwt") return;
  if (!client_key) throw std::runtime_error("private_key_jwt needs the client's private key");
  const auto& algs = as.token_endpoint_auth_signing_alg_values_supported;
  if (!algs.empty() && !detail::contains(algs, client_alg)) {
    throw std::runtime_error("the authorization server " + as.issuer +
                             " takes no client assertion signed with " + client_alg);
  }
  // RFC 7523 §3: issued by and about this client, for this authorization server (its issuer
  // identifier, which servers accept where some would refuse the token endpoint's URL).
  const auto now = detail::unix_now();
  const json::object claims{{"iss", c.client_id}, {"sub", c.client_id},
                            {"aud", as.issuer},   {"jti", detail::random_base64url(18)},
                            {"iat", now},         {"exp", now + 300}};
  body.emplace_back("client_assertion_type", jwt_assertion_type);
  body.emplace_back("client_assertion",
                    detail::sign_jwt(*client_key, client_alg, {{"typ", "JWT"}}, claims));
}

oauth_credentials oauth_client::impl::token_request(const server_metadata& as, oauth_credentials c,
                                                    detail::form_params body,
                                                    const std::string& asked_scope) {
  detail::http_response r;
  for (int attempt = 0;; ++attempt) {
    detail::http_call req{.method = "POST", .ca_file = opts.ca_file};
    req.headers = {{"Content-Type", "application/x-www-form-urlencoded"},
                   {"Accept", "application/json"}};
    auto form = body;
    authenticate(as, c, form, req);  // a new client assertion (and jti) each time
    if (dpop) req.headers.emplace_back("DPoP", dpop->proof("POST", as.token_endpoint));
    req.body = detail::form_body(form);
    r = call(as.token_endpoint, req);
    if (!dpop || r.dpop_nonce.empty()) break;
    const bool fresh = dpop->remember_nonce(as.token_endpoint, r.dpop_nonce);
    // RFC 9449 §8: the server wants its nonce in the proof; once more with it.
    if (attempt > 0 || !fresh || r.status != 400 ||
        detail::oauth_error_code(r) != "use_dpop_nonce") {
      break;
    }
  }
  if (r.status != 200) {
    throw detail::token_refused("the token endpoint refused: " + detail::oauth_error(r));
  }
  const auto t = read_answer(r, "the token endpoint");
  if (!detail::b64token(t.access_token)) {
    throw std::runtime_error(
        "the token endpoint's answer has no access_token an Authorization header can carry");
  }
  const auto type = lowercase(t.token_type);
  if (type.empty() || type == "bearer") {
    c.token_type.clear();
    c.dpop_jkt.clear();
  } else if (type == "dpop" && dpop) {
    c.token_type = "DPoP";
    c.dpop_jkt = dpop->jkt();
  } else {
    throw std::runtime_error("the token endpoint issued a " + type + " token");
  }
  const bool refreshing = !body.empty() && body.front().second == "refresh_token";
  c.access_token = t.access_token;
  if (!t.refresh_token.empty()) {
    c.refresh_token = t.refresh_token;
  } else if (!refreshing) {
    c.refresh_token.clear();  // a refresh that brings none leaves the old one in force
  }
  c.scope = t.scope.empty() ? asked_scope : t.scope;
  c.expires_at = t.expires_in > 0 ? detail::unix_now() + t.expires_in : 0;
  return c;
}

std::string oauth_client::impl::identity_assertion(const server_metadata& as,
                                                   const std::string& resource,
                                                   const std::string& scope) {
  const auto& idp = opts.enterprise;
  std::string endpoint = idp.token_endpoint;
  if (endpoint.empty()) endpoint = server_metadata_of(idp.issuer).token_endpoint;
  const std::string id_token = idp.id_token();
  if (id_token.empty())
    throw std::runtime_error("no ID token to exchange at the identity provider");
  // RFC 8693 with the ID-JAG profile: the user's ID token for a grant naming the authorization
  // server (audience: its issuer) and the MCP server (resource).
  detail::form_params form{{"grant_type", std::string(token_exchange_grant)},
                           {"requested_token_type", std::string(id_jag_type)},
                           {"audience", as.issuer},
                           {"resource", resource},
                           {"subject_token", id_token},
                           {"subject_token_type", std::string(id_token_type)}};
  if (!scope.empty()) form.emplace_back("scope", scope);
  detail::http_call req{.method = "POST", .ca_file = opts.ca_file};
  req.headers = {{"Content-Type", "application/x-www-form-urlencoded"},
                 {"Accept", "application/json"}};
  if (idp.client_secret.empty()) {
    form.emplace_back("client_id", idp.client_id);
  } else {
    req.headers.emplace_back("Authorization", basic(idp.client_id, idp.client_secret));
  }
  req.body = detail::form_body(form);
  const auto r = call(endpoint, req);
  if (r.status != 200) {
    throw detail::token_refused("the identity provider refused the token exchange: " +
                                detail::oauth_error(r));
  }
  const auto t = read_answer(r, "the identity provider");
  if (t.issued_token_type != id_jag_type || !detail::b64token(t.access_token)) {
    throw std::runtime_error("the identity provider issued " +
                             (t.issued_token_type.empty() ? std::string("an untyped token")
                                                          : t.issued_token_type.substr(0, 100)) +
                             ", not an identity assertion grant (ID-JAG)");
  }
  return t.access_token;
}

oauth_credentials oauth_client::impl::obtain(const server_metadata& as, const std::string& resource,
                                             oauth_credentials c, const std::string& scope) {
  if (opts.grant == oauth_grant::authorization_code) {
    return authorize(as, resource, std::move(c), scope);
  }
  // The grants without a browser: the configured client, bound to this server's issuer.
  c = pre_registered(as);
  detail::form_params body;
  switch (opts.grant) {
    case oauth_grant::client_credentials:
      require_grant(as, "client_credentials");
      body = {{"grant_type", "client_credentials"}};
      break;
    case oauth_grant::jwt_bearer: {
      require_grant(as, detail::jwt_bearer_grant);
      auto assertion = opts.assertion();
      if (assertion.empty()) throw std::runtime_error("no assertion to present");
      // One try per assertion: a refused one is refused again (and retries look like abuse).
      if (assertion == refused_assertion) {
        throw std::runtime_error(refused_assertion_why + " (the same assertion is not sent again)");
      }
      body = {{"grant_type", std::string(detail::jwt_bearer_grant)}, {"assertion", assertion}};
      body.emplace_back("resource", resource);
      if (!scope.empty()) body.emplace_back("scope", scope);
      try {
        return token_request(as, std::move(c), std::move(body), scope);
      } catch (const detail::token_refused& e) {
        refused_assertion = std::move(assertion);
        refused_assertion_why = e.what();
        throw;
      }
    }
    case oauth_grant::enterprise:
      require_grant(as, detail::jwt_bearer_grant);
      body = {{"grant_type", std::string(detail::jwt_bearer_grant)},
              {"assertion", identity_assertion(as, resource, scope)}};
      break;
    case oauth_grant::authorization_code:
      break;
  }
  body.emplace_back("resource", resource);
  if (!scope.empty()) body.emplace_back("scope", scope);
  return token_request(as, std::move(c), std::move(body), scope);
}

std::optional<oauth_credentials> oauth_client::impl::refresh(oauth_credentials c,
                                                             const server_metadata& as,
                                                             const std::string& resource) {
  if (c.refresh_token.empty()) return std::nullopt;
  try {
    const std::string scope = c.scope;
    detail::form_params body{{"grant_type", "refresh_token"},
                             {"refresh_token", c.refresh_token},
                             {"resource", resource}};
    auto next = token_request(as, std::move(c), std::move(body), scope);
    next.resource = resource;
    return next;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<oauth_credentials> oauth_client::impl::refresh_stored(const oauth_credentials& c) {
  if (c.refresh_token.empty() || c.authorization_server.empty() || c.resource.empty()) {
    return std::nullopt;
  }
  try {
    return refresh(c, server_metadata_of(c.authorization_server), c.resource);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace mcp::auth
