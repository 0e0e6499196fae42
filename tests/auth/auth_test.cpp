// mcp/auth.hpp: key sets and the JWT verifier, against tokens signed here with OpenSSL.
#include <mcp/auth.hpp>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "auth/jose.hpp"
#include "support/jwt_issuer.hpp"

namespace {

using namespace mcp_test;
namespace auth = mcp::auth;

constexpr const char* issuer = "https://auth.test";
constexpr const char* audience = "https://mcp.test/mcp";

/// Keys are slow to make (RSA): once for the whole file.
struct keys {
  signing_key rs = make_key("RS256", "rs1");
  signing_key ps = make_key("PS256", "ps1");
  signing_key es = make_key("ES256", "es1");
  signing_key ed = make_key("EdDSA", "ed1");
  signing_key other = make_key("ES256", "es1");  // same kid, another key: a forgery
  static const keys& get() {
    static const keys k;
    return k;
  }
  [[nodiscard]] std::string jwks() const { return jwks_of({&rs, &ps, &es, &ed}); }
};

json::object claims(std::int64_t exp_in = 300) {
  return json::object{{"iss", issuer},
                      {"aud", audience},
                      {"sub", "alice"},
                      {"client_id", "cli"},
                      {"scope", "tools.read tools.write"},
                      {"iat", now_s()},
                      {"exp", now_s() + exp_in}};
}

auth::jwt_verifier verifier(std::string location, auth::jwt_options o = {}) {
  o.issuer = issuer;
  o.audience = audience;
  o.keys.location = std::move(location);
  return auth::jwt_verifier(std::move(o));
}

std::string refused(const mcp::token_verdict& v) {
  EXPECT_FALSE(v.who.has_value());
  return v.reason;
}

TEST(Base64url, RoundTripsAndRejectsOtherAlphabets) {
  for (std::string s : {"", "f", "fo", "foo", "foob", "fooba", "foobar", "\xff\xfe\x00\x01"}) {
    auto enc = auth::detail::base64url_encode(s);
    EXPECT_EQ(enc.find('='), std::string::npos);
    EXPECT_EQ(auth::detail::base64url_decode(enc), s) << enc;
  }
  EXPECT_FALSE(auth::detail::base64url_decode("a+b/").has_value());  // base64, not base64url
  EXPECT_FALSE(auth::detail::base64url_decode("Zg==").has_value());  // padding
  EXPECT_FALSE(auth::detail::base64url_decode("Z").has_value());     // impossible length
  EXPECT_FALSE(auth::detail::base64url_decode("Zh").has_value());    // non-zero leftover bits
}

TEST(KeySet, ParsesEveryKeyTypeAndSkipsWhatCannotVerify) {
  const auto& k = keys::get();
  json::array list{k.rs.jwk(), k.es.jwk(), k.ed.jwk(false)};
  list.emplace_back(json::object{{"kty", "oct"}, {"k", "c2VjcmV0"}, {"kid", "hmac"}});
  auto enc = k.es.jwk();
  enc["use"] = "enc";
  enc["kid"] = "enc1";
  list.emplace_back(enc);
  list.emplace_back(make_key("RS256", "small", 1024).jwk());
  auto priv = k.es.jwk();
  priv["d"] = "AAAA";
  priv["kid"] = "priv";
  list.emplace_back(priv);
  const auto set = auth::key_set::parse(json::serialize(json::object{{"keys", list}})).value();
  EXPECT_EQ(set.size(), 3U);
  EXPECT_NE(set.find("RS256", "rs1"), nullptr);
  EXPECT_EQ(set.find("ES256", "rs1"), nullptr);  // the key's type does not fit
  EXPECT_EQ(set.find("PS256", "rs1"), nullptr);  // the key names RS256
  EXPECT_NE(set.find("EdDSA", ""), nullptr);     // the only Ed25519 key, no kid needed
  EXPECT_EQ(set.find("ES256", "enc1"), nullptr);
  EXPECT_EQ(set.find("RS256", "small"), nullptr);
  EXPECT_EQ(set.find("HS256", "hmac"), nullptr);
}

TEST(KeySet, RefusesWhatIsNotAKeySet) {
  // What a server or a file gives: an error with the reason, never an exception.
  const std::pair<std::string, std::string> bad[] = {
      {"", "JWKS: "},
      {"[]", "JWKS: not an object with a \"keys\" array"},
      {"{}", "JWKS: not an object with a \"keys\" array"},
      {R"({"keys":{}})", "JWKS: not an object with a \"keys\" array"},
      {R"({"keys":[1]})", "JWKS: key 1 is not an object"},
      {R"({"keys":[{"kty":"EC","crv":"P-256","x":"AAAA","y":"AAAA"}]})",
       "JWKS: key 1: a P-256 key needs 32-byte x and y"},
      {R"({"keys":[{"kty":"RSA","kid":"r","n":"!!","e":"AQAB"}]})",
       "JWKS: key 1 (kid \"r\"): key member \"n\" is not base64url"},
      {R"({"keys":[{"kty":"OKP","crv":"Ed25519"}]})", "JWKS: key 1: key member \"x\" is missing"},
  };
  for (const auto& [doc, why] : bad) {
    const auto set = auth::key_set::parse(doc);
    ASSERT_FALSE(set) << doc;
    EXPECT_TRUE(set.error().is(mcp::errc::invalid_params)) << doc << " " << set.error().code;
    EXPECT_EQ(set.error().message.substr(0, why.size()), why)
        << doc << " -> " << set.error().message;
  }
  const auto deep = auth::key_set::parse(std::string(100, '['));
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().message.substr(0, 6), "JWKS: ");
  std::string many = R"({"keys":[)";
  for (int i = 0; i < 257; ++i) many += (i != 0 ? ",{}" : "{}");
  const auto too_many = auth::key_set::parse(many + "]}");
  ASSERT_FALSE(too_many);
  EXPECT_TRUE(too_many.error().is(mcp::errc::limit_exceeded));
  EXPECT_EQ(too_many.error().message, "JWKS: more than 256 keys");
}

