// The signing side of mcp::auth (src/auth/jws.hpp, src/auth/dpop.hpp): private keys from PEM,
// JWTs signed here and checked by the project's own verifier (jwt_verifier, verify_signature)
// for each algorithm, RFC 7638 thumbprints, and DPoP proofs (RFC 9449 §4.2: header, claims,
// `ath`, nonces).
#include <mcp/auth.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <set>

#include "auth/dpop.hpp"
#include "auth/jws.hpp"
#include "detail/sha256.hpp"
#include "support/jwt_issuer.hpp"
#include <openssl/pem.h>

namespace {

namespace auth = mcp::auth;
namespace json = boost::json;
using auth::detail::signing_key;

/// The PEM (PKCS#8, or the traditional form when `traditional`) of a new key of `type`.
std::string pem_of(const mcp_test::signing_key& k, bool traditional = false) {
  std::unique_ptr<BIO, decltype(&BIO_free_all)> bio(BIO_new(BIO_s_mem()), BIO_free_all);
  const int ok = traditional ? PEM_write_bio_PrivateKey_traditional(
                                   bio.get(), k.pkey.get(), nullptr, nullptr, 0, nullptr, nullptr)
                             : PEM_write_bio_PrivateKey(bio.get(), k.pkey.get(), nullptr, nullptr,
                                                        0, nullptr, nullptr);
  EXPECT_EQ(ok, 1);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return {data, static_cast<std::size_t>(n)};
}

/// Keys are slow to make (RSA): once for the whole file.
struct keys {
  mcp_test::signing_key rsa = mcp_test::make_key("RS256", "");
  mcp_test::signing_key ec = mcp_test::make_key("ES256", "");
  mcp_test::signing_key ed = mcp_test::make_key("EdDSA", "");
  static const keys& get() {
    static const keys k;
    return k;
  }
};

/// Part `n` (0: header, 1: claims) of a compact JWS, decoded.
json::object decode_part(std::string_view jwt, int n) {
  std::size_t from = 0;
  for (int i = 0; i < n; ++i) from = jwt.find('.', from) + 1;
  const auto text = auth::detail::base64url_decode(jwt.substr(from, jwt.find('.', from) - from));
  if (!text) return {};
  return json::parse(*text).as_object();
}

std::string jwks_with(const json::object& jwk) {
  return json::serialize(json::object{{"keys", json::array{jwk}}});
}

TEST(signing_key, jwts_signed_here_pass_the_verifier_for_each_algorithm) {
  const auto& k = keys::get();
  const struct {
    const mcp_test::signing_key* key;
    std::string alg;
    bool traditional;
  } cases[] = {{&k.ec, "ES256", false}, {&k.ec, "ES256", true},   {&k.rsa, "RS256", false},
               {&k.rsa, "RS256", true}, {&k.rsa, "PS256", false}, {&k.ed, "EdDSA", false}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.alg + (c.traditional ? " traditional PEM" : " PKCS#8"));
    const auto key = signing_key::from_pem(pem_of(*c.key, c.traditional));
    EXPECT_EQ(key.algorithm(c.alg), c.alg);
    const auto now = mcp_test::now_s();
    const json::object claims{{"iss", "https://as.test"},
                              {"aud", "https://rs.test/mcp"},
                              {"sub", "svc"},
                              {"iat", now},
                              {"exp", now + 60}};
    const auto jwt = auth::detail::sign_jwt(key, c.alg, {{"typ", "at+jwt"}}, claims);
    if (c.alg == "ES256") {  // JOSE form: r || s, 64 bytes
      EXPECT_EQ(auth::detail::base64url_decode(jwt.substr(jwt.rfind('.') + 1))->size(), 64U);
    }
    auth::jwt_verifier v({.issuer = "https://as.test",
                          .audience = "https://rs.test/mcp",
                          .keys = {.location = jwks_with(key.public_jwk())},
                          .require_at_jwt_type = true});
    const auto verdict = v.verify(jwt);
    ASSERT_TRUE(verdict.who.has_value()) << verdict.reason;
    EXPECT_EQ(verdict.who->subject, "svc");
    // The same key's JWK as the test issuer writes it: the same public key.
    auto theirs = c.key->jwk(false);
    theirs.erase("use");
    EXPECT_EQ(key.public_jwk(), theirs);
    // A byte changed in the claims: refused.
    auto forged = jwt;
    forged[forged.find('.') + 2] = forged[forged.find('.') + 2] == 'A' ? 'B' : 'A';
    EXPECT_FALSE(v.verify(forged).who.has_value());
  }
}

