// mcp/http_server.hpp `protected_resource` with the JWT verifier of mcp/auth.hpp, over real
// sockets: the metadata document, 401 and 403 challenges, scope step-up per tool, tools/list
// filtered by scope, sessions bound to the token's principal, and a server that keeps serving
// whatever it is sent.
#include <mcp/auth.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <algorithm>

#include "http_test_util.hpp"
#include "support/jwt_issuer.hpp"
#include "support/test_cert.hpp"

namespace {

using namespace mcp_test;

constexpr const char* issuer = "https://auth.test";
constexpr const char* resource = "https://mcp.test/mcp";
constexpr const char* metadata_url = "https://mcp.test/.well-known/oauth-protected-resource/mcp";

const signing_key& key() {
  static const signing_key k = make_key("ES256", "k1");
  return k;
}

json::object claims(const std::string& scope, const std::string& sub = "alice") {
  return json::object{{"iss", issuer},      {"aud", resource}, {"sub", sub},
                      {"scope", scope},     {"iat", now_s()},  {"exp", now_s() + 300},
                      {"client_id", "test"}};
}

std::string bearer(const std::string& token) { return "Bearer " + token; }

class protected_resource : public http_fixture {
 protected:
  void SetUp() override {
    server_.add_tool({.name = "admin.reset", .description = "needs admin", .scopes = {"admin"}},
                     [](const text_in&) -> std::string { return "reset"; });
    start(
        {.protected_resource = mcp::protected_resource_options{
             .resource = resource,
             .authorization_servers = {issuer},
             .scopes_supported = {"mcp", "admin"},
             .required_scopes = {"mcp"},
             .verify = mcp::auth::jwt_verifier(
                 {.issuer = issuer, .audience = resource, .keys = {.location = jwks_of({&key()})}}),
             .metadata = {{"resource_name", "test server"}}}});
  }

