// HTTP exchanges within a deadline (fetch.hpp): Beast over a socket of its own, plain or TLS,
// each step run on a private io_context until the deadline; the socket kept between exchanges by
// a `fetch_connection`, closed after one by `fetch`.
#include "http/fetch.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/http/span_body.hpp>
#include <boost/url/parse.hpp>

#include <charconv>
#include <optional>
#include <stdexcept>

#include "http/lookup.hpp"
#include <poll.h>

namespace mcp::http_detail {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using clock = std::chrono::steady_clock;

/// Runs asynchronous operations one at a time, all within one deadline: an operation still
/// pending at the deadline is cancelled (the socket closed) and fails with `timed_out`.
class deadline_runner {
 public:
  deadline_runner(net::io_context& ioc, tcp::socket& sock, clock::time_point until)
      : ioc_(ioc), sock_(sock), until_(until) {}

  /// `start(handler)` starts one operation whose handler takes an error code first.
  template <class Start>
  void operator()(Start&& start) {
    beast::error_code result = net::error::timed_out;
    bool done = false;
    start([&result, &done](beast::error_code ec, auto&&...) {
      result = ec;
      done = true;
    });
    ioc_.restart();
    ioc_.run_until(until_);
    if (!done) {
      beast::error_code ignored;
      sock_.close(ignored);  // the operation completes with operation_aborted
      ioc_.restart();
      ioc_.run();
      result = net::error::timed_out;
    }
    if (result) throw boost::system::system_error(result);
  }

 private:
  net::io_context& ioc_;
  tcp::socket& sock_;
  clock::time_point until_;
};

/// Interim (1xx) answers read and passed over before the final one, at most; more is an error.
constexpr int max_interim_answers = 8;

/// A request sent and its answer read through `run`; `keep` asks the server to keep the
/// connection open. Throws `system_error`; `written` says whether the request was written whole
/// before the error (when not, the server cannot have acted on it). Interim answers (1xx, which
/// a client accepts unasked, RFC 9110 §15.2) are read and passed over; `keep_open` is true only
/// when the server keeps the connection and no byte beyond the answer arrived (requests are
/// never pipelined: a stray byte means the two sides no longer agree where answers start).
template <class Stream>
fetch_response exchange(Stream& stream, deadline_runner& run, beast::flat_buffer& buffer,
                        const fetch_target& t, const fetch_request& call, std::size_t max_bytes,
                        bool keep, bool& written, bool& keep_open) {
  // The body is sent from the caller's string, not copied (an OTLP batch is hundreds of KB).
  http::request<http::span_body<const char>> req{http::string_to_verb(call.method), t.path, 11};
  const bool default_port = t.port == (t.tls ? 443 : 80);
  const bool v6 = t.host.find(':') != std::string::npos;
  req.set(http::field::host,
          (v6 ? "[" + t.host + "]" : t.host) + (default_port ? "" : ":" + std::to_string(t.port)));
  req.set(http::field::user_agent, "mcp-cpp");
  req.keep_alive(keep);
  for (const auto& [name, value] : call.headers) req.set(name, value);
  if (!call.body.empty() || call.method == "POST") {
    req.body() = {call.body.data(), call.body.size()};
    req.prepare_payload();
  }
  written = false;
  run([&](auto handler) { http::async_write(stream, req, std::move(handler)); });
  written = true;
  for (int interim = 0;; ++interim) {
    http::response_parser<http::string_body> parser;
    parser.body_limit(max_bytes);
    parser.header_limit(16384);
    run([&](auto handler) { http::async_read(stream, buffer, parser, std::move(handler)); });
    auto& res = parser.get();
    const unsigned status = res.result_int();
    if (status >= 100 && status < 200) {
      // 101 switches protocols, which was not asked: nothing after it is HTTP/1.1.
      if (status == 101 || interim >= max_interim_answers) {
        throw std::runtime_error(status == 101 ? "an unasked 101 Switching Protocols answer"
                                               : "too many interim (1xx) answers");
      }
      continue;
    }
    keep_open = keep && res.keep_alive() && !parser.need_eof() && buffer.size() == 0;
    fetch_response out{.status = status, .body = std::move(res.body())};
    if (auto it = res.find(http::field::www_authenticate); it != res.end()) {
      out.www_authenticate = std::string(it->value());
    }
    if (auto it = res.find(http::field::retry_after); it != res.end()) {
      out.retry_after = std::string(it->value());
    }
    if (auto it = res.find("DPoP-Nonce"); it != res.end()) {
      out.dpop_nonce = std::string(it->value());
    }
    return out;
  }
}

/// Whether a kept connection may carry a request: nothing waits to be read on it (no stray
/// byte, no end of stream from a server that closed it while idle, no error), checked without
/// blocking.
bool quiet(tcp::socket& sock, SSL* ssl) {
  if (ssl != nullptr && SSL_pending(ssl) > 0) return false;
  pollfd p{.fd = sock.native_handle(), .events = POLLIN, .revents = 0};
  return ::poll(&p, 1, 0) == 0;  // -1 (say EINTR): not known quiet, connect again
}

/// Whether an error writing on a kept connection means the server closed it.
bool closed_while_idle(const boost::system::error_code& ec) {
  return ec == http::error::end_of_stream || ec == net::error::eof ||
         ec == net::error::connection_reset || ec == net::error::broken_pipe ||
         ec == net::ssl::error::stream_truncated;
}

}  // namespace

