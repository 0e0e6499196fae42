// Test support for mcp/oauth.hpp: form and query decoding, PKCE's S256, blocking socket helpers,
// a mock HTTP/1.1 server on 127.0.0.1 (one request per connection, every request recorded), a
// user agent that answers the authorization step without a person, and a `world` of a resource
// metadata endpoint plus an authorization server whose behaviour a `setup` fixes (grants,
// scopes, RFC 9207 `iss`, DPoP with or without a nonce).
#pragma once

#include <mcp/content.hpp>
#include <mcp/oauth.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value_from.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <latch>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "auth/jose.hpp"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/sha.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace oauth_mock {

namespace auth = mcp::auth;
namespace json = boost::json;
using namespace std::chrono_literals;
using form = std::map<std::string, std::string>;
constexpr auto npos = std::string::npos;

/// A query or an application/x-www-form-urlencoded body, decoded.
inline form parse_form(std::string_view s) {
  auto unpct = [](std::string_view t) {
    std::string out;
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (t[i] == '%' && i + 2 < t.size()) {
        out += static_cast<char>(std::stoi(std::string(t.substr(i + 1, 2)), nullptr, 16));
        i += 2;
      } else {
        out += t[i] == '+' ? ' ' : t[i];
      }
    }
    return out;
  };
  form out;
  while (!s.empty()) {
    const auto pair = s.substr(0, s.find('&'));
    const auto eq = pair.find('=');
    out[unpct(pair.substr(0, eq))] = eq == npos ? "" : unpct(pair.substr(eq + 1));
    s.remove_prefix(std::min(s.size(), pair.size() + 1));
  }
  return out;
}

inline std::string at(const form& f, const std::string& key) {
  const auto it = f.find(key);
  return it == f.end() ? std::string() : it->second;
}

/// The PKCE S256 challenge of `verifier`: base64url(SHA-256) without padding (RFC 7636 §4.2).
inline std::string s256(std::string_view verifier) {
  unsigned char d[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(verifier.data()), verifier.size(), d);
  auto b = mcp::base64_encode(std::string_view(reinterpret_cast<const char*>(d), sizeof d));
  for (auto& ch : b) ch = ch == '+' ? '-' : ch == '/' ? '_' : ch;
  while (!b.empty() && b.back() == '=') b.pop_back();
  return b;
}

inline sockaddr_in loopback_addr(std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

inline void send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const auto n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

/// Reads until `done(text)`, the peer's end, an error, or 5 s of silence.
template <class Done>
inline std::string receive(int fd, Done done) {
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::string in;
  char buf[4096];
  while (!done(in)) {
    const auto n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    in.append(buf, static_cast<std::size_t>(n));
  }
  return in;
}

/// A blocking GET to 127.0.0.1:`port`, as a browser makes it: the answer's status, or -1.
inline int http_get(std::uint16_t port, const std::string& target) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  auto a = loopback_addr(port);
  int status = -1;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    send_all(fd, "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    const auto in = receive(fd, [](const std::string&) { return false; });
    if (in.starts_with("HTTP/1.1 ") && in.size() >= 12) status = std::stoi(in.substr(9, 3));
  }
  ::close(fd);
  return status;
}

struct request {
  std::string method, target, body;
  form headers;  ///< names in lowercase
  [[nodiscard]] std::string path() const { return target.substr(0, target.find('?')); }
};

struct answer {
  int status = 404;
  std::string body = R"({"error":"not_found"})";
  std::vector<std::pair<std::string, std::string>> headers{};
};

/// The claims of a JWT (its payload decoded, signature unchecked); empty when it is not one.
inline json::object jwt_claims(std::string_view jwt) {
  const auto dot1 = jwt.find('.');
  const auto dot2 = jwt.find('.', dot1 == npos ? npos : dot1 + 1);
  if (dot2 == npos) return {};
  const auto text = auth::detail::base64url_decode(jwt.substr(dot1 + 1, dot2 - dot1 - 1));
  if (!text) return {};
  auto v = json::parse(*text);
  return v.is_object() ? v.as_object() : json::object{};
}
/// The protected header of a JWT.
inline json::object jwt_header(std::string_view jwt) {
  const auto text = auth::detail::base64url_decode(jwt.substr(0, jwt.find('.')));
  if (!text) return {};
  auto v = json::parse(*text);
  return v.is_object() ? v.as_object() : json::object{};
}

