// Signing JWTs with OpenSSL 3: private keys from PEM or made here, their public JWK and
// thumbprint, ES256 / RS256 / PS256 / EdDSA signatures in JOSE form.
#include "auth/jws.hpp"

#include <boost/json/serialize.hpp>

#include <array>
#include <stdexcept>

#include "auth/jose.hpp"
#include "detail/sha256.hpp"
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

namespace mcp::auth::detail {
namespace {

constexpr std::size_t max_pem_bytes = 64 * 1024;

template <class T, void (*Free)(T*)>
struct deleter {
  void operator()(T* p) const { Free(p); }
};
using bio_ptr = std::unique_ptr<BIO, deleter<BIO, BIO_free_all>>;
using bn_ptr = std::unique_ptr<BIGNUM, deleter<BIGNUM, BN_free>>;
using md_ctx_ptr = std::unique_ptr<EVP_MD_CTX, deleter<EVP_MD_CTX, EVP_MD_CTX_free>>;
using ecdsa_sig_ptr = std::unique_ptr<ECDSA_SIG, deleter<ECDSA_SIG, ECDSA_SIG_free>>;

std::string bytes_of(const std::uint8_t* p, std::size_t n) {
  return {reinterpret_cast<const char*>(p), n};
}

/// A big-number parameter of `pkey`, big-endian: `width` bytes (left-padded), or as few as it
/// takes when `width` is 0.
std::string bn_param(const EVP_PKEY* pkey, const char* name, int width) {
  BIGNUM* raw = nullptr;
  if (EVP_PKEY_get_bn_param(pkey, name, &raw) != 1) {
    throw std::runtime_error(std::string("the key has no ") + name);
  }
  const bn_ptr bn(raw);
  const int n = width > 0 ? width : BN_num_bytes(bn.get());
  std::string out(static_cast<std::size_t>(n), '\0');
  auto* dst = reinterpret_cast<unsigned char*>(out.data());
  if ((width > 0 ? BN_bn2binpad(bn.get(), dst, width) : BN_bn2bin(bn.get(), dst)) != n) {
    throw std::runtime_error(std::string("the key's ") + name + " does not fit");
  }
  return out;
}

/// What kind of key `pkey` is ("EC", "RSA", "OKP"), or why it cannot be used.
std::string usable_kind(EVP_PKEY* pkey) {
  if (EVP_PKEY_is_a(pkey, "EC") == 1) {
    std::array<char, 64> group{};
    std::size_t len = 0;
    if (EVP_PKEY_get_utf8_string_param(pkey, OSSL_PKEY_PARAM_GROUP_NAME, group.data(), group.size(),
                                       &len) != 1 ||
        std::string_view(group.data(), len) != "prime256v1") {
      throw std::invalid_argument("an EC key must be on the P-256 curve");
    }
    return "EC";
  }
  if (EVP_PKEY_is_a(pkey, "RSA") == 1) {
    if (EVP_PKEY_get_bits(pkey) < 2048) {
      throw std::invalid_argument("an RSA key must have at least 2048 bits");
    }
    return "RSA";
  }
  if (EVP_PKEY_is_a(pkey, "ED25519") == 1) return "OKP";
  throw std::invalid_argument("the key is not EC P-256, RSA or Ed25519");
}

}  // namespace

signing_key signing_key::from_pem(std::string_view pem) {
  if (pem.size() > max_pem_bytes) throw std::invalid_argument("the PEM key is larger than 64 KiB");
  if (pem.find("ENCRYPTED") != std::string_view::npos) {
    throw std::invalid_argument("the PEM key is encrypted: give it unencrypted");
  }
  const bio_ptr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) throw std::runtime_error("out of memory reading a PEM key");
  // No passphrase callback: an encrypted key fails rather than prompting on the terminal.
  EVP_PKEY* raw = PEM_read_bio_PrivateKey(
      bio.get(), nullptr, [](char*, int, int, void*) { return 0; }, nullptr);
  if (raw == nullptr) throw std::invalid_argument("not a PEM private key");
  std::shared_ptr<EVP_PKEY> pkey(raw, EVP_PKEY_free);
  auto kind = usable_kind(raw);
  return {std::move(pkey), std::move(kind)};
}

signing_key signing_key::generate_p256() {
  EVP_PKEY* raw = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
  if (raw == nullptr) throw std::runtime_error("OpenSSL could not make a P-256 key");
  return {std::shared_ptr<EVP_PKEY>(raw, EVP_PKEY_free), "EC"};
}

std::string signing_key::algorithm(std::string_view wanted) const {
  if (wanted.empty()) return kty_ == "EC" ? "ES256" : kty_ == "RSA" ? "RS256" : "EdDSA";
  if (wanted != "ES256" && wanted != "RS256" && wanted != "PS256" && wanted != "EdDSA") {
    throw std::invalid_argument("signing algorithm " + std::string(wanted) +
                                " is not supported (ES256, RS256, PS256, EdDSA)");
  }
  if (!key_fits(kty_, wanted)) {
    throw std::invalid_argument("signing algorithm " + std::string(wanted) + " does not fit a " +
                                (kty_ == "OKP" ? std::string("Ed25519") : kty_) + " key");
  }
  return std::string(wanted);
}