std::uint16_t url_port(std::string_view text) noexcept {
  unsigned port = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), port);
  if (text.empty() || r.ec != std::errc{} || r.ptr != text.data() + text.size() || port > 65535) {
    return 0;
  }
  return static_cast<std::uint16_t>(port);
}

fetch_target parse_fetch_target(std::string_view url) {
  auto u = boost::urls::parse_absolute_uri(url);
  if (!u) throw std::runtime_error("not an absolute URL: " + std::string(url));
  fetch_target t;
  t.tls = u->scheme() == "https";
  if (!t.tls && u->scheme() != "http") throw std::runtime_error("not an http(s) URL");
  t.host = std::string(u->encoded_host());
  if (u->host_type() == boost::urls::host_type::ipv6) t.host = u->host_ipv6_address().to_string();
  if (t.host.empty()) throw std::runtime_error("the URL has no host");
  t.port = u->has_port() ? url_port(u->port()) : (t.tls ? 443 : 80);
  if (t.port == 0) throw std::runtime_error("the URL's port is not a number from 1 to 65535");
  t.path = std::string(u->encoded_path());
  if (t.path.empty()) t.path = "/";
  if (u->has_query()) t.path += "?" + std::string(u->encoded_query());
  return t;
}

struct fetch_connection::state {
  bool keep = true;  ///< false: one exchange, `Connection: close`
  net::io_context ioc;
  // A TLS context only for https: making one costs more than a plain exchange on loopback.
  std::optional<net::ssl::context> ctx;
  std::optional<net::ssl::stream<tcp::socket>> tls;
  tcp::socket plain{ioc};
  std::string origin;  ///< of the open connection (scheme, host, port, trust)
  bool open = false;
  beast::flat_buffer buffer;  ///< the answers' bytes, kept with the connection
  std::uint64_t connections = 0;
  std::chrono::milliseconds idle_limit{30000};
  clock::time_point last_used{};  ///< the end of the open connection's last exchange

  /// Closes the open connection unless it may carry a request (fetch.hpp says when).
  void check_idle(clock::time_point now) {
    if (!open) return;
    tcp::socket& sock = tls ? tls->next_layer() : plain;
    if (idle_limit.count() <= 0 || now - last_used > idle_limit || buffer.size() != 0 ||
        !quiet(sock, tls ? tls->native_handle() : nullptr)) {
      close();
    }
  }

  void close() noexcept {
    beast::error_code ignored;
    plain.close(ignored);
    if (tls) tls->next_layer().close(ignored);
    open = false;
    buffer.clear();
  }