  /// POST with a token (empty: none).
  response post(const std::string& body, const std::string& token, const std::string& sid = {}) {
    auto h = post_headers(sid, sid.empty() ? "" : "2025-11-25");
    if (!token.empty()) h.emplace_back("Authorization", bearer(token));
    return request(port_, "POST", body, h);
  }
  /// A session opened with `token`.
  std::string open(const std::string& token) {
    auto r = post(initialize_body(), token);
    EXPECT_EQ(r.status, 200U) << r.body;
    const auto sid = r.header("mcp-session-id");
    post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", token, sid);
    return sid;
  }
};

TEST_F(protected_resource, ServesTheMetadataDocumentWithoutAToken) {
  for (const char* path :
       {"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"}) {
    auto r = request(port_, "GET", "", {}, path);
    ASSERT_EQ(r.status, 200U) << path;
    EXPECT_EQ(r.header("access-control-allow-origin"), "*");
    const auto doc = json::parse(r.body).as_object();
    EXPECT_EQ(doc.at("resource"), resource);
    EXPECT_EQ(doc.at("authorization_servers"), (json::array{issuer}));
    EXPECT_EQ(doc.at("scopes_supported"), (json::array{"mcp", "admin"}));
    EXPECT_EQ(doc.at("bearer_methods_supported"), (json::array{"header"}));
    EXPECT_EQ(doc.at("resource_name"), "test server");
  }
  EXPECT_EQ(request(port_, "POST", "{}", {}, "/.well-known/oauth-protected-resource").status, 405U);
  EXPECT_EQ(request(port_, "GET", "", {}, "/.well-known/other").status, 404U);
}

TEST_F(protected_resource, NoTokenGets401PointingAtTheMetadata) {
  auto r = post(initialize_body(), "");
  EXPECT_EQ(r.status, 401U);
  EXPECT_EQ(r.header("www-authenticate"),
            std::string("Bearer resource_metadata=\"") + metadata_url + "\", scope=\"mcp\"");
  // Every method is protected, not only POST.
  EXPECT_EQ(request(port_, "GET", "", {{"Accept", "text/event-stream"}}).status, 401U);
  EXPECT_EQ(request(port_, "DELETE", "", {{"Mcp-Session-Id", "x"}}).status, 401U);
  auto basic = post_headers();
  basic.emplace_back("Authorization", "Basic YWxpY2U6c2VjcmV0");
  r = request(port_, "POST", initialize_body(), basic);
  EXPECT_EQ(r.status, 401U);  // another scheme is no bearer token: the plain challenge
  EXPECT_EQ(r.header("www-authenticate"),
            std::string("Bearer resource_metadata=\"") + metadata_url + "\", scope=\"mcp\"");
}

TEST_F(protected_resource, EachBadTokenGets401AndTheServerKeepsServing) {
  auto with = [](const char* name, json::value v) {
    auto c = claims("mcp");
    c[name] = std::move(v);
    return c;
  };
  const auto other_key = make_key("ES256", "k1");
  const auto unknown_key = make_key("EdDSA", "k9");
  const std::vector<std::pair<std::string, std::string>> bad{
      {sign(key(), with("exp", now_s() - 600)), "the token has expired"},
      {sign(key(), with("nbf", now_s() + 600)), "the token is not valid yet"},
      {sign(key(), with("iss", "https://evil.test")), "the token was issued by another issuer"},
      {sign(key(), with("aud", "https://other.test/mcp")),
       "the token was issued for another resource"},
      {signing_input(json::object{{"alg", "none"}}, claims("mcp")) + ".",
       "signature algorithm \"none\" is not accepted"},
      {sign_hs256(json::serialize(key().jwk()), claims("mcp"), "k1"),
       "signature algorithm \"HS256\" is not accepted"},
      {sign(unknown_key, claims("mcp")), "unknown signing key \"k9\""},
      {sign(other_key, claims("mcp")), "the token's signature is invalid"},
      {"not-a-token", "the token is not a JWS compact serialization"},
  };
  for (auto [token, reason] : bad) {
    auto r = post(initialize_body(), token);
    std::replace(reason.begin(), reason.end(), '"', '\'');  // a quoted-string holds no '"'
    EXPECT_EQ(r.status, 401U) << reason;
    EXPECT_EQ(r.header("www-authenticate"),
              std::string("Bearer resource_metadata=\"") + metadata_url +
                  "\", scope=\"mcp\", error=\"invalid_token\", error_description=\"" + reason +
                  "\"");
  }
  const auto sid = open(sign(key(), claims("mcp")));
  ASSERT_FALSE(sid.empty());
  auto r = post(call_body("2", "whoami", R"({"text":""})"), sign(key(), claims("mcp")), sid);
  EXPECT_EQ(r.status, 200U);
  EXPECT_NE(r.body.find("alice"), std::string::npos) << r.body;
}

TEST_F(protected_resource, ATokenWithoutTheRequiredScopeGets403) {
  auto r = post(initialize_body(), sign(key(), claims("other")));
  EXPECT_EQ(r.status, 403U);
  EXPECT_EQ(r.header("www-authenticate"), std::string("Bearer resource_metadata=\"") +
                                              metadata_url +
                                              "\", scope=\"mcp\", error=\"insufficient_scope\", "
                                              "error_description=\"the token lacks scope mcp\"");
}

TEST_F(protected_resource, AToolsScopesFilterItsListingAndStepUpItsCall) {
  const auto plain = sign(key(), claims("mcp"));
  const auto sid = open(plain);
  auto r = post(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})", plain, sid);
  ASSERT_EQ(r.status, 200U);
  EXPECT_NE(r.body.find("\"echo\""), std::string::npos);
  EXPECT_EQ(r.body.find("admin.reset"), std::string::npos) << r.body;
  r = post(call_body("3", "admin.reset", R"({"text":""})"), plain, sid);
  EXPECT_EQ(r.status, 403U);
  EXPECT_EQ(r.header("www-authenticate"),
            std::string("Bearer resource_metadata=\"") + metadata_url +
                "\", scope=\"mcp admin\", error=\"insufficient_scope\", "
                "error_description=\"tool admin.reset needs scope admin\"");
  // Stepped up: the same subject with the scope, in the same session.
  const auto admin = sign(key(), claims("mcp admin"));
  r = post(R"({"jsonrpc":"2.0","id":4,"method":"tools/list"})", admin, sid);
  EXPECT_NE(r.body.find("admin.reset"), std::string::npos) << r.body;
  r = post(call_body("5", "admin.reset", R"({"text":""})"), admin, sid);
  EXPECT_EQ(r.status, 200U);
  EXPECT_NE(r.body.find("reset"), std::string::npos) << r.body;
}

