// Internal to the Streamable HTTP client transport (client.cpp): one HTTP exchange on a
// connection of its own, plain TCP or TLS over it, every step under a deadline, with what the
// connection pool needs to know (is it reusable, idle too long, closed by the server). The
// connect and TLS run on a private io_context; a plain connection's reads and writes are plain
// system calls on the calling thread (a send, then poll and recv), because an exchange is
// carried by one thread from start to end and the event loop's timer and epoll calls would
// cost more system calls per request than the request itself.
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
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace mcp::http_detail {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;

/// Errors that mean the server closed a pooled connection.
inline bool is_stale_connection(const beast::error_code& ec) {
  return ec == net::error::eof || ec == bhttp::error::end_of_stream ||
         ec == net::error::connection_reset || ec == net::error::broken_pipe ||
         ec == net::ssl::error::stream_truncated;
}

/// A connected socket read and written with a deadline by the calling thread (a Beast
/// SyncReadStream): each wait is one poll() bounded by what is left until `until`.
struct deadline_socket {
  int fd;
  std::chrono::steady_clock::time_point until;

  /// Waits until `fd` is ready for `events`; beast::error::timeout at the deadline.
  beast::error_code wait(short events) const {
    if (fd < 0) return net::error::bad_descriptor;  // closed by a timeout before
    for (;;) {
      const auto left =
          std::chrono::ceil<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      if (left.count() <= 0) return beast::error::timeout;
      pollfd p{fd, events, 0};
      const int n = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1 << 30)));
      if (n > 0) return {};
      if (n < 0 && errno != EINTR) return {errno, beast::system_category()};
    }
  }
  template <class MutableBuffers>
  std::size_t read_some(const MutableBuffers& buffers, beast::error_code& ec) {
    const net::mutable_buffer b = beast::buffers_front(buffers);
    if (b.size() == 0) return 0;  // as a socket's read_some: nothing asked, nothing read
    for (;;) {
      if ((ec = wait(POLLIN))) return 0;
      const auto n = ::recv(fd, b.data(), b.size(), MSG_DONTWAIT);
      if (n > 0) return static_cast<std::size_t>(n);
      if (n == 0) {
        ec = net::error::eof;
        return 0;
      }
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        ec = {errno, beast::system_category()};
        return 0;
      }
    }
  }
  template <class MutableBuffers>
  std::size_t read_some(const MutableBuffers& buffers) {
    beast::error_code ec;
    const auto n = read_some(buffers, ec);
    if (ec) throw beast::system_error(ec);
    return n;
  }
  beast::error_code write(std::string_view data) const {
    while (!data.empty()) {
      const auto n = ::send(fd, data.data(), data.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n >= 0) {
        data.remove_prefix(static_cast<std::size_t>(n));
      } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
        if (auto ec = wait(POLLOUT)) return ec;
      } else if (errno != EINTR) {
        return {errno, beast::system_category()};
      }
    }
    return {};
  }
};

/// One HTTP exchange on its own connection, with deadlines: plain TCP, or TLS over it.
class exchange {
 public:
  /// `tls`: the client context for https (the connection's), else null.
  explicit exchange(net::ssl::context* tls) : plain_(ctx_) {
    if (tls != nullptr) tls_ = std::make_unique<beast::ssl_stream<beast::tcp_stream>>(ctx_, *tls);
  }

