// Internal to the Streamable HTTP client transport (client.cpp): one HTTP exchange on a
// connection of its own, plain TCP or TLS over it, every step under a deadline on a private
// io_context, with what the connection pool needs to know (is it reusable, idle too long,
// closed by the server).
#pragma once

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/lookup.hpp"
#include <sys/socket.h>

namespace mcp::http_detail {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;

/// One HTTP exchange on its own connection, with deadlines: plain TCP, or TLS over it.
class exchange {
 public:
  /// `tls`: the client context for https (the connection's), else null.
  explicit exchange(net::ssl::context* tls) : plain_(ctx_) {
    if (tls != nullptr) tls_ = std::make_unique<beast::ssl_stream<beast::tcp_stream>>(ctx_, *tls);
  }

  /// Looks the host up, connects and (https) shakes hands, all within `timeout`.
  beast::error_code connect(const std::string& host, std::uint16_t port,
                            std::chrono::milliseconds timeout) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    std::vector<tcp::endpoint> results;
    beast::error_code ec = lookup(host, port, until, results);
    if (ec) return ec;
    tcp().expires_at(until);
    tcp().async_connect(results, [&](beast::error_code e, const tcp::endpoint&) { ec = e; });
    run(ec);
    if (!ec) tcp().socket().set_option(tcp::no_delay(true), ec);
    if (ec || !tls_) return ec;
    // The server's certificate must be valid for `host` (SNI sent for names, not addresses).
    beast::error_code not_an_address;
    (void)net::ip::make_address(host, not_an_address);
    if (not_an_address) {
      if (SSL_ctrl(tls_->native_handle(), SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                   const_cast<char*>(host.c_str())) != 1) {
        return net::error::invalid_argument;
      }
    }
    tls_->set_verify_callback(net::ssl::host_name_verification(host));
    tcp().expires_at(until);
    tls_->async_handshake(net::ssl::stream_base::client, [&](beast::error_code e) { ec = e; });
    run(ec);
    return ec;
  }

  beast::error_code write(const std::string& data, std::chrono::milliseconds timeout) {
    beast::error_code ec;
    tcp().expires_after(timeout);
    with_stream([&](auto& s) {
      net::async_write(s, net::buffer(data), [&](beast::error_code e, std::size_t) { ec = e; });
    });
    run(ec);
    return ec;
  }

  beast::error_code read_header(std::chrono::milliseconds timeout) {
    beast::error_code ec;
    parser_.emplace();
    parser_->body_limit(boost::none);
    tcp().expires_after(timeout);
    with_stream([&](auto& s) {
      bhttp::async_read_header(s, buffer_, *parser_,
                               [&](beast::error_code e, std::size_t) { ec = e; });
    });
    run(ec);
    return ec;
  }

  /// Reads some body bytes into `out` (appended). Returns an error at the end (end_of_stream).
  beast::error_code read_some(std::string& out, std::chrono::milliseconds timeout) {
    if (parser_->is_done()) return bhttp::error::end_of_stream;
    char buf[16384];
    parser_->get().body().data = buf;
    parser_->get().body().size = sizeof buf;
    beast::error_code ec;
    tcp().expires_after(timeout);
    with_stream([&](auto& s) {
      bhttp::async_read_some(s, buffer_, *parser_,
                             [&](beast::error_code e, std::size_t) { ec = e; });
    });
    run(ec);
    if (ec == bhttp::error::need_buffer) ec = {};
    // A TLS server that closes without close_notify ends the stream as a plain one would.
    if (ec == net::ssl::error::stream_truncated) ec = bhttp::error::end_of_stream;
    out.append(buf, sizeof buf - parser_->get().body().size);
    return ec;
  }

  unsigned status() const { return parser_->get().result_int(); }
  std::string header(std::string_view name) const {
    auto it = parser_->get().find(name);
    return it == parser_->get().end() ? std::string() : std::string(it->value());
  }
  /// Every value of a header that may repeat (`WWW-Authenticate`), joined with ", ".
  std::string header_all(std::string_view name) const {
    std::string out;
    for (auto [it, end] = parser_->get().equal_range(name); it != end; ++it) {
      if (!out.empty()) out += ", ";
      out += std::string_view(it->value().data(), it->value().size());
    }
    return out;
  }
  int native_handle() { return tcp().socket().native_handle(); }
  /// The pool's registration of this exchange's socket (a dup), -1 when not registered.
  int registered_fd = -1;

  /// Marks the start of an idle period in the pool; remembers how long the server keeps an idle
  /// connection (`Keep-Alive: timeout=N`, less a second for the trip), capped by `limit`.
  void park(std::chrono::milliseconds limit) {
    idle_since_ = std::chrono::steady_clock::now();
    reuse_within_ = limit;
    const std::string ka = header("Keep-Alive");
    if (auto at = ka.find("timeout="); at != std::string::npos) {
      long seconds = 0;
      for (std::size_t i = at + 8; i < ka.size() && ka[i] >= '0' && ka[i] <= '9'; ++i) {
        seconds = std::min(seconds * 10 + (ka[i] - '0'), 86400L);
      }
      reuse_within_ = std::min(reuse_within_, std::chrono::milliseconds(seconds * 1000 - 1000));
    }
  }
  /// True when the connection has been idle too long to be reused safely.
  [[nodiscard]] bool idle_too_long() const {
    return std::chrono::steady_clock::now() - idle_since_ >= reuse_within_;
  }
  /// True when the server closed this idle connection (or sent something unasked).
  [[nodiscard]] bool peer_closed() {
    char c = 0;
    const auto n = ::recv(native_handle(), &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
  }
  /// True when the response was read to its end and the server keeps the connection open.
  [[nodiscard]] bool reusable() const {
    return parser_ && parser_->is_done() && parser_->keep_alive() && buffer_.size() == 0;
  }

 private:
  /// Runs the exchange's one operation. Whatever Beast throws (its field container refuses a
  /// header or trailer field of 64 KiB or more) fails the operation with `ec` and the
  /// connection, never the calling thread.
  void run(beast::error_code& ec) noexcept {
    try {
      ctx_.restart();
      ctx_.run();
    } catch (...) {
      ec = bhttp::error::bad_field;
      beast::error_code ignored;
      tcp().socket().close(ignored);
    }
  }

  beast::tcp_stream& tcp() { return tls_ ? tls_->next_layer() : plain_; }
  template <class F>
  void with_stream(F&& f) {
    if (tls_) {
      f(*tls_);
    } else {
      f(plain_);
    }
  }

  net::io_context ctx_;
  beast::tcp_stream plain_;  ///< the connection (plain), or unused (TLS: inside `tls_`)
  std::unique_ptr<beast::ssl_stream<beast::tcp_stream>> tls_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::response_parser<bhttp::buffer_body>> parser_;
  std::chrono::steady_clock::time_point idle_since_{};
  std::chrono::milliseconds reuse_within_{0};
};

}  // namespace mcp::http_detail
