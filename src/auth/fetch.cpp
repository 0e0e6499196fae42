// Fetching a JWKS document: one GET over HTTPS (certificate and host name verified against the
// system's trust store) or plain HTTP to a loopback host, with a deadline and a size bound.
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/url/parse.hpp>

#include <stdexcept>

#include "auth/jose.hpp"
#include <sys/socket.h>
#include <sys/time.h>

namespace mcp::auth::detail {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

bool loopback_host(std::string_view host) {
  return host == "localhost" || host == "127.0.0.1" || host == "[::1]" || host == "::1";
}

struct target {
  bool tls = false;
  std::string host;  ///< without brackets
  std::string port;
  std::string path;  ///< path and query
};

target parse_target(std::string_view url) {
  auto u = boost::urls::parse_absolute_uri(url);
  if (!u) throw std::runtime_error("not an absolute URL: " + std::string(url));
  target t;
  t.tls = u->scheme() == "https";
  if (!t.tls && u->scheme() != "http") throw std::runtime_error("not an http(s) URL");
  t.host = std::string(u->encoded_host());
  if (u->host_type() == boost::urls::host_type::ipv6) t.host = u->host_ipv6_address().to_string();
  if (t.host.empty()) throw std::runtime_error("the URL has no host");
  t.port = u->has_port() ? std::string(u->port()) : (t.tls ? "443" : "80");
  t.path = std::string(u->encoded_path());
  if (t.path.empty()) t.path = "/";
  if (u->has_query()) t.path += "?" + std::string(u->encoded_query());
  return t;
}

template <class Stream>
std::string exchange(Stream& stream, const target& t, const http_call& call,
                     std::size_t max_bytes) {
  http::request<http::string_body> req{http::string_to_verb(call.method), t.path, 11};
  req.set(http::field::host, t.host);
  req.set(http::field::user_agent, "mcp-cpp");
  for (const auto& [name, value] : call.headers) req.set(name, value);
  if (!call.body.empty() || call.method == "POST") {
    req.body() = call.body;
    req.prepare_payload();
  }
  http::write(stream, req);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(max_bytes);
  parser.header_limit(16384);
  http::read(stream, buffer, parser);
  const auto& res = parser.get();
  if (res.result() != http::status::ok) {
    throw std::runtime_error("HTTP status " + std::to_string(res.result_int()));
  }
  return res.body();
}

/// Connects `sock` to one of `endpoints` within `timeout`, then bounds every later blocking
/// read and write of the socket by `timeout` too.
void connect_within(net::io_context& ioc, tcp::socket& sock,
                    const tcp::resolver::results_type& endpoints,
                    std::chrono::milliseconds timeout) {
  beast::error_code result = net::error::timed_out;
  bool done = false;
  net::async_connect(sock, endpoints, [&](beast::error_code ec, const tcp::endpoint&) {
    result = ec;
    done = true;
  });
  ioc.run_for(timeout);
  if (!done) {
    beast::error_code ignored;
    sock.close(ignored);
    ioc.restart();
    ioc.run();
  }
  if (result) throw boost::system::system_error(result);
  const auto ms = static_cast<long>(timeout.count());
  const timeval tv{ms / 1000, (ms % 1000) * 1000};
  ::setsockopt(sock.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(sock.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

}  // namespace

std::optional<std::string> unusable_url(std::string_view url) {
  try {
    const auto t = parse_target(url);
    if (!t.tls && !loopback_host(t.host)) {
      return "the URL must be https (http only for a loopback host): " + std::string(url);
    }
    return std::nullopt;
  } catch (const std::exception& e) {
    return std::string(e.what());
  }
}

std::string fetch_url(const std::string& url, std::chrono::milliseconds timeout,
                      std::size_t max_bytes, const std::string& ca_file) {
  return http_exchange(
      url,
      {.ca_file = ca_file, .headers = {{"Accept", "application/json, application/jwk-set+json"}}},
      timeout, max_bytes);
}

std::string http_exchange(const std::string& url, const http_call& call,
                          std::chrono::milliseconds timeout, std::size_t max_bytes) {
  if (auto why = unusable_url(url)) throw std::runtime_error(*why);
  const auto t = parse_target(url);
  net::io_context ioc;
  tcp::resolver resolver(ioc);
  beast::error_code ec;
  const auto endpoints = resolver.resolve(t.host, t.port, ec);
  if (ec) throw std::runtime_error("cannot resolve " + t.host + ": " + ec.message());
  try {
    if (!t.tls) {
      tcp::socket sock(ioc);
      connect_within(ioc, sock, endpoints, timeout);
      auto body = exchange(sock, t, call, max_bytes);
      sock.shutdown(tcp::socket::shutdown_both, ec);
      return body;
    }
    net::ssl::context ctx(net::ssl::context::tls_client);
    if (call.ca_file.empty()) {
      ctx.set_default_verify_paths();
    } else {
      ctx.load_verify_file(call.ca_file);
    }
    ctx.set_verify_mode(net::ssl::verify_peer);
    net::ssl::stream<tcp::socket> stream(ioc, ctx);
    // SSL_set_tlsext_host_name, without the macro's cast.
    if (SSL_ctrl(stream.native_handle(), SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                 const_cast<char*>(t.host.c_str())) != 1) {
      throw std::runtime_error("cannot set the TLS server name");
    }
    stream.set_verify_callback(net::ssl::host_name_verification(t.host));
    connect_within(ioc, stream.next_layer(), endpoints, timeout);
    stream.handshake(net::ssl::stream_base::client);
    auto body = exchange(stream, t, call, max_bytes);
    stream.shutdown(ec);
    return body;
  } catch (const boost::system::system_error& e) {
    throw std::runtime_error("cannot fetch " + url + ": " + e.code().message());
  }
}

}  // namespace mcp::auth::detail