/// An HTTP/1.1 server on 127.0.0.1: one request per connection, answered by `route` with a
/// Content-Length body and `Connection: close`. Records every request.
class mock_server {
 public:
  explicit mock_server(std::function<answer(const request&)> route) : route_(std::move(route)) {
    auto a = loopback_addr(0);
    socklen_t len = sizeof a;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 16) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      ::close(fd_);
      throw std::runtime_error("mock_server: cannot listen");
    }
    port_ = ntohs(a.sin_port);
    thread_ = std::jthread([this](const std::stop_token& stop) {
      while (!stop.stop_requested()) {
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, 20) <= 0) continue;
        if (const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC); c >= 0) {
          exchange(c);
          ::close(c);
        }
      }
    });
  }
  ~mock_server() {
    thread_.request_stop();
    thread_.join();
    ::close(fd_);
  }
  [[nodiscard]] std::string url(const std::string& path = "") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  /// The requests received so far (to `path` only, when given).
  [[nodiscard]] std::vector<request> requests(const std::string& path = "") const {
    std::lock_guard lock(mu_);
    std::vector<request> out;
    for (const auto& r : log_) {
      if (path.empty() || r.path() == path) out.push_back(r);
    }
    return out;
  }

 private:
  void exchange(int c) {
    request r;
    std::size_t head = npos;
    std::size_t length = 0;
    const auto in = receive(c, [&](const std::string& text) {
      if (head == npos && (head = text.find("\r\n\r\n")) != npos) {
        std::istringstream lines(text.substr(0, head));
        std::string line;
        std::getline(lines, line);
        std::istringstream(line) >> r.method >> r.target;
        while (std::getline(lines, line)) {
          const auto colon = line.find(':');
          std::string name = line.substr(0, colon);
          for (auto& ch : name)
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
          const auto value = line.substr(line.find_first_not_of(' ', colon + 1));
          r.headers[name] = value.substr(0, value.find_last_not_of('\r') + 1);
        }
        length = r.headers.contains("content-length") ? std::stoul(r.headers["content-length"]) : 0;
      }
      return head != npos && text.size() >= head + 4 + length;
    });
    if (head == npos || in.size() < head + 4 + length) return;
    r.body = in.substr(head + 4, length);
    {
      std::lock_guard lock(mu_);
      log_.push_back(r);
    }
    const auto a = route_(r);
    std::string extra;
    for (const auto& [k, v] : a.headers) extra += k + ": " + v + "\r\n";
    send_all(c, "HTTP/1.1 " + std::to_string(a.status) +
                    " X\r\nContent-Type: application/json\r\nConnection: close\r\n" + extra +
                    "Content-Length: " + std::to_string(a.body.size()) + "\r\n\r\n" + a.body);
  }

  std::function<answer(const request&)> route_;
  int fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  std::uint16_t port_ = 0;
  mutable std::mutex mu_;
  std::vector<request> log_;
  std::jthread thread_;
};

/// The user: checks the authorization URL and comes back with a code (or as told otherwise).
class test_agent final : public auth::user_agent {
 public:
  std::string redirect = "http://127.0.0.1:1/callback";
  bool wrong_state = false;
  bool deny = false;
  std::string suffix;  ///< appended to the redirect, e.g. "&iss=..."
  std::chrono::milliseconds delay{0};
  bool gives_up = false;  ///< authorize fails: the user never came back
  std::atomic<int> calls{0};