TEST(signing_key, the_default_algorithm_follows_the_key_and_misfits_are_refused) {
  const auto& k = keys::get();
  EXPECT_EQ(signing_key::from_pem(pem_of(k.ec)).algorithm(), "ES256");
  EXPECT_EQ(signing_key::from_pem(pem_of(k.rsa)).algorithm(), "RS256");
  EXPECT_EQ(signing_key::from_pem(pem_of(k.ed)).algorithm(), "EdDSA");
  EXPECT_EQ(signing_key::generate_p256().algorithm(), "ES256");
  EXPECT_THROW((void)signing_key::from_pem(pem_of(k.ec)).algorithm("RS256"), std::invalid_argument);
  EXPECT_THROW((void)signing_key::from_pem(pem_of(k.rsa)).algorithm("ES256"),
               std::invalid_argument);
  EXPECT_THROW((void)signing_key::from_pem(pem_of(k.rsa)).algorithm("HS256"),
               std::invalid_argument);
}

TEST(signing_key, keys_it_cannot_use_are_refused_with_a_reason) {
  auto why = [](const std::string& pem) {
    try {
      (void)signing_key::from_pem(pem);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(why("not a key"), "not a PEM private key");
  EXPECT_EQ(why(""), "not a PEM private key");
  EXPECT_EQ(why(std::string(70000, 'A')), "the PEM key is larger than 64 KiB");
  EXPECT_NE(why("-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----")
                .find("encrypted"),
            std::string::npos);
  mcp_test::signing_key p384{
      "ES384", "", {EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-384"), EVP_PKEY_free}};
  EXPECT_EQ(why(pem_of(p384)), "an EC key must be on the P-256 curve");
  const auto small = mcp_test::make_key("RS256", "", 1024);
  EXPECT_EQ(why(pem_of(small)), "an RSA key must have at least 2048 bits");
  // A public key is not a private key.
  std::unique_ptr<BIO, decltype(&BIO_free_all)> bio(BIO_new(BIO_s_mem()), BIO_free_all);
  PEM_write_bio_PUBKEY(bio.get(), keys::get().ec.pkey.get());
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  EXPECT_EQ(why(std::string(data, static_cast<std::size_t>(n))), "not a PEM private key");
}

TEST(signing_key, the_thumbprint_is_rfc_7638s) {
  // RFC 7638 §3: SHA-256 over the required members in lexicographic order, no white space.
  const auto& k = keys::get();
  for (const auto* test_key : {&k.ec, &k.rsa, &k.ed}) {
    const auto key = signing_key::from_pem(pem_of(*test_key));
    const auto jwk = key.public_jwk();
    auto m = [&jwk](const char* name) {
      return std::string("\"") + name + "\":\"" + std::string(jwk.at(name).as_string()) + "\"";
    };
    const std::string canonical =
        key.kty() == "EC"    ? "{" + m("crv") + "," + m("kty") + "," + m("x") + "," + m("y") + "}"
        : key.kty() == "RSA" ? "{" + m("e") + "," + m("kty") + "," + m("n") + "}"
                             : "{" + m("crv") + "," + m("kty") + "," + m("x") + "}";
    const auto d = mcp::detail::sha256(canonical);
    EXPECT_EQ(key.thumbprint(), auth::detail::base64url_encode(
                                    std::string_view(reinterpret_cast<const char*>(d.data()), 32)));
    EXPECT_EQ(key.thumbprint().size(), 43U);
  }
  EXPECT_NE(signing_key::generate_p256().thumbprint(), signing_key::generate_p256().thumbprint());
}

// ---- DPoP proofs --------------------------------------------------------------------------

TEST(dpop, a_proof_carries_what_rfc_9449_asks_and_verifies_with_its_own_key) {
  auth::detail::dpop_signer signer(signing_key::generate_p256(), "ES256");
  const std::string url = "https://mcp.example/mcp?session=1#frag";
  const std::string token = "at-123";
  std::set<std::string> jtis;
  for (int i = 0; i < 3; ++i) {
    const auto proof = signer.proof("POST", url, token);
    const auto header = decode_part(proof, 0);
    const auto claims = decode_part(proof, 1);
    EXPECT_EQ(header.at("typ"), "dpop+jwt");
    EXPECT_EQ(header.at("alg"), "ES256");
    const auto& jwk = header.at("jwk").as_object();
    EXPECT_FALSE(jwk.contains("d")) << "no private member";
    EXPECT_EQ(jwk.at("kty"), "EC");
    // The signature checks out with the key in the header.
    const auto set = auth::key_set::parse(jwks_with(jwk)).value();
    const auto key = set.find("ES256", "");
    ASSERT_TRUE(key);
    const auto dot = proof.rfind('.');
    EXPECT_TRUE(auth::detail::verify_signature(
        *key, "ES256", std::string_view(proof).substr(0, dot),
        *auth::detail::base64url_decode(std::string_view(proof).substr(dot + 1))));
    EXPECT_EQ(claims.at("htm"), "POST");
    EXPECT_EQ(claims.at("htu"), "https://mcp.example/mcp");  // no query, no fragment
    EXPECT_LE(std::abs(claims.at("iat").as_int64() - mcp_test::now_s()), 5);
    const auto d = mcp::detail::sha256(token);
    EXPECT_EQ(claims.at("ath").as_string(),
              auth::detail::base64url_encode(
                  std::string_view(reinterpret_cast<const char*>(d.data()), d.size())));
    EXPECT_FALSE(claims.contains("nonce"));
    EXPECT_TRUE(jtis.insert(std::string(claims.at("jti").as_string())).second) << "jti reused";
  }
  // A token request's proof: no ath.
  EXPECT_FALSE(decode_part(signer.proof("POST", "https://as.example/token"), 1).contains("ath"));
  EXPECT_EQ(decode_part(signer.proof("GET", url), 1).at("htm"), "GET");
  EXPECT_EQ(signer.jkt().size(), 43U);
}

TEST(dpop, nonces_are_kept_per_server_and_only_valid_ones) {
  auth::detail::dpop_signer signer(signing_key::generate_p256(), "ES256");
  EXPECT_TRUE(signer.remember_nonce("https://as.example/token", "n-1"));
  EXPECT_FALSE(signer.remember_nonce("https://AS.example/other", "n-1")) << "same origin, same";
  EXPECT_EQ(signer.nonce_for("https://as.example/token"), "n-1");
  EXPECT_EQ(signer.nonce_for("https://rs.example/mcp"), "");
  EXPECT_EQ(decode_part(signer.proof("POST", "https://as.example/token"), 1).at("nonce"), "n-1");
  EXPECT_FALSE(decode_part(signer.proof("POST", "https://rs.example/mcp"), 1).contains("nonce"));
  EXPECT_TRUE(signer.remember_nonce("https://as.example/token", " n-2 "));
  EXPECT_EQ(signer.nonce_for("https://as.example/x"), "n-2");
  // Not nonces (RFC 9449 §8.1 NQCHAR): kept out.
  for (const auto* bad : {"", "a\"b", "a\\b", "a b", "tab\there", "\x7f", "\xc3\xa9"}) {
    EXPECT_FALSE(auth::detail::dpop_nonce(bad).has_value()) << bad;
    EXPECT_FALSE(signer.remember_nonce("https://as.example/token", bad));
  }
  EXPECT_FALSE(auth::detail::dpop_nonce(std::string(1025, 'a')).has_value());
  EXPECT_EQ(auth::detail::dpop_nonce("!#[]~"), "!#[]~");
  EXPECT_EQ(signer.nonce_for("https://as.example/token"), "n-2");
}

}  // namespace