TEST(JwtVerifier, AcceptsEachAlgorithmAndFillsThePrincipal) {
  const auto& k = keys::get();
  const auto v = verifier(k.jwks());
  for (const auto* key : {&k.rs, &k.ps, &k.es, &k.ed}) {
    auto verdict = v.verify(sign(*key, claims()));
    ASSERT_TRUE(verdict.who) << key->alg << ": " << verdict.reason;
    EXPECT_EQ(verdict.who->subject, "alice");
    EXPECT_EQ(verdict.who->issuer, issuer);
    EXPECT_EQ(verdict.who->client_id, "cli");
    EXPECT_EQ(verdict.who->scopes, (std::vector<std::string>{"tools.read", "tools.write"}));
    EXPECT_EQ(verdict.who->claims.at("sub"), "alice");
    EXPECT_EQ(verdict.who->key(), std::string(issuer) + " alice");
  }
}

TEST(JwtVerifier, RefusesEachBadToken) {
  const auto& k = keys::get();
  const auto v = verifier(k.jwks());
  auto with = [](const char* name, json::value value) {
    auto c = claims();
    c[name] = std::move(value);
    return c;
  };
  auto without = [](const char* name) {
    auto c = claims();
    c.erase(name);
    return c;
  };
  EXPECT_EQ(refused(v.verify(sign(k.es, claims(-120)))), "the token has expired");
  EXPECT_EQ(refused(v.verify(sign(k.es, with("nbf", now_s() + 600)))),
            "the token is not valid yet");
  EXPECT_EQ(refused(v.verify(sign(k.es, with("iat", now_s() + 600)))),
            "the token was issued in the future");
  EXPECT_EQ(refused(v.verify(sign(k.es, with("iss", "https://evil.test")))),
            "the token was issued by another issuer");
  EXPECT_EQ(refused(v.verify(sign(k.es, with("aud", "https://other.test/mcp")))),
            "the token was issued for another resource");
  EXPECT_EQ(refused(v.verify(sign(k.es, without("aud")))),
            "the token was issued for another resource");
  EXPECT_EQ(refused(v.verify(sign(k.es, without("exp")))), "the token has no expiry");
  EXPECT_EQ(refused(v.verify(sign(k.es, without("sub")))), "the token has no subject");
  EXPECT_EQ(refused(v.verify(sign(k.es, with("exp", "tomorrow")))),
            "the token's claim \"exp\" is not a NumericDate");
  // Algorithms that are never accepted.
  const auto none = signing_input(json::object{{"alg", "none"}}, claims()) + ".";
  EXPECT_EQ(refused(v.verify(none)), "signature algorithm \"none\" is not accepted");
  // HS256 keyed with the public key's bytes (the classic confusion attack).
  const auto pub = json::serialize(k.rs.jwk());
  EXPECT_EQ(refused(v.verify(sign_hs256(pub, claims(), "rs1"))),
            "signature algorithm \"HS256\" is not accepted");
  // A header that says RS256 on an EC key.
  EXPECT_EQ(refused(v.verify(sign(k.es, claims(), json::object{{"alg", "ES256"}, {"kid", "rs1"}}))),
            "unknown signing key \"rs1\"");
  // Signed by another key under a known kid; tampered claims; a cut signature.
  EXPECT_EQ(refused(v.verify(sign(k.other, claims()))), "the token's signature is invalid");
  auto good = sign(k.rs, claims());
  const auto dot1 = good.find('.');
  const auto dot2 = good.find('.', dot1 + 1);
  const auto tampered =
      good.substr(0, dot1 + 1) + b64(json::serialize(with("sub", "mallory"))) + good.substr(dot2);
  EXPECT_EQ(refused(v.verify(tampered)), "the token's signature is invalid");
  EXPECT_EQ(refused(v.verify(good.substr(0, dot2 + 1) + b64(std::string(100, 'x')))),
            "the token's signature is invalid");
  EXPECT_EQ(refused(v.verify(sign(k.es, claims(), json::object{{"crit", json::array{"x"}}}))),
            "the token header has \"crit\" extensions");
  // Not a token at all.
  EXPECT_EQ(refused(v.verify("")), "the token is empty");
  EXPECT_EQ(refused(v.verify("abc")), "the token is not a JWS compact serialization");
  EXPECT_EQ(refused(v.verify("a.b.c.d")), "the token is not a JWS compact serialization");
  EXPECT_EQ(refused(v.verify("a+.b.c")), "the token is not base64url");
  EXPECT_EQ(refused(v.verify(std::string(9000, 'a'))), "the token is too long");
}

