// File: src/http/conn_stream.hpp
//
// The byte stream of one accepted connection: the TCP socket itself, or TLS over it (OpenSSL,
// when the server has `http_server_options::tls`). It models Asio's AsyncReadStream and
// AsyncWriteStream, so the connection code is the same for both; socket-level operations
// (cancel, shutdown, close, is_open) go to the TCP socket underneath. Internal to the listener.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>

#include <memory>
#include <utility>

namespace mcp::http_detail {

class conn_stream {
 public:
  using tcp = boost::asio::ip::tcp;
  using tls_stream = boost::asio::ssl::stream<tcp::socket>;
  using executor_type = tcp::socket::executor_type;

  /// Plain TCP.
  explicit conn_stream(tcp::socket&& s) : plain_(std::move(s)) {}
  /// TLS with `ctx` (which must outlive the stream); the handshake is `async_handshake`.
  conn_stream(tcp::socket&& s, boost::asio::ssl::context& ctx)
      : plain_(s.get_executor()), tls_(std::make_unique<tls_stream>(std::move(s), ctx)) {}

  [[nodiscard]] bool tls() const noexcept { return tls_ != nullptr; }
  [[nodiscard]] executor_type get_executor() noexcept { return socket().get_executor(); }
  [[nodiscard]] tcp::socket& socket() noexcept { return tls_ ? tls_->next_layer() : plain_; }
  [[nodiscard]] bool is_open() const noexcept {
    return tls_ ? tls_->next_layer().is_open() : plain_.is_open();
  }

  template <class Buffers, class Handler>
  auto async_read_some(const Buffers& b, Handler&& h) {
    if (tls_) return tls_->async_read_some(b, std::forward<Handler>(h));
    return plain_.async_read_some(b, std::forward<Handler>(h));
  }
  template <class Buffers, class Handler>
  auto async_write_some(const Buffers& b, Handler&& h) {
    if (tls_) return tls_->async_write_some(b, std::forward<Handler>(h));
    return plain_.async_write_some(b, std::forward<Handler>(h));
  }
  /// The server side of the TLS handshake (TLS only).
  template <class Handler>
  auto async_handshake(Handler&& h) {
    return tls_->async_handshake(boost::asio::ssl::stream_base::server, std::forward<Handler>(h));
  }

 private:
  tcp::socket plain_;  ///< the socket (plain), or unused (TLS: the socket is inside `tls_`)
  std::unique_ptr<tls_stream> tls_;
};

}  // namespace mcp::http_detail