  void connect(const fetch_target& t, const std::string& ca_file, clock::time_point until) {
    std::vector<tcp::endpoint> endpoints;
    if (auto ec = lookup(t.host, t.port, until, endpoints)) {
      throw boost::system::system_error(ec);
    }
    tls.reset();
    if (t.tls) {
      if (!ctx) {
        ctx.emplace(net::ssl::context::tls_client);
        if (ca_file.empty()) {
          ctx->set_default_verify_paths();
        } else {
          ctx->load_verify_file(ca_file);
        }
        ctx->set_verify_mode(net::ssl::verify_peer);
      }
      tls.emplace(ioc, *ctx);
      // SSL_set_tlsext_host_name, without the macro's cast.
      if (SSL_ctrl(tls->native_handle(), SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                   const_cast<char*>(t.host.c_str())) != 1) {
        throw std::runtime_error("cannot set the TLS server name");
      }
      tls->set_verify_callback(net::ssl::host_name_verification(t.host));
    }
    tcp::socket& sock = tls ? tls->next_layer() : plain;
    deadline_runner run(ioc, sock, until);
    ++connections;
    run([&](auto handler) { net::async_connect(sock, endpoints, std::move(handler)); });
    if (tls) {
      run([&](auto handler) {
        tls->async_handshake(net::ssl::stream_base::client, std::move(handler));
      });
    }
    open = true;
  }

  fetch_response exchange(const std::string& url, const fetch_request& call,
                          std::chrono::milliseconds timeout, std::size_t max_bytes) {
    const auto t = parse_fetch_target(url);
    const auto until = clock::now() + timeout;
    auto key = std::string(t.tls ? "https " : "http ") + t.host + " " + std::to_string(t.port);
    if (t.tls) key += " " + call.ca_file;
    if (key != origin) {
      close();
      tls.reset();
      ctx.reset();  // made again for the new origin's trust
      origin = std::move(key);
    }
    try {
      check_idle(clock::now());
      for (bool reused = open;; reused = false) {
        if (!open) connect(t, call.ca_file, until);
        tcp::socket& sock = tls ? tls->next_layer() : plain;
        deadline_runner run(ioc, sock, until);
        bool written = false, keep_open = false;
        try {
          // No TLS shutdown at the end: the body is complete, and the server closes too.
          auto res = tls ? http_detail::exchange(*tls, run, buffer, t, call, max_bytes, keep,
                                                 written, keep_open)
                         : http_detail::exchange(plain, run, buffer, t, call, max_bytes, keep,
                                                 written, keep_open);
          if (keep_open) {
            last_used = clock::now();
          } else {
            close();
          }
          return res;
        } catch (const boost::system::system_error& e) {
          close();
          // Sent again only when it was not written whole: once it was, the server may have
          // acted on it, and the caller decides (a retry of its own, counted).
          if (!(reused && !written && closed_while_idle(e.code()))) throw;
        }
      }
    } catch (const boost::system::system_error& e) {
      close();
      throw std::runtime_error("cannot fetch " + url + ": " + e.code().message());
    } catch (...) {
      close();
      throw;
    }
  }
};

fetch_response fetch(const std::string& url, const fetch_request& call,
                     std::chrono::milliseconds timeout, std::size_t max_bytes) {
  fetch_connection::state once;
  once.keep = false;
  return once.exchange(url, call, timeout, max_bytes);
}

fetch_connection::fetch_connection() : s_(std::make_unique<state>()) {}
fetch_connection::~fetch_connection() = default;

fetch_response fetch_connection::exchange(const std::string& url, const fetch_request& req,
                                          std::chrono::milliseconds timeout,
                                          std::size_t max_bytes) {
  return s_->exchange(url, req, timeout, max_bytes);
}

void fetch_connection::close() noexcept { s_->close(); }

std::uint64_t fetch_connection::connections() const noexcept { return s_->connections; }

void fetch_connection::set_idle_limit(std::chrono::milliseconds limit) noexcept {
  s_->idle_limit = limit;
}

}  // namespace mcp::http_detail