TEST(JwtVerifier, ClockSkewAndOptionalExpiry) {
  const auto& k = keys::get();
  EXPECT_TRUE(verifier(k.jwks()).verify(sign(k.ed, claims(-30))).who);  // within 60 s
  EXPECT_FALSE(verifier(k.jwks(), {.clock_skew = std::chrono::seconds(0)})
                   .verify(sign(k.ed, claims(-30)))
                   .who);
  auto c = claims();
  c.erase("exp");
  EXPECT_TRUE(verifier(k.jwks(), {.require_expiry = false}).verify(sign(k.ed, c)).who);
  c = claims();
  c["aud"] = json::array{"https://other.test", audience};
  c.erase("scope");
  c["scp"] = json::array{"a", "b"};
  auto who = verifier(k.jwks()).verify(sign(k.ed, c)).who;
  ASSERT_TRUE(who);
  EXPECT_EQ(who->scopes, (std::vector<std::string>{"a", "b"}));
  // RFC 9068 typ, when asked for.
  const auto strict = verifier(k.jwks(), {.require_at_jwt_type = true});
  EXPECT_TRUE(strict.verify(sign(k.ed, claims())).who);
  EXPECT_EQ(refused(strict.verify(sign(k.ed, claims(), json::object{{"typ", "JWT"}}))),
            "the token's \"typ\" is not at+jwt");
}