TEST_F(protected_resource, ASessionAnswersOnlyItsOwnPrincipal) {
  const auto sid = open(sign(key(), claims("mcp", "alice")));
  auto r = post(call_body("2", "echo", R"({"text":"x"})"), sign(key(), claims("mcp", "bob")), sid);
  EXPECT_EQ(r.status, 404U);
}

TEST(protected_resource_verifier, AVerifierThatNamesNoScopesGrantsNone) {
  mcp::server s;
  mcp::http_server http(
      s, {.protected_resource = mcp::protected_resource_options{
              .resource = resource,
              .authorization_servers = {issuer},
              .required_scopes = {"mcp"},
              .verify = [](std::string_view) {
                return mcp::token_verdict{.who = mcp::principal{.subject = "opaque"}};
              }}});
  http.start().value();
  auto h = post_headers();
  h.emplace_back("Authorization", "Bearer any-token");
  auto r = request(http.port(), "POST", initialize_body(), h);
  EXPECT_EQ(r.status, 403U);
  EXPECT_NE(r.header("www-authenticate").find("insufficient_scope"), std::string::npos);
  http.stop();
}

TEST(protected_resource_options, InconsistentOptionsAreRefused) {
  mcp::server s;
  auto verify = [](std::string_view) { return mcp::token_verdict{}; };
  auto make = [&](mcp::protected_resource_options o, bool also_authenticate = false) {
    mcp::http_server_options opts{.protected_resource = std::move(o)};
    if (also_authenticate) {
      opts.authenticate = [](const mcp::http_request_view&) { return mcp::principal{}; };
    }
    mcp::http_server http(s, std::move(opts));
  };
  EXPECT_NO_THROW(
      make({.resource = resource, .authorization_servers = {issuer}, .verify = verify}));
  EXPECT_THROW(make({.resource = "/mcp", .authorization_servers = {issuer}, .verify = verify}),
               std::invalid_argument);
  EXPECT_THROW(make({.resource = resource, .verify = verify}), std::invalid_argument);
  EXPECT_THROW(make({.resource = resource, .authorization_servers = {issuer}}),
               std::invalid_argument);
  EXPECT_THROW(make({.resource = resource,
                     .authorization_servers = {issuer},
                     .required_scopes = {"a b"},
                     .verify = verify}),
               std::invalid_argument);
  EXPECT_THROW(
      make({.resource = resource, .authorization_servers = {issuer}, .verify = verify}, true),
      std::invalid_argument);
}

}  // namespace

namespace {

TEST(https_fetch, KeysFromAnHttpsUrlAreFetchedTrustingOnlyTheGivenCa) {
  test_cert cert;
  ASSERT_TRUE(cert.ok);
  mcp::server s;
  // Any https endpoint of ours serves: the metadata document is public JSON (not a JWKS).
  mcp::http_server http(
      s,
      {.tls = mcp::tls_options{.certificate_chain_file = cert.cert, .private_key_file = cert.key},
       .protected_resource = mcp::protected_resource_options{
           .resource = resource, .authorization_servers = {issuer}, .verify = [](std::string_view) {
             return mcp::token_verdict{};
           }}});
  http.start().value();
  const auto url =
      "https://127.0.0.1:" + std::to_string(http.port()) + "/.well-known/oauth-protected-resource";
  const auto token = sign(key(), claims("mcp"));
  // Refused either way (nothing to verify with), and the reason stays on the server...
  EXPECT_EQ(
      mcp::auth::jwt_verifier(
          {.issuer = issuer, .audience = resource, .keys = {.location = url, .ca_file = cert.cert}})
          .verify(token)
          .reason,
      "the signing keys cannot be loaded");
  // ... where load_keys tells: trusted, the TLS exchange worked and the document was read (it is
  // not a key set); untrusted, the certificate was refused.
  auto why = [&](const std::string& ca) {
    const auto loaded =
        mcp::auth::jwt_verifier(
            {.issuer = issuer, .audience = resource, .keys = {.location = url, .ca_file = ca}})
            .load_keys();
    return loaded ? std::string("loaded") : loaded.error().message;
  };
  EXPECT_NE(why(cert.cert).find("JWKS: not an object with a \"keys\" array"), std::string::npos)
      << why(cert.cert);
  EXPECT_NE(why("").find("certificate verify failed"), std::string::npos) << why("");
  http.stop();
}

}  // namespace