  /// Takes `fd`, a connected stream socket, as this plain exchange's connection instead of
  /// connect(): for the fuzz target, which reads a server's answer from a socket pair.
  void adopt(int fd) { plain_.socket().assign(tcp::v4(), fd); }

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
    if (!tls_) return finish(plain(timeout).write(data));
    beast::error_code ec;
    tcp().expires_after(timeout);
    net::async_write(*tls_, net::buffer(data), [&](beast::error_code e, std::size_t) { ec = e; });
    run(ec);
    return finish(ec);
  }

  beast::error_code read_header(std::chrono::milliseconds timeout) {
    beast::error_code ec;
    parser_.emplace();
    parser_->body_limit(boost::none);
    failed_ = {};
    if (!tls_) {
      guarded(ec, [&] {
        auto socket = plain(timeout);
        bhttp::read_header(socket, buffer_, *parser_, ec);
      });
      return finish(ec);
    }
    tcp().expires_after(timeout);
    bhttp::async_read_header(*tls_, buffer_, *parser_,
                             [&](beast::error_code e, std::size_t) { ec = e; });
    run(ec);
    return finish(ec);
  }

  /// Reads some body bytes into `out` (appended). Returns an error at the end (end_of_stream),
  /// and the same error again once a read failed.
  beast::error_code read_some(std::string& out, std::chrono::milliseconds timeout) {
    if (failed_) return failed_;
    if (parser_->is_done()) return bhttp::error::end_of_stream;
    char buf[16384];
    parser_->get().body().data = buf;
    parser_->get().body().size = sizeof buf;
    beast::error_code ec;
    if (!tls_) {
      guarded(ec, [&] {
        auto socket = plain(timeout);
        bhttp::read_some(socket, buffer_, *parser_, ec);
      });
    } else {
      tcp().expires_after(timeout);
      bhttp::async_read_some(*tls_, buffer_, *parser_,
                             [&](beast::error_code e, std::size_t) { ec = e; });
      run(ec);
    }
    if (ec == bhttp::error::need_buffer) ec = {};
    // A TLS server that closes without close_notify ends the stream as a plain close would: the
    // end of a body that runs to the close, else a message cut short.
    if (ec == net::ssl::error::stream_truncated) {
      ec = {};
      parser_->put_eof(ec);
    }
    out.append(buf, sizeof buf - parser_->get().body().size);
    if (ec && ec != bhttp::error::end_of_stream) failed_ = ec;
    return finish(ec);
  }

  unsigned status() const { return parser_->get().result_int(); }
  /// The value of header `name` ("" when absent), valid until the next read_header().
  std::string_view header(std::string_view name) const {
    auto it = parser_->get().find(name);
    return it == parser_->get().end() ? std::string_view()
                                      : std::string_view(it->value().data(), it->value().size());
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
  /// A second descriptor of this connection's socket, made once and closed with the exchange:
  /// its number names this socket for as long as the exchange lives, even after the exchange's
  /// own descriptor was closed (a timeout). -1 when none could be made.
  int shared_handle() {
    if (dup_fd_ < 0) dup_fd_ = ::dup(native_handle());
    return dup_fd_;
  }
  /// The pool's registration of this exchange's socket (shared_handle()), -1 when not
  /// registered.
  int registered_fd = -1;

  exchange(const exchange&) = delete;
  exchange& operator=(const exchange&) = delete;
  ~exchange() {
    // Still registered only when an exception skipped the pool's done(): the number is then
    // left open (never reused), since the pool may still shut it down.
    if (dup_fd_ >= 0 && registered_fd < 0) ::close(dup_fd_);
  }

  /// Marks the start of an idle period in the pool; remembers how long the server keeps an idle
  /// connection (`Keep-Alive: timeout=N`, less a second for the trip), capped by `limit`.
  void park(std::chrono::milliseconds limit) {
    idle_since_ = std::chrono::steady_clock::now();
    reuse_within_ = limit;
    const std::string_view ka = header("Keep-Alive");
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
  /// Runs one operation, `op`. Whatever Beast throws (its field container refuses a trailer
  /// field of 64 KiB or more; the header limit keeps such fields out of the head) fails the
  /// operation with bad_field, and finish() then the connection, never the calling thread.
  template <class F>
  void guarded(beast::error_code& ec, F&& op) noexcept {
    try {
      op();
    } catch (...) {
      ec = bhttp::error::bad_field;
    }
  }
  /// Runs the exchange's one asynchronous operation on the private io_context.
  void run(beast::error_code& ec) noexcept {
    guarded(ec, [&] {
      ctx_.restart();
      ctx_.run();
    });
  }

  beast::tcp_stream& tcp() { return tls_ ? tls_->next_layer() : plain_; }
  /// The plain connection's socket, for one operation of at most `timeout`.
  deadline_socket plain(std::chrono::milliseconds timeout) {
    return {plain_.socket().native_handle(), std::chrono::steady_clock::now() + timeout};
  }
  /// Ends an operation: after a timeout or a refused field the connection ends (shut down
  /// through whichever descriptor is open, since the pool's duplicate would keep it open).
  beast::error_code finish(beast::error_code ec) noexcept {
    if (ec == beast::error::timeout || ec == bhttp::error::bad_field) {
      const int fd = dup_fd_ >= 0 ? dup_fd_ : native_handle();
      if (fd >= 0) ::shutdown(fd, SHUT_RDWR);
      beast::error_code ignored;
      tcp().socket().close(ignored);
    }
    return ec;
  }

  net::io_context ctx_;
  beast::tcp_stream plain_;  ///< the connection (plain), or unused (TLS: inside `tls_`)
  std::unique_ptr<beast::ssl_stream<beast::tcp_stream>> tls_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::response_parser<bhttp::buffer_body>> parser_;
  std::chrono::steady_clock::time_point idle_since_{};
  std::chrono::milliseconds reuse_within_{0};
  int dup_fd_ = -1;
  beast::error_code failed_;  ///< the first failed read of the body, returned from then on
};

}  // namespace mcp::http_detail