TEST(JwtVerifier, RestrictedAlgorithmsAndBadOptions) {
  const auto& k = keys::get();
  const auto only_ed = verifier(k.jwks(), {.algorithms = {"EdDSA"}});
  EXPECT_TRUE(only_ed.verify(sign(k.ed, claims())).who);
  EXPECT_EQ(refused(only_ed.verify(sign(k.rs, claims()))),
            "signature algorithm \"RS256\" is not accepted");
  EXPECT_THROW(verifier(k.jwks(), {.algorithms = {"HS256"}}), std::invalid_argument);
  EXPECT_THROW(auth::jwt_verifier({.issuer = issuer, .keys = {.location = k.jwks()}}),
               std::invalid_argument);                                            // no audience
  EXPECT_THROW(verifier("http://example.com/jwks.json"), std::invalid_argument);  // not loopback
  EXPECT_NO_THROW(verifier("https://example.com/jwks.json"));
}

TEST(JwtVerifier, KeysFromAFileAreReloadedForAnUnknownKid) {
  const auto& k = keys::get();
  const auto path =
      std::filesystem::temp_directory_path() / ("mcp-jwks-" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << jwks_of({&k.rs});
  const auto v = verifier(path.string(), {.keys = {.min_refresh = std::chrono::seconds(0)}});
  EXPECT_TRUE(v.verify(sign(k.rs, claims())).who);
  EXPECT_EQ(refused(v.verify(sign(k.ed, claims()))), "unknown signing key \"ed1\"");
  std::ofstream(path) << jwks_of({&k.rs, &k.ed});  // the issuer rotates in a new key
  EXPECT_TRUE(v.verify(sign(k.ed, claims())).who);
  std::filesystem::remove(path);
  // The caller is told the keys are missing, not where the server looks for them.
  EXPECT_EQ(refused(verifier("/nonexistent/jwks.json").verify(sign(k.rs, claims()))),
            "the signing keys cannot be loaded");
  const auto loaded = verifier("/nonexistent/jwks.json").load_keys();
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().code, static_cast<int>(mcp::errc::connection_closed));
  EXPECT_EQ(loaded.error().message,
            "the signing keys cannot be loaded: cannot open JWKS file /nonexistent/jwks.json");
}