  mcp::result<std::string> redirect_uri() override { return redirect; }
  mcp::result<std::string> authorize(const std::string& url) override {
    ++calls;
    std::this_thread::sleep_for(delay);
    if (gives_up) return mcp::error{mcp::errc::request_timeout, "the user did not come back"};
    auto q = parse_form(url.substr(url.find('?') + 1));
    EXPECT_EQ(at(q, "response_type"), "code");
    EXPECT_EQ(at(q, "code_challenge_method"), "S256");
    EXPECT_EQ(at(q, "redirect_uri"), redirect);
    EXPECT_FALSE(at(q, "resource").empty());
    EXPECT_GE(at(q, "state").size(), 16U);
    const auto state = wrong_state ? "forged" : at(q, "state");
    std::lock_guard lock(mu_);
    last_ = {url, std::move(q)};
    return std::string(redirect + (deny ? "?error=access_denied" : "?code=CODE") +
                       "&state=" + state + suffix);
  }
  /// The last authorization URL, and its query.
  [[nodiscard]] std::pair<std::string, form> last() const {
    std::lock_guard lock(mu_);
    return last_;
  }
  [[nodiscard]] std::string asked(const std::string& key) const { return at(last().second, key); }

 private:
  mutable std::mutex mu_;
  std::pair<std::string, form> last_;
};

/// How the mock servers behave (fixed before they answer anything).
struct setup {
  bool s256 = true;
  bool registration = true;
  bool cimd = false;
  bool promise_iss = false;
  bool refresh_fails = false;
  bool refresh_tokens = true;
  bool header_breaking_token = false;      ///< issue a token with CR LF in it
  std::string prm_resource{};              ///< empty: the MCP server's own URL
  std::string issuer_suffix{};             ///< appended to the metadata's `issuer` (a mismatch)
  std::vector<std::string> as_scopes{};    ///< the metadata's scopes_supported
  std::vector<std::string> grant_types{};  ///< the metadata's grant_types_supported
  std::string granted_scope{};             ///< the token answers' `scope`; empty: none said
  std::string client_id = "dyn-client";    ///< what a registration returns
  bool dpop = false;         ///< announce DPoP; a request with a proof gets a DPoP token
  std::string dpop_nonce{};  ///< the token endpoint wants this nonce in proofs
};

/// An MCP server's resource metadata (`rs`), its authorization server (`as`), the user, a store.
struct world {
  explicit world(setup s = {}) : cfg(std::move(s)) {}

  const setup cfg;
  std::atomic<int> issued{0};
  mutable std::mutex mu_;     // named_issuer_ (before the servers, which read it)
  std::string named_issuer_;  // the resource metadata's authorization server; empty: `as`
  mock_server as{[this](const request& r) { return as_route(r); }};
  mock_server rs{[this](const request& r) { return rs_route(r); }};
  std::shared_ptr<test_agent> agent = std::make_shared<test_agent>();
  std::shared_ptr<auth::memory_token_store> store = std::make_shared<auth::memory_token_store>();

