// JSON Web Keys: base64url, public keys from JWK members with OpenSSL 3, signature checks.
#include <mcp/content.hpp>
#include <mcp/json.hpp>

#include <algorithm>
#include <array>
#include <stdexcept>

#include "auth/jose.hpp"
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>

namespace mcp::auth {
namespace detail {
namespace {

int b64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

}  // namespace

std::optional<std::string> base64url_decode(std::string_view in) {
  if (in.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(in.size() * 3 / 4);
  std::uint32_t acc = 0;
  int bits = 0;
  for (const char c : in) {
    const int v = b64_value(c);
    if (v < 0) return std::nullopt;
    acc = (acc << 6U) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> static_cast<unsigned>(bits)) & 0xffU));
    }
  }
  // Leftover bits must be zero (one encoding per value).
  if ((acc & ((1U << static_cast<unsigned>(bits)) - 1U)) != 0) return std::nullopt;
  return out;
}

std::string base64url_encode(std::string_view in) {
  auto out = mcp::base64_encode(in);
  std::replace(out.begin(), out.end(), '+', '-');
  std::replace(out.begin(), out.end(), '/', '_');
  while (!out.empty() && out.back() == '=') out.pop_back();
  return out;
}

bool key_fits(std::string_view kty, std::string_view alg) {
  if (alg == "RS256" || alg == "PS256") return kty == "RSA";
  if (alg == "ES256") return kty == "EC";
  if (alg == "EdDSA") return kty == "OKP";
  return false;
}

bool verify_signature(const key_set::key& k, std::string_view alg, std::string_view input,
                      std::string_view sig) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!ctx) return false;
  std::string der;  // ES256: JOSE sends r || s; OpenSSL wants a DER ECDSA-Sig-Value
  if (alg == "ES256") {
    if (sig.size() != 64) return false;
    ECDSA_SIG* es = ECDSA_SIG_new();
    if (es == nullptr) return false;
    const auto* raw = reinterpret_cast<const unsigned char*>(sig.data());
    BIGNUM* r = BN_bin2bn(raw, 32, nullptr);
    BIGNUM* s = BN_bin2bn(raw + 32, 32, nullptr);
    if (r == nullptr || s == nullptr || ECDSA_SIG_set0(es, r, s) != 1) {
      BN_free(r);
      BN_free(s);
      ECDSA_SIG_free(es);
      return false;
    }
    unsigned char* buf = nullptr;
    const int len = i2d_ECDSA_SIG(es, &buf);
    ECDSA_SIG_free(es);
    if (len <= 0) return false;
    der.assign(reinterpret_cast<const char*>(buf), static_cast<std::size_t>(len));
    OPENSSL_free(buf);
    sig = der;
  }
  const EVP_MD* md = alg == "EdDSA" ? nullptr : EVP_sha256();
  EVP_PKEY_CTX* pctx = nullptr;
  if (EVP_DigestVerifyInit(ctx.get(), &pctx, md, nullptr, k.pkey.get()) != 1) return false;
  if (alg == "PS256") {
    if (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) != 1 ||
        EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) != 1 ||
        EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, EVP_sha256()) != 1) {
      return false;
    }
  } else if (alg == "RS256") {
    if (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) != 1) return false;
  }
  return EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(sig.data()), sig.size(),
                          reinterpret_cast<const unsigned char*>(input.data()), input.size()) == 1;
}

}  // namespace detail

namespace {

constexpr std::size_t max_jwks_bytes = std::size_t{1} << 20U;
constexpr std::size_t max_keys = 256;

using pkey_ptr = std::shared_ptr<EVP_PKEY>;

std::string member(const json::object& jwk, std::string_view name) {
  const auto* v = jwk.if_contains(name);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

/// A base64url member decoded, or a thrown reason.
std::string bytes_member(const json::object& jwk, std::string_view name) {
  const auto* v = jwk.if_contains(name);
  if (v == nullptr || !v->is_string()) {
    throw std::invalid_argument("key member \"" + std::string(name) + "\" is missing");
  }
  auto out = detail::base64url_decode(v->get_string());
  if (!out || out->empty()) {
    throw std::invalid_argument("key member \"" + std::string(name) + "\" is not base64url");
  }
  return *out;
}

pkey_ptr from_params(const char* type, OSSL_PARAM_BLD* bld) {
  OSSL_PARAM* params = OSSL_PARAM_BLD_to_param(bld);
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr);
  EVP_PKEY* pkey = nullptr;
  const bool ok = params != nullptr && ctx != nullptr && EVP_PKEY_fromdata_init(ctx) == 1 &&
                  EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) == 1;
  EVP_PKEY_CTX_free(ctx);
  OSSL_PARAM_free(params);
  if (!ok) {
    EVP_PKEY_free(pkey);
    throw std::invalid_argument(std::string("the ") + type + " key is invalid");
  }
  return pkey_ptr(pkey, EVP_PKEY_free);
}