TEST(JwtVerifier, KeysFromAUrlAreCachedAndFetchedAgainAtMostSoOften) {
  const auto& k = keys::get();
  jwks_endpoint endpoint(jwks_of({&k.rs}));
  const auto v = verifier(endpoint.url(), {.keys = {.min_refresh = std::chrono::seconds(1)}});
  EXPECT_TRUE(v.verify(sign(k.rs, claims())).who);
  EXPECT_TRUE(v.verify(sign(k.rs, claims(301))).who);
  EXPECT_EQ(endpoint.fetches(), 1);
  // Rotation: an unknown kid fetches again, at most once per min_refresh.
  endpoint.set(jwks_of({&k.rs, &k.es}));
  EXPECT_FALSE(v.verify(sign(k.es, claims())).who);  // just fetched: not yet
  EXPECT_EQ(endpoint.fetches(), 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  EXPECT_TRUE(v.verify(sign(k.es, claims(303))).who);
  EXPECT_EQ(endpoint.fetches(), 2);
  EXPECT_FALSE(v.verify(sign(k.ed, claims())).who);
  EXPECT_FALSE(v.verify(sign(k.ed, claims(302))).who);
  EXPECT_EQ(endpoint.fetches(), 2);
  // A source that does not answer refuses the token with the reason, without hanging.
  const auto dead = verifier("http://127.0.0.1:1/jwks.json",
                             {.keys = {.fetch_timeout = std::chrono::milliseconds(500)}});
  EXPECT_NE(refused(dead.verify(sign(k.rs, claims()))).find("cannot be loaded"), std::string::npos);
}

TEST(JwtVerifier, AKeySourceThatNeverAnswersTimesOut) {
  const auto& k = keys::get();
  // Listening, never accepting: the connection is made (the backlog) and nothing is ever read.
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor silent(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
  const auto url = "http://127.0.0.1:" + std::to_string(silent.local_endpoint().port()) + "/k";
  const auto v = verifier(url, {.keys = {.fetch_timeout = std::chrono::milliseconds(300)}});
  const auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(refused(v.verify(sign(k.rs, claims()))), "the signing keys cannot be loaded");
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(3));
  const auto loaded = v.load_keys();
  ASSERT_FALSE(loaded);
  EXPECT_NE(loaded.error().message.find("timed out"), std::string::npos) << loaded.error().message;
}

TEST(FetchUrl, APortThatIsNotOneIsRefusedWithTheReason) {
  using mcp::auth::detail::unusable_url;
  EXPECT_EQ(unusable_url("https://keys.example:8443/jwks.json"), std::nullopt);
  EXPECT_EQ(unusable_url("http://127.0.0.1:65535/k"), std::nullopt);
  for (const char* url : {"https://keys.example:65536/k", "https://keys.example:/k",
                          "https://keys.example:0/k", "http://127.0.0.1:99999999999999999999/k"}) {
    const auto why = unusable_url(url);
    ASSERT_TRUE(why.has_value()) << url;
    EXPECT_NE(why->find("port is not a number from 1 to 65535"), std::string::npos) << *why;
  }
  // The verifier refuses such a key location when it is made, not at the first token.
  EXPECT_THROW(verifier("https://keys.example:70000/jwks.json"), std::invalid_argument);
}

TEST(JwtVerifier, RemembersVerifiedTokensUntilTheyExpire) {
  const auto& k = keys::get();
  // Keys that go stale at once: every verification that is not remembered fetches them.
  jwks_endpoint endpoint(jwks_of({&k.rs}));
  const auto v = verifier(endpoint.url(), {.keys = {.cache_for = std::chrono::seconds(0),
                                                    .min_refresh = std::chrono::seconds(0)},
                                           .clock_skew = std::chrono::seconds(0)});
  const auto token = sign(k.rs, claims(2));
  EXPECT_TRUE(v.verify(token).who);
  EXPECT_EQ(endpoint.fetches(), 1);
  EXPECT_TRUE(v.verify(token).who);  // remembered: no key lookup
  EXPECT_EQ(endpoint.fetches(), 1);
  EXPECT_TRUE(v.verify(sign(k.rs, claims(3))).who);  // another token is checked
  EXPECT_EQ(endpoint.fetches(), 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  EXPECT_EQ(refused(v.verify(token)), "the token has expired");
  // Without the cache, every verification checks again.
  const auto uncached = verifier(endpoint.url(), {.keys = {.cache_for = std::chrono::seconds(0),
                                                           .min_refresh = std::chrono::seconds(0)},
                                                  .cache_entries = 0});
  const auto fresh = sign(k.rs, claims());
  EXPECT_TRUE(uncached.verify(fresh).who);
  EXPECT_TRUE(uncached.verify(fresh).who);
  EXPECT_EQ(endpoint.fetches(), 5);
}

TEST(JwtVerifier, ConcurrentVerificationsAgree) {
  const auto& k = keys::get();
  const auto v = verifier(k.jwks(), {.cache_entries = 4});
  std::vector<std::string> tokens;
  for (int i = 0; i < 16; ++i) tokens.push_back(sign(k.es, claims(300 + i)));
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int r = 0; r < 20; ++r) {
        for (const auto& tok : tokens) ok += v.verify(tok).who ? 1 : 0;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 4 * 20 * 16);
}

}  // namespace