  [[nodiscard]] std::string resource() const { return rs.url("/mcp"); }
  [[nodiscard]] std::string issuer() const { return as.url(); }
  [[nodiscard]] std::string challenge(
      const std::string& params = R"(error="invalid_token")") const {
    return "Bearer " + params + R"(, resource_metadata=")" + rs.url("/meta") + "\"";
  }
  [[nodiscard]] std::shared_ptr<auth::oauth_client> client(auth::oauth_client_options o = {}) {
    o.resource_url = resource();
    o.agent = agent;
    o.store = store;
    o.timeout = 3s;
    return std::make_shared<auth::oauth_client>(std::move(o));
  }
  /// The token requests' forms, and the Authorization header of each.
  [[nodiscard]] std::vector<std::pair<form, std::string>> token_requests() const {
    std::vector<std::pair<form, std::string>> out;
    for (const auto& r : as.requests("/token")) {
      EXPECT_EQ(at(r.headers, "content-type"), "application/x-www-form-urlencoded");
      out.emplace_back(parse_form(r.body), at(r.headers, "authorization"));
    }
    return out;
  }

  /// The resource metadata names `issuer` as its authorization server from now on.
  void point_to(std::string issuer) {
    std::lock_guard lock(mu_);
    named_issuer_ = std::move(issuer);
  }

  answer rs_route(const request& r) const {
    if (r.path() != "/meta" && r.path() != "/.well-known/oauth-protected-resource/mcp") return {};
    std::string named;
    {
      std::lock_guard lock(mu_);
      named = named_issuer_.empty() ? issuer() : named_issuer_;
    }
    return {200, json::serialize(json::object{
                     {"resource", cfg.prm_resource.empty() ? resource() : cfg.prm_resource},
                     {"authorization_servers", json::array{json::value(named)}},
                     {"scopes_supported", json::array{"mcp"}}})};
  }

  answer as_route(const request& r) {
    if (r.method == "GET" && r.path() == "/.well-known/oauth-authorization-server") {
      json::object m{{"issuer", issuer() + cfg.issuer_suffix},
                     {"authorization_endpoint", as.url("/authorize")},
                     {"token_endpoint", as.url("/token")},
                     {"code_challenge_methods_supported", json::array{cfg.s256 ? "S256" : "plain"}},
                     {"token_endpoint_auth_methods_supported",
                      json::array{"client_secret_basic", "client_secret_post", "none"}},
                     {"client_id_metadata_document_supported", cfg.cimd},
                     {"authorization_response_iss_parameter_supported", cfg.promise_iss}};
      if (cfg.registration) m["registration_endpoint"] = as.url("/register");
      if (!cfg.as_scopes.empty()) m["scopes_supported"] = json::value_from(cfg.as_scopes);
      if (!cfg.grant_types.empty()) m["grant_types_supported"] = json::value_from(cfg.grant_types);
      if (cfg.dpop) m["dpop_signing_alg_values_supported"] = json::array{"ES256"};
      return {200, json::serialize(m)};
    }
    if (r.method == "POST" && r.path() == "/register" && cfg.registration) {
      return {201,
              json::serialize(json::object{{"client_id", cfg.client_id},
                                           {"client_secret", "dyn-secret"},
                                           {"token_endpoint_auth_method", "client_secret_basic"}})};
    }
    if (r.method != "POST" || r.path() != "/token") return {};
    const auto f = parse_form(r.body);
    const auto proof = at(r.headers, "dpop");
    if (cfg.dpop && !cfg.dpop_nonce.empty() && !proof.empty() &&
        !jwt_claims(proof).contains("nonce")) {
      return {400, R"({"error":"use_dpop_nonce"})", {{"DPoP-Nonce", cfg.dpop_nonce}}};
    }
    const auto grant = at(f, "grant_type");
    const bool ok = grant == "refresh_token"        ? !cfg.refresh_fails
                    : grant == "authorization_code" ? at(f, "code") == "CODE"
                    : grant == "client_credentials"
                        ? true
                        : grant == "urn:ietf:params:oauth:grant-type:jwt-bearer" &&
                              at(f, "assertion") != "refused-jwt";
    if (!ok) return {400, R"({"error":"invalid_grant"})"};
    const auto n = std::to_string(++issued);
    json::object t{
        {"access_token", cfg.header_breaking_token ? "at-" + n + "\r\nX-Injected: 1" : "at-" + n},
        {"token_type", cfg.dpop && !proof.empty() ? "DPoP" : "Bearer"},
        {"expires_in", 3600}};
    if (cfg.refresh_tokens) t["refresh_token"] = "rt-" + n;
    if (!cfg.granted_scope.empty()) t["scope"] = cfg.granted_scope;
    return {200, json::serialize(t)};
  }
};

/// Credentials with every member set, `token` as the access token.
inline auth::oauth_credentials sample(std::string token) {
  auth::oauth_credentials c;
  c.authorization_server = "https://as.example";
  c.client_id = "cid";
  c.client_secret = "sec";
  c.token_endpoint_auth_method = "client_secret_basic";
  c.access_token = std::move(token);
  c.token_type = "DPoP";
  c.dpop_jkt = "jkt";
  c.refresh_token = "rt";
  c.scope = "a b";
  c.requested_scope = "a b c";
  c.expires_at = 1700000000;
  return c;
}

}  // namespace oauth_mock
