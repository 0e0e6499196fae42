// mcp/oauth.hpp: the grants without a browser and DPoP, with oauth_client against the mock
// authorization server of oauth_mock.hpp (and a mock identity provider): client credentials with
// a secret and with a private key JWT (checked by the project's JWT verifier), a JWT bearer
// assertion sent once, enterprise-managed authorization (token exchange for an ID-JAG, then the
// jwt-bearer grant), DPoP proofs and nonces at both servers, and make_oauth_client's refusals.
#include <mcp/auth.hpp>
#include <mcp/oauth.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include "auth/jws.hpp"
#include "auth/oauth_mock.hpp"
#include <openssl/pem.h>

namespace {

using namespace oauth_mock;

constexpr const char* jwt_bearer = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// A new private key of `type` ("EC" P-256 or "RSA"), as PKCS#8 PEM.
std::string new_pem(const char* type) {
  EVP_PKEY* k = std::string_view(type) == "EC"
                    ? EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256")
                    : EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", std::size_t{2048});
  std::unique_ptr<BIO, decltype(&BIO_free_all)> bio(BIO_new(BIO_s_mem()), BIO_free_all);
  PEM_write_bio_PrivateKey(bio.get(), k, nullptr, nullptr, 0, nullptr, nullptr);
  EVP_PKEY_free(k);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return {data, static_cast<std::size_t>(n)};
}

TEST(oauth_grants, client_credentials_with_a_secret_need_no_browser_and_no_registration) {
  world w;
  const auto client = w.client({.resource_url = {},
                                .grant = auth::oauth_grant::client_credentials,
                                .client_id = "svc",
                                .client_secret = "s e/c"});
  ASSERT_TRUE(client->refused(401, w.challenge(), "")) << client->last_error();
  EXPECT_EQ(client->authorization(), "Bearer at-1");
  EXPECT_EQ(w.agent->calls, 0);
  EXPECT_TRUE(w.as.requests("/register").empty());
  const auto token = w.token_requests();
  ASSERT_EQ(token.size(), 1U);
  // RFC 6749 §2.3.1: each part form-encoded, then Basic.
  EXPECT_EQ(token[0].second, "Basic " + mcp::base64_encode("svc:s%20e%2Fc"));
  EXPECT_EQ(
      token[0].first,
      (form{{"grant_type", "client_credentials"}, {"resource", w.resource()}, {"scope", "mcp"}}));
}

TEST(oauth_grants, client_credentials_with_a_private_key_jwt_send_a_verifiable_assertion) {
  for (const auto* type : {"EC", "RSA"}) {
    SCOPED_TRACE(type);
    world w;
    const auto pem = new_pem(type);
    const auto client = w.client({.resource_url = {},
                                  .grant = auth::oauth_grant::client_credentials,
                                  .client_id = "svc",
                                  .client_key_pem = pem});
    ASSERT_TRUE(client->refused(401, w.challenge(), "")) << client->last_error();
    const auto token = w.token_requests();
    ASSERT_EQ(token.size(), 1U);
    EXPECT_EQ(token[0].second, "") << "no Basic header";
    const auto& f = token[0].first;
    EXPECT_EQ(at(f, "grant_type"), "client_credentials");
    EXPECT_EQ(at(f, "client_assertion_type"),
              "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    const auto assertion = at(f, "client_assertion");
    EXPECT_EQ(jwt_header(assertion).at("alg"), std::string(type) == "EC" ? "ES256" : "RS256");
    // iss = sub = the client, aud = the authorization server's issuer, signed by the key.
    const auto key = auth::detail::signing_key::from_pem(pem);
    auth::jwt_verifier v({.issuer = "svc",
                          .audience = w.issuer(),
                          .keys = {.location = json::serialize(
                                       json::object{{"keys", json::array{key.public_jwk()}}})}});
    const auto verdict = v.verify(assertion);
    ASSERT_TRUE(verdict.who.has_value()) << verdict.reason;
    EXPECT_EQ(verdict.who->subject, "svc");
    EXPECT_FALSE(jwt_claims(assertion).at("jti").as_string().empty());
  }
}

TEST(oauth_grants, a_grant_the_server_does_not_offer_is_not_tried) {
  world w({.grant_types = {"authorization_code", "refresh_token"}});
  const auto client = w.client({.resource_url = {},
                                .grant = auth::oauth_grant::client_credentials,
                                .client_id = "svc",
                                .client_secret = "s"});
  EXPECT_FALSE(client->refused(401, w.challenge(), ""));
  EXPECT_NE(client->last_error().find("does not offer the client_credentials grant"), npos)
      << client->last_error();
  EXPECT_TRUE(w.as.requests("/token").empty());
}

TEST(oauth_grants, a_jwt_bearer_assertion_is_presented_and_a_refused_one_never_again) {
  world w({.refresh_tokens = false});
  std::string next = "wif-jwt";
  const auto client = w.client({.resource_url = {},
                                .grant = auth::oauth_grant::jwt_bearer,
                                .client_id = "workload",
                                .assertion = [&next] { return next; },
                                .max_attempts = 10});
  ASSERT_TRUE(client->refused(401, w.challenge(), "")) << client->last_error();
  EXPECT_EQ(client->authorization(), "Bearer at-1");
  auto token = w.token_requests();
  ASSERT_EQ(token.size(), 1U);
  EXPECT_EQ(token[0].first, (form{{"grant_type", jwt_bearer},
                                  {"assertion", "wif-jwt"},
                                  {"resource", w.resource()},
                                  {"scope", "mcp"},
                                  {"client_id", "workload"}}));
  EXPECT_EQ(token[0].second, "");
  // A refused assertion: one request, then no more with the same one.
  next = "refused-jwt";
  EXPECT_FALSE(client->refused(401, w.challenge(), "Bearer at-1"));
  EXPECT_NE(client->last_error().find("invalid_grant"), npos) << client->last_error();
  EXPECT_FALSE(client->refused(401, w.challenge(), "Bearer at-1"));
  EXPECT_NE(client->last_error().find("not sent again"), npos) << client->last_error();
  EXPECT_EQ(w.token_requests().size(), 2U) << "one request for the refused assertion";
  // The platform renewed the assertion: presented.
  next = "wif-jwt-2";
  EXPECT_TRUE(client->refused(401, w.challenge(), "Bearer at-1")) << client->last_error();
  EXPECT_EQ(client->authorization(), "Bearer at-2");
}

TEST(oauth_grants, enterprise_authorization_exchanges_the_id_token_for_an_id_jag_first) {
  world w({.grant_types = {jwt_bearer}});
  mock_server idp([](const request& r) -> answer {
    if (r.method != "POST" || r.path() != "/token") return {};
    return {200, R"({"access_token":"id.jag.jwt","token_type":"N_A",)"
                 R"("issued_token_type":"urn:ietf:params:oauth:token-type:id-jag"})"};
  });
  const auto client = w.client({.resource_url = {},
                                .grant = auth::oauth_grant::enterprise,
                                .client_id = "xaa-client",
                                .client_secret = "xaa-secret",
                                .enterprise = {.token_endpoint = idp.url("/token"),
                                               .client_id = "idp-client",
                                               .id_token = [] { return std::string("id-tok"); }}});
  ASSERT_TRUE(client->refused(401, w.challenge(), "")) << client->last_error();
  EXPECT_EQ(client->authorization(), "Bearer at-1");
  const auto exchange = idp.requests("/token");
  ASSERT_EQ(exchange.size(), 1U);
  EXPECT_EQ(parse_form(exchange[0].body),
            (form{{"grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"},
                  {"requested_token_type", "urn:ietf:params:oauth:token-type:id-jag"},
                  {"audience", w.issuer()},
                  {"resource", w.resource()},
                  {"subject_token", "id-tok"},
                  {"subject_token_type", "urn:ietf:params:oauth:token-type:id_token"},
                  {"scope", "mcp"},
                  {"client_id", "idp-client"}}));
  const auto token = w.token_requests();
  ASSERT_EQ(token.size(), 1U);
  EXPECT_EQ(token[0].second, "Basic " + mcp::base64_encode("xaa-client:xaa-secret"));
  EXPECT_EQ(token[0].first, (form{{"grant_type", jwt_bearer},
                                  {"assertion", "id.jag.jwt"},
                                  {"resource", w.resource()},
                                  {"scope", "mcp"}}));
  // An IdP that answers with something else than an ID-JAG: nothing goes to the server.
  world w2;
  mock_server wrong([](const request&) -> answer {
    return {200, R"({"access_token":"x","token_type":"Bearer"})"};
  });
  const auto c2 = w2.client({.resource_url = {},
                             .grant = auth::oauth_grant::enterprise,
                             .client_id = "xaa-client",
                             .client_secret = "xaa-secret",
                             .enterprise = {.token_endpoint = wrong.url("/token"),
                                            .client_id = "idp-client",
                                            .id_token = [] { return std::string("id-tok"); }}});
  EXPECT_FALSE(c2->refused(401, w2.challenge(), ""));
  EXPECT_NE(c2->last_error().find("not an identity assertion grant"), npos) << c2->last_error();
  EXPECT_TRUE(w2.as.requests("/token").empty());
}

TEST(oauth_grants, dpop_binds_the_token_and_proves_each_request) {
  world w({.dpop = true});
  const auto client = w.client({.resource_url = {}, .dpop = {.enabled = true}});
  ASSERT_TRUE(client->refused(401, w.challenge(), "")) << client->last_error();
  EXPECT_EQ(json::parse(w.as.requests("/register")[0].body).at("dpop_bound_access_tokens"), true);
  const auto token = w.as.requests("/token");
  ASSERT_EQ(token.size(), 1U);
  const auto as_proof = at(token[0].headers, "dpop");
  EXPECT_EQ(jwt_header(as_proof).at("typ"), "dpop+jwt");
  EXPECT_EQ(jwt_claims(as_proof).at("htu").as_string(), w.as.url("/token"));
  EXPECT_EQ(jwt_claims(as_proof).at("htm"), "POST");
  EXPECT_FALSE(jwt_claims(as_proof).contains("ath"));
  EXPECT_EQ(client->authorization(), "DPoP at-1");
  const auto headers = client->request_headers("POST", w.resource() + "?x=1");
  ASSERT_EQ(headers.size(), 2U);
  EXPECT_EQ(headers[0], (std::pair<std::string, std::string>{"Authorization", "DPoP at-1"}));
  EXPECT_EQ(headers[1].first, "DPoP");
  const auto rs_claims = jwt_claims(headers[1].second);
  EXPECT_EQ(rs_claims.at("htu").as_string(), w.resource());
  EXPECT_EQ(rs_claims.at("ath").as_string(), s256("at-1"));  // base64url(SHA-256(token))
  EXPECT_EQ(jwt_header(headers[1].second).at("jwk"), jwt_header(as_proof).at("jwk"));
  const auto stored = w.store->load(w.resource());
  EXPECT_EQ(stored->token_type, "DPoP");
  EXPECT_EQ(stored->dpop_jkt.size(), 43U);
  // Another process (another key) does not send a token bound to this one's key.
  EXPECT_EQ(w.client({.resource_url = {}, .dpop = {.enabled = true}})->authorization(), "");
  EXPECT_EQ(w.client()->authorization(), "") << "nor a client without DPoP";
}

TEST(oauth_grants, dpop_nonces_are_used_at_the_token_endpoint_and_the_mcp_server) {
  world w({.dpop = true, .dpop_nonce = "as-n"});
  const auto client = w.client({.resource_url = {}, .dpop = {.enabled = true}});
  ASSERT_TRUE(client->refused(401, w.challenge(), "")) << client->last_error();
  const auto token = w.as.requests("/token");
  ASSERT_EQ(token.size(), 2U) << "once without the nonce, once with it";
  EXPECT_FALSE(jwt_claims(at(token[0].headers, "dpop")).contains("nonce"));
  EXPECT_EQ(jwt_claims(at(token[1].headers, "dpop")).at("nonce"), "as-n");
  EXPECT_NE(jwt_claims(at(token[0].headers, "dpop")).at("jti"),
            jwt_claims(at(token[1].headers, "dpop")).at("jti"));
  // The MCP server wants its own nonce: kept from its answer, the request goes again with it.
  client->answered(401, [](std::string_view name) {
    return name == "DPoP-Nonce" ? std::string("rs-n") : std::string();
  });
  EXPECT_TRUE(
      client->refused(401, R"(DPoP error="use_dpop_nonce", resource_metadata="x")", "DPoP at-1"));
  EXPECT_EQ(w.as.requests("/token").size(), 2U) << "no new token for a nonce";
  const auto headers = client->request_headers("POST", w.resource());
  EXPECT_EQ(jwt_claims(headers.at(1).second).at("nonce"), "rs-n");
}

TEST(oauth_grants, a_server_without_dpop_gives_bearer_tokens_used_as_such) {
  world w;  // no DPoP announced: it ignores the proof and issues a Bearer token
  const auto client = w.client({.resource_url = {}, .dpop = {.enabled = true}});
  ASSERT_TRUE(client->refused(401, w.challenge(), "")) << client->last_error();
  EXPECT_EQ(client->request_headers("POST", w.resource()),
            (std::vector<std::pair<std::string, std::string>>{{"Authorization", "Bearer at-1"}}));
}

TEST(oauth_grants, make_oauth_client_says_what_cannot_work) {
  auto why = [](auth::oauth_client_options o) {
    o.resource_url = "https://mcp.example/mcp";
    auto c = auth::make_oauth_client(std::move(o));
    return c ? std::string("accepted") : c.error().message;
  };
  using g = auth::oauth_grant;
  EXPECT_EQ(why({}), "accepted");
  EXPECT_NE(why({.resource_url = {}, .grant = g::client_credentials, .client_id = "svc"})
                .find("secret or private key"),
            npos);
  EXPECT_NE(why({.resource_url = {}, .grant = g::client_credentials, .client_secret = "s"})
                .find("client id"),
            npos);
  EXPECT_NE(why({.resource_url = {}, .client_key_pem = "junk"})
                .find("the client's private key: not a PEM"),
            npos);
  EXPECT_NE(why({.resource_url = {}, .token_endpoint_auth_method = "private_key_jwt"})
                .find("needs the client's"),
            npos);
  EXPECT_NE(why({.resource_url = {}, .token_endpoint_auth_method = "tls_client_auth"})
                .find("is not one of"),
            npos);
  EXPECT_NE(
      why({.resource_url = {}, .client_key_pem = new_pem("EC"), .client_key_algorithm = "RS256"})
          .find("does not fit"),
      npos);
  EXPECT_NE(why({.resource_url = {}, .grant = g::jwt_bearer}).find("needs an assertion"), npos);
  EXPECT_NE(
      why({.resource_url = {}, .grant = g::enterprise, .client_id = "c"}).find("identity provider"),
      npos);
  EXPECT_NE(
      why({.resource_url = {}, .dpop = {.enabled = true, .key_pem = "junk"}}).find("the DPoP key"),
      npos);
  EXPECT_EQ(why({.resource_url = {},
                 .grant = g::client_credentials,
                 .client_id = "svc",
                 .client_key_pem = new_pem("EC")}),
            "accepted");
  EXPECT_EQ(why({.resource_url = {}, .dpop = {.enabled = true}}), "accepted");
  // The constructor takes the same options and fails each flow with the same reason.
  auth::oauth_client direct({.resource_url = "https://mcp.example/mcp", .grant = g::jwt_bearer});
  EXPECT_FALSE(direct.refused(401, "Bearer", ""));
  EXPECT_NE(direct.last_error().find("needs an assertion"), npos);
}

}  // namespace