pkey_ptr rsa_key(const json::object& jwk) {
  const auto n = bytes_member(jwk, "n");
  const auto e = bytes_member(jwk, "e");
  if (n.size() > 1024 || e.size() > 8) {
    throw std::invalid_argument("the RSA key is larger than 8192 bits or has a large exponent");
  }
  std::unique_ptr<OSSL_PARAM_BLD, decltype(&OSSL_PARAM_BLD_free)> bld(OSSL_PARAM_BLD_new(),
                                                                      OSSL_PARAM_BLD_free);
  std::unique_ptr<BIGNUM, decltype(&BN_free)> bn_n(
      BN_bin2bn(reinterpret_cast<const unsigned char*>(n.data()), static_cast<int>(n.size()),
                nullptr),
      BN_free);
  std::unique_ptr<BIGNUM, decltype(&BN_free)> bn_e(
      BN_bin2bn(reinterpret_cast<const unsigned char*>(e.data()), static_cast<int>(e.size()),
                nullptr),
      BN_free);
  if (!bld || !bn_n || !bn_e ||
      OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_N, bn_n.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_E, bn_e.get()) != 1) {
    throw std::invalid_argument("the RSA key is invalid");
  }
  return from_params("RSA", bld.get());
}

pkey_ptr ec_key(const json::object& jwk) {
  if (member(jwk, "crv") != "P-256") return nullptr;
  const auto x = bytes_member(jwk, "x");
  const auto y = bytes_member(jwk, "y");
  if (x.size() != 32 || y.size() != 32) {
    throw std::invalid_argument("a P-256 key needs 32-byte x and y");
  }
  std::string point = "\x04" + x + y;  // uncompressed SEC1 point
  std::unique_ptr<OSSL_PARAM_BLD, decltype(&OSSL_PARAM_BLD_free)> bld(OSSL_PARAM_BLD_new(),
                                                                      OSSL_PARAM_BLD_free);
  if (!bld ||
      OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) !=
          1 ||
      OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(),
                                       point.size()) != 1) {
    throw std::invalid_argument("the EC key is invalid");
  }
  return from_params("EC", bld.get());
}

pkey_ptr okp_key(const json::object& jwk) {
  if (member(jwk, "crv") != "Ed25519") return nullptr;
  const auto x = bytes_member(jwk, "x");
  if (x.size() != 32) throw std::invalid_argument("an Ed25519 key needs a 32-byte x");
  EVP_PKEY* pkey = EVP_PKEY_new_raw_public_key(
      EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char*>(x.data()), x.size());
  if (pkey == nullptr) throw std::invalid_argument("the Ed25519 key is invalid");
  return pkey_ptr(pkey, EVP_PKEY_free);
}

}  // namespace

result<key_set> key_set::parse(std::string_view text) try {
  auto doc = parse_json(text, json_limits{.max_size = max_jwks_bytes, .max_depth = 16});
  if (!doc) {
    const auto code =
        doc.error().is(errc::limit_exceeded) ? errc::limit_exceeded : errc::invalid_params;
    return error{code, "JWKS: " + doc.error().message};
  }
  const auto* keys = doc->is_object() ? doc->get_object().if_contains("keys") : nullptr;
  if (keys == nullptr || !keys->is_array()) {
    throw std::invalid_argument("JWKS: not an object with a \"keys\" array");
  }
  if (keys->get_array().size() > max_keys) {
    return error{errc::limit_exceeded, "JWKS: more than 256 keys"};
  }
  key_set out;
  std::size_t index = 0;
  for (const auto& v : keys->get_array()) {
    ++index;
    if (!v.is_object())
      throw std::invalid_argument("JWKS: key " + std::to_string(index) + " is not an object");
    const auto& jwk = v.get_object();
    const auto use = member(jwk, "use");
    if (!use.empty() && use != "sig") continue;
    if (jwk.contains("d") || jwk.contains("p") || jwk.contains("k")) continue;  // not public
    auto k = std::make_shared<key>();
    k->kty = member(jwk, "kty");
    k->kid = member(jwk, "kid");
    k->alg = member(jwk, "alg");
    try {
      if (k->kty == "RSA") {
        k->pkey = rsa_key(jwk);
        if (EVP_PKEY_get_bits(k->pkey.get()) < 2048) continue;
      } else if (k->kty == "EC") {
        k->pkey = ec_key(jwk);
      } else if (k->kty == "OKP") {
        k->pkey = okp_key(jwk);
      }
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("JWKS: key " + std::to_string(index) +
                                  (k->kid.empty() ? "" : " (kid \"" + k->kid + "\")") + ": " +
                                  e.what());
    }
    if (!k->pkey) continue;  // a type or curve no supported algorithm uses
    if (!k->alg.empty() && !detail::key_fits(k->kty, k->alg)) continue;
    out.keys_.push_back(std::move(k));
  }
  return out;
} catch (const std::invalid_argument& e) {  // what this file's key readers refuse
  return error{errc::invalid_params, e.what()};
}

std::shared_ptr<const key_set::key> key_set::find(std::string_view alg,
                                                  std::string_view kid) const {
  std::shared_ptr<const key> only;
  std::size_t fitting = 0;
  for (const auto& k : keys_) {
    if (!detail::key_fits(k->kty, alg) || (!k->alg.empty() && k->alg != alg)) continue;
    if (!kid.empty()) {
      if (k->kid == kid) return k;
      continue;
    }
    only = k;
    ++fitting;
  }
  return fitting == 1 ? only : nullptr;
}

}  // namespace mcp::auth