json::object signing_key::public_jwk() const {
  if (kty_ == "EC") {
    return {{"kty", "EC"},
            {"crv", "P-256"},
            {"x", base64url_encode(bn_param(pkey_.get(), OSSL_PKEY_PARAM_EC_PUB_X, 32))},
            {"y", base64url_encode(bn_param(pkey_.get(), OSSL_PKEY_PARAM_EC_PUB_Y, 32))}};
  }
  if (kty_ == "RSA") {
    return {{"kty", "RSA"},
            {"n", base64url_encode(bn_param(pkey_.get(), OSSL_PKEY_PARAM_RSA_N, 0))},
            {"e", base64url_encode(bn_param(pkey_.get(), OSSL_PKEY_PARAM_RSA_E, 0))}};
  }
  std::array<unsigned char, 32> x{};
  std::size_t len = x.size();
  if (EVP_PKEY_get_raw_public_key(pkey_.get(), x.data(), &len) != 1 || len != x.size()) {
    throw std::runtime_error("the Ed25519 key has no public half");
  }
  return {{"kty", "OKP"}, {"crv", "Ed25519"}, {"x", base64url_encode(bytes_of(x.data(), len))}};
}

std::string signing_key::thumbprint() const {
  // RFC 7638 §3: the required members only, in lexicographic order, no white space. Their
  // values (base64url, curve names) need no JSON escaping.
  const auto jwk = public_jwk();
  auto m = [&jwk](std::string_view k) {
    return "\"" + std::string(k) + "\":\"" + std::string(jwk.at(k).as_string()) + "\"";
  };
  std::string canonical;
  if (kty_ == "EC") {
    canonical = "{" + m("crv") + "," + m("kty") + "," + m("x") + "," + m("y") + "}";
  } else if (kty_ == "RSA") {
    canonical = "{" + m("e") + "," + m("kty") + "," + m("n") + "}";
  } else {
    canonical = "{" + m("crv") + "," + m("kty") + "," + m("x") + "}";
  }
  const auto digest = mcp::detail::sha256(canonical);
  return base64url_encode(bytes_of(digest.data(), digest.size()));
}

std::string signing_key::sign(std::string_view alg, std::string_view input) const {
  const md_ctx_ptr ctx(EVP_MD_CTX_new());
  if (!ctx) throw std::runtime_error("out of memory signing");
  EVP_PKEY_CTX* pctx = nullptr;
  const EVP_MD* md = alg == "EdDSA" ? nullptr : EVP_sha256();
  bool ok = EVP_DigestSignInit(ctx.get(), &pctx, md, nullptr, pkey_.get()) == 1;
  if (ok && alg == "PS256") {
    ok = EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1 &&
         EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) == 1 &&
         EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, EVP_sha256()) == 1;
  } else if (ok && alg == "RS256") {
    ok = EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) == 1;
  }
  const auto* data = reinterpret_cast<const unsigned char*>(input.data());
  std::size_t len = 0;
  ok = ok && EVP_DigestSign(ctx.get(), nullptr, &len, data, input.size()) == 1;
  std::string sig(len, '\0');
  ok = ok && EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len, data,
                            input.size()) == 1;
  if (!ok) throw std::runtime_error("OpenSSL could not sign with " + std::string(alg));
  sig.resize(len);
  if (alg != "ES256") return sig;
  // OpenSSL gives a DER ECDSA-Sig-Value; JOSE wants r and s, 32 bytes each (RFC 7518 §3.4).
  const auto* der = reinterpret_cast<const unsigned char*>(sig.data());
  const ecdsa_sig_ptr es(d2i_ECDSA_SIG(nullptr, &der, static_cast<long>(sig.size())));
  if (!es) throw std::runtime_error("OpenSSL gave an unreadable ECDSA signature");
  std::string raw(64, '\0');
  auto* out = reinterpret_cast<unsigned char*>(raw.data());
  if (BN_bn2binpad(ECDSA_SIG_get0_r(es.get()), out, 32) != 32 ||
      BN_bn2binpad(ECDSA_SIG_get0_s(es.get()), out + 32, 32) != 32) {
    throw std::runtime_error("OpenSSL gave an ECDSA signature too large for P-256");
  }
  return raw;
}

std::string random_base64url(std::size_t bytes) {
  std::string raw(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(bytes)) != 1) {
    throw std::runtime_error("no random bytes from OpenSSL");
  }
  return base64url_encode(raw);
}

std::string sign_jwt(const signing_key& key, std::string_view alg, json::object header,
                     const json::object& claims) {
  header["alg"] = std::string(alg);
  std::string input =
      base64url_encode(json::serialize(header)) + "." + base64url_encode(json::serialize(claims));
  const auto sig = key.sign(alg, input);
  return input + "." + base64url_encode(sig);
}

}  // namespace mcp::auth::detail