namespace {

/// An introspection endpoint that knows two tokens and checks this resource's credentials.
jwks_endpoint::handler introspection_answers() {
  return [](const std::string& request) -> std::pair<int, std::string> {
    // "rs:s3cret" form-encoded, then base64.
    if (request.find("Authorization: Basic cnM6czNjcmV0") == std::string::npos) {
      return {401, R"({"error":"invalid_client"})"};
    }
    const auto exp = std::to_string(now_s() + 300);
    if (request.find("token=good%2Btoken&token_type_hint=access_token") != std::string::npos) {
      return {200, R"({"active":true,"sub":"bob","aud":")" + std::string(audience) +
                       R"(","iss":"https://auth.test","scope":"a b","client_id":"c","exp":)" + exp +
                       "}"};
    }
    if (request.find("token=elsewhere") != std::string::npos) {
      return {200, R"({"active":true,"sub":"bob","aud":"https://other.test","exp":)" + exp + "}"};
    }
    return {200, R"({"active":false})"};
  };
}

TEST(IntrospectionVerifier, AsksTheAuthorizationServerAndRemembersTheAnswer) {
  jwks_endpoint endpoint(introspection_answers());
  const auth::introspection_verifier v({.endpoint = endpoint.url("/introspect"),
                                        .client_id = "rs",
                                        .client_secret = "s3cret",
                                        .issuer = issuer,
                                        .audience = audience});
  auto verdict = v.verify("good+token");
  ASSERT_TRUE(verdict.who) << verdict.reason;
  EXPECT_EQ(verdict.who->subject, "bob");
  EXPECT_EQ(verdict.who->issuer, issuer);
  EXPECT_EQ(verdict.who->client_id, "c");
  EXPECT_EQ(verdict.who->scopes, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(v.verify("good+token").who);
  EXPECT_EQ(endpoint.fetches(), 1);  // remembered
  EXPECT_EQ(refused(v.verify("revoked")), "the token is not active");
  EXPECT_EQ(refused(v.verify("elsewhere")), "the token was issued for another resource");
  EXPECT_EQ(endpoint.fetches(), 3);
  // Refusals are remembered a while too: a client repeating a bad token costs no request.
  EXPECT_EQ(refused(v.verify("revoked")), "the token is not active");
  EXPECT_EQ(refused(v.verify("elsewhere")), "the token was issued for another resource");
  EXPECT_EQ(endpoint.fetches(), 3);
}

TEST(IntrospectionVerifier, RefusesWhenTheServerCannotBeAsked) {
  jwks_endpoint endpoint(introspection_answers());
  const auth::introspection_verifier wrong({.endpoint = endpoint.url("/introspect"),
                                            .client_id = "rs",
                                            .client_secret = "guess",
                                            .audience = audience});
  EXPECT_EQ(refused(wrong.verify("good+token")), "the token cannot be introspected");
  const auth::introspection_verifier down({.endpoint = "http://127.0.0.1:1/introspect",
                                           .audience = audience,
                                           .timeout = std::chrono::milliseconds(500)});
  EXPECT_NE(refused(down.verify("t")).find("cannot be introspected"), std::string::npos);
  endpoint.answer([](const std::string&) { return std::pair<int, std::string>{200, "[1,2"}; });
  const auth::introspection_verifier garbled(
      {.endpoint = endpoint.url("/introspect"), .audience = audience});
  EXPECT_EQ(refused(garbled.verify("t")), "the introspection answer is not a JSON object");
  EXPECT_THROW(auth::introspection_verifier({.endpoint = "http://example.com/i", .audience = "a"}),
               std::invalid_argument);
  EXPECT_THROW(auth::introspection_verifier({.endpoint = endpoint.url()}), std::invalid_argument);
}

}  // namespace
