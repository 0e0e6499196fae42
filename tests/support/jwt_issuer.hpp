// Test support: an authorization server's signing side, made with OpenSSL. Signing keys of each
// algorithm the verifier accepts (and an HMAC secret for algorithm-confusion tests), their
// JWKS document, signed tokens with any header and claims, and a JWKS endpoint on 127.0.0.1
// that counts its fetches and can be given new keys (rotation).
#pragma once

#include <mcp/json.hpp>

#include <boost/asio/buffers_iterator.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <boost/json/serialize.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "auth/jose.hpp"
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rsa.h>

namespace mcp_test {

namespace json = boost::json;

/// A signing key and what a JWKS says of it.
struct signing_key {
  std::string alg;  ///< RS256, PS256, ES256 or EdDSA
  std::string kid;
  std::shared_ptr<EVP_PKEY> pkey;

  /// The public JWK (with `kid`, `alg` and `use` unless told otherwise).
  [[nodiscard]] json::object jwk(bool with_alg = true) const {
    json::object k;
    auto bn = [this](const char* name, std::size_t pad) {
      BIGNUM* b = nullptr;
      if (EVP_PKEY_get_bn_param(pkey.get(), name, &b) != 1) throw std::runtime_error(name);
      std::string out(pad != 0 ? pad : static_cast<std::size_t>(BN_num_bytes(b)), '\0');
      BN_bn2binpad(b, reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(out.size()));
      BN_free(b);
      return mcp::auth::detail::base64url_encode(out);
    };
    if (alg == "RS256" || alg == "PS256") {
      k["kty"] = "RSA";
      k["n"] = bn(OSSL_PKEY_PARAM_RSA_N, 0);
      k["e"] = bn(OSSL_PKEY_PARAM_RSA_E, 0);
    } else if (alg == "ES256") {
      k["kty"] = "EC";
      k["crv"] = "P-256";
      k["x"] = bn(OSSL_PKEY_PARAM_EC_PUB_X, 32);
      k["y"] = bn(OSSL_PKEY_PARAM_EC_PUB_Y, 32);
    } else {
      std::string raw(32, '\0');
      std::size_t len = raw.size();
      EVP_PKEY_get_raw_public_key(pkey.get(), reinterpret_cast<unsigned char*>(raw.data()), &len);
      k["kty"] = "OKP";
      k["crv"] = "Ed25519";
      k["x"] = mcp::auth::detail::base64url_encode(raw);
    }
    if (!kid.empty()) k["kid"] = kid;
    if (with_alg) k["alg"] = alg;
    k["use"] = "sig";
    return k;
  }
};

inline signing_key make_key(const std::string& alg, const std::string& kid, int rsa_bits = 2048) {
  EVP_PKEY* p = nullptr;
  if (alg == "RS256" || alg == "PS256") {
    p = EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<std::size_t>(rsa_bits));
  } else if (alg == "ES256") {
    p = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
  } else {
    p = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
  }
  if (p == nullptr) throw std::runtime_error("keygen " + alg);
  return signing_key{alg, kid, std::shared_ptr<EVP_PKEY>(p, EVP_PKEY_free)};
}

inline std::string jwks_of(const std::vector<const signing_key*>& keys) {
  json::array a;
  for (const auto* k : keys) a.emplace_back(k->jwk());
  return json::serialize(json::object{{"keys", std::move(a)}});
}

inline std::string b64(std::string_view s) { return mcp::auth::detail::base64url_encode(s); }

/// header.payload, base64url-encoded.
inline std::string signing_input(const json::object& header, const json::object& claims) {
  return b64(json::serialize(header)) + "." + b64(json::serialize(claims));
}

/// A compact JWS of `claims` signed with `k` (header: alg, typ, kid, plus `extra`).
inline std::string sign(const signing_key& k, const json::object& claims,
                        json::object header = {}) {
  if (!header.contains("alg")) header["alg"] = k.alg;
  if (!header.contains("typ")) header["typ"] = "at+jwt";
  if (!header.contains("kid") && !k.kid.empty()) header["kid"] = k.kid;
  const auto input = signing_input(header, claims);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_PKEY_CTX* pctx = nullptr;
  const EVP_MD* md = k.alg == "EdDSA" ? nullptr : EVP_sha256();
  if (EVP_DigestSignInit(ctx.get(), &pctx, md, nullptr, k.pkey.get()) != 1) {
    throw std::runtime_error("sign init");
  }
  if (k.alg == "PS256") {
    EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING);
    EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST);
  }
  std::size_t len = 0;
  const auto* data = reinterpret_cast<const unsigned char*>(input.data());
  EVP_DigestSign(ctx.get(), nullptr, &len, data, input.size());
  std::string sig(len, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len, data,
                     input.size()) != 1) {
    throw std::runtime_error("sign");
  }
  sig.resize(len);
  if (k.alg == "ES256") {  // DER → r || s
    const auto* p = reinterpret_cast<const unsigned char*>(sig.data());
    ECDSA_SIG* es = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(sig.size()));
    std::string raw(64, '\0');
    BN_bn2binpad(ECDSA_SIG_get0_r(es), reinterpret_cast<unsigned char*>(raw.data()), 32);
    BN_bn2binpad(ECDSA_SIG_get0_s(es), reinterpret_cast<unsigned char*>(raw.data()) + 32, 32);
    ECDSA_SIG_free(es);
    sig = raw;
  }
  return input + "." + b64(sig);
}

/// An HS256 token whose secret is `secret` (algorithm-confusion attempts).
inline std::string sign_hs256(const std::string& secret, const json::object& claims,
                              const std::string& kid) {
  const auto input = signing_input(json::object{{"alg", "HS256"}, {"kid", kid}}, claims);
  unsigned char mac[32];
  unsigned int len = sizeof mac;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(input.data()), input.size(), mac, &len);
  return input + "." + b64(std::string(reinterpret_cast<const char*>(mac), len));
}

inline std::int64_t now_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// An HTTP endpoint on 127.0.0.1: every request gets the current document (a JWKS), or what
/// `answer` makes of the whole request text (an introspection endpoint). Counts the requests.
class jwks_endpoint {
 public:
  using handler = std::function<std::pair<int, std::string>(const std::string& request)>;

  explicit jwks_endpoint(std::string doc) : doc_(std::move(doc)), acceptor_(ctx_) {
    using boost::asio::ip::tcp;
    acceptor_.open(tcp::v4());
    acceptor_.bind(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0));
    acceptor_.listen();
    port_ = acceptor_.local_endpoint().port();
    thread_ = std::thread([this] { serve(); });
  }
  explicit jwks_endpoint(handler h) : jwks_endpoint(std::string()) { answer(std::move(h)); }
  ~jwks_endpoint() {
    stop_ = true;
    boost::system::error_code ec;
    // Wake the accept: connect once.
    boost::asio::io_context c;
    boost::asio::ip::tcp::socket s(c);
    s.connect({boost::asio::ip::make_address("127.0.0.1"), port_}, ec);
    thread_.join();
  }
  jwks_endpoint(const jwks_endpoint&) = delete;
  jwks_endpoint& operator=(const jwks_endpoint&) = delete;

  [[nodiscard]] std::string url(const std::string& path = "/jwks.json") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  void set(std::string doc) {
    std::lock_guard lock(mu_);
    doc_ = std::move(doc);
  }
  void answer(handler h) {
    std::lock_guard lock(mu_);
    handler_ = std::move(h);
  }
  [[nodiscard]] int fetches() const { return fetches_.load(); }

 private:
  void serve() {
    while (!stop_) {
      boost::system::error_code ec;
      boost::asio::ip::tcp::socket s(ctx_);
      acceptor_.accept(s, ec);
      if (ec || stop_) continue;
      boost::asio::streambuf in;
      const auto head = boost::asio::read_until(s, in, "\r\n\r\n", ec);
      if (ec) continue;
      std::string request(boost::asio::buffers_begin(in.data()),
                          boost::asio::buffers_begin(in.data()) + static_cast<long>(head));
      const auto cl = request.find("Content-Length: ");
      const std::size_t length = cl == std::string::npos ? 0 : std::stoul(request.substr(cl + 16));
      in.consume(head);
      if (in.size() < length)
        boost::asio::read(s, in, boost::asio::transfer_exactly(length - in.size()), ec);
      request.append(boost::asio::buffers_begin(in.data()),
                     boost::asio::buffers_begin(in.data()) + static_cast<long>(length));
      ++fetches_;
      int status = 200;
      std::string body;
      {
        std::lock_guard lock(mu_);
        if (handler_) {
          std::tie(status, body) = handler_(request);
        } else {
          body = doc_;
        }
      }
      const std::string out = "HTTP/1.1 " + std::to_string(status) +
                              " X\r\nContent-Type: application/json\r\n"
                              "Connection: close\r\nContent-Length: " +
                              std::to_string(body.size()) + "\r\n\r\n" + body;
      boost::asio::write(s, boost::asio::buffer(out), ec);
      s.shutdown(boost::asio::ip::tcp::socket::shutdown_both, ec);
    }
  }

  std::mutex mu_;
  std::string doc_;
  handler handler_;
  boost::asio::io_context ctx_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::uint16_t port_ = 0;
  std::atomic<int> fetches_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace mcp_test
