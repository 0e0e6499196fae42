// File: src/http/connection.hpp
//
// One accepted TCP connection of the HTTP server, on Boost.Beast/Asio: it reads requests with the
// sans-I/O `request_reader` (limits, timeouts), hands each to the sans-I/O `request_handler`,
// and writes the answer as raw HTTP/1.1 bytes: a plain response with Content-Length, or an SSE
// response with chunked transfer encoding whose chunks are whatever the `response_stream`
// produced since the last write. While an SSE response is open the connection keeps one small
// read pending, so that a client that goes away is noticed without a thread per stream.
//
// Threading: a connection lives on one loop (one io_context run by one thread) for its whole
// life, so its handlers never run concurrently and need no strand. Its timeouts are deadlines
// that the loop's sweep checks (`check_deadline`), not a timer per socket operation. Kept-alive
// connections wait for the next request up to `keep_alive_timeout`, then close gracefully.
// Internal to listener.cpp.
#pragma once

#include <mcp/http_server.hpp>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/conn_stream.hpp"
#include "http/handler.hpp"
#include "http/request_reader.hpp"

namespace mcp::http_detail {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;

inline void append_number(std::string& out, std::uint64_t n) {
  char digits[20];
  const auto end = std::to_chars(std::begin(digits), std::end(digits), n).ptr;
  out.append(digits, static_cast<std::size_t>(end - digits));
}

inline void append_head(std::string& out, unsigned status) {
  out += std::string_view("HTTP/1.1 ");
  append_number(out, status);
  out += ' ';
  out += bhttp::obsolete_reason(static_cast<bhttp::status>(status));
  out += std::string_view("\r\n");
}

inline void append_headers(std::string& out,
                           const std::vector<std::pair<std::string, std::string>>& h) {
  for (const auto& [k, v] : h) {
    out += k;
    out += std::string_view(": ");
    // A value never ends the header early (CR and LF become spaces).
    const std::size_t at = out.size();
    out += v;
    for (std::size_t i = at; i < out.size(); ++i) {
      if (out[i] == '\r' || out[i] == '\n') out[i] = ' ';
    }
    out += std::string_view("\r\n");
  }
}

inline void append_chunk(std::string& out, std::string_view data) {
  if (data.empty()) return;
  char hex[20];
  const int n = std::snprintf(hex, sizeof hex, "%zx\r\n", data.size());
  out.append(hex, static_cast<std::size_t>(n));
  out += data;
  out += "\r\n";
}

class http_conn;

/// Runs an I/O loop until it is stopped. An exception from a handler (none is expected: the
/// read path and the request handler catch theirs) unwinds only the operation that threw, and
/// with it the connection it belonged to; the loop and every other connection go on.
inline void run_loop(net::io_context& ctx) noexcept {
  for (;;) {
    try {
      ctx.run();
      return;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "mcp http_server: an I/O handler failed: %s\n", e.what());
    } catch (...) {
      std::fprintf(stderr, "mcp http_server: an I/O handler failed\n");
    }
  }
}

/// One I/O loop and the connections that live on it: an io_context of the server's own run by
/// one thread, or a strand of the application's io_context (whatever threads run it, the
/// loop's handlers never run concurrently).
struct io_loop {
  io_loop() : ctx(std::make_shared<net::io_context>(1)), exec(ctx->get_executor()), sweeper(exec) {}
  explicit io_loop(net::io_context& app) : exec(net::make_strand(app)), sweeper(exec) {}
  /// The server's own io_context; null on the application's (which outlives the server's
  /// sessions: wakers post to it).
  std::shared_ptr<net::io_context> ctx;  // shared: wakers may outlive the server
  net::any_io_executor exec;             ///< where the loop's handlers run
  net::steady_timer sweeper;
  // Touched only on this loop's thread:
  std::vector<std::weak_ptr<http_conn>> conns;
  bool stopping = false;  // the server is stopping: connections that start now close at once
};

using clock = std::chrono::steady_clock;

/// Bytes asked of the socket per read.
inline constexpr std::size_t read_size = 16384;

/// One TCP connection: a loop of requests, each answered plainly or with a stream.
/// All its handlers run on its loop's thread.
class http_conn : public std::enable_shared_from_this<http_conn> {
 public:
  http_conn(conn_stream&& stream, request_handler& handler, io_loop& loop)
      : socket_(std::move(stream)),
        handler_(handler),
        ctx_(loop.ctx),
        loop_(loop),
        reader_(request_limits{opts().max_header_bytes, opts().max_body_bytes}) {
    // The client's address, for observation (`client.address`, `client.port`); read once.
    beast::error_code ec;
    const auto peer = socket_.socket().remote_endpoint(ec);
    if (!ec) {
      peer_address_ = peer.address().to_string();
      peer_port_ = peer.port();
    }
  }

  ~http_conn() { end_stream(); }

  void start() {
    net::dispatch(socket_.get_executor(), [self = shared_from_this()] {
      if (self->loop_.stopping) return self->shutdown();
      self->loop_.conns.push_back(self);
      if (!self->socket_.tls()) return self->read_request();
      // TLS: the handshake first, within the header timeout.
      self->expires_after(self->opts().header_timeout);
      self->socket_.async_handshake([self](beast::error_code ec) {
        if (ec) return self->close();
        self->read_request();
      });
    });
  }

  /// Closes the socket when its deadline has passed. On the loop's thread.
  void check_deadline(clock::time_point now) {
    if (now >= deadline_ && socket_.is_open()) {
      deadline_ = clock::time_point::max();
      close();
    }
  }

  /// Closes the socket (server stop). On the loop's thread.
  void shutdown() {
    beast::error_code ec;
    socket_.socket().shutdown(tcp::socket::shutdown_both, ec);
    socket_.socket().close(ec);
  }

 private:
  enum class phase { reading, waiting, sse };

  const http_server_options& opts() const { return handler_.options(); }

  void expires_after(std::chrono::milliseconds d) { deadline_ = clock::now() + d; }
  void expires_never() { deadline_ = clock::time_point::max(); }

  /// Starts reading the next request: whatever is already buffered (pipelined) first.
  void read_request() {
    phase_ = phase::reading;
    reader_.reset();
    continue_sent_ = false;
    // A kept-alive connection waits for its next request's first byte up to keep_alive_timeout;
    // from that byte on, the header and body timeouts apply.
    expires_after(served_ == 0 || buffer_.size() != 0 ? opts().header_timeout
                                                      : opts().keep_alive_timeout);
    parse_buffered();
  }

  void read_more() {
    socket_.async_read_some(buffer_.prepare(read_size),
                            [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                              self->buffer_.commit(n);
                              self->on_read(ec, n);
                            });
  }

  void on_read(beast::error_code ec, std::size_t n) {
    if (n != 0 && !reader_.started()) expires_after(opts().header_timeout);
    if (ec) {
      // The peer closed (or the read failed): what arrived before still counts.
      if (buffer_.size() != 0) parse_buffered(false);
      if (reader_.state() != request_reader::status::need_more) return;
      reader_.end_of_input();
      if (reader_.state() == request_reader::status::failed) return fail_read();
      return close();
    }
    parse_buffered();
  }

  /// Feeds the buffered bytes to the reader, then acts on its state. `more`: read on when the
  /// request is not complete.
  void parse_buffered(bool more = true) {
    const bool had_header = reader_.header_done();
    const auto data = buffer_.data();
    buffer_.consume(
        reader_.feed(std::string_view(static_cast<const char*>(data.data()), data.size())));
    switch (reader_.state()) {
      case request_reader::status::complete:
        return on_request();
      case request_reader::status::failed:
        return fail_read();
      case request_reader::status::need_more:
        break;
    }
    if (!more) return;
    if (reader_.header_done() && !had_header) {
      expires_after(opts().body_timeout);
      if (!continue_sent_ && reader_.expects_continue()) {
        // The client waits for this before sending the body (curl does for larger bodies).
        continue_sent_ = true;
        static constexpr std::string_view go_on = "HTTP/1.1 100 Continue\r\n\r\n";
        expires_after(opts().write_timeout);
        net::async_write(socket_, net::buffer(go_on.data(), go_on.size()),
                         [self = shared_from_this()](beast::error_code e, std::size_t) {
                           if (e) return self->close();
                           self->expires_after(self->opts().body_timeout);
                           self->read_more();
                         });
        return;
      }
    }
    read_more();
  }

  void fail_read() {
    const unsigned status = reader_.failure_status();
    const char* text = status == 413   ? "Payload Too Large"
                       : status == 431 ? "Request Header Fields Too Large"
                       : status == 500 ? "Internal Server Error"
                                       : "Bad Request";
    write_plain(error_response(status, errc::invalid_request, text), false);
  }

  void on_request() {
    keep_alive_ = reader_.keep_alive();
    ++served_;
    http_request req;
    req.method = reader_.method();
    req.target = reader_.target();
    req.headers = reader_.headers();
    req.body = reader_.body();
    req.peer_address = peer_address_;
    req.peer_port = peer_port_;
    req.slot = &spare_;
    http_response res;
    try {
      res = handler_.handle(req);
    } catch (const std::exception&) {
      // `handle` does not throw; if it ever did, the request still gets an answer.
      res = error_response(500, errc::internal_error, "Internal Server Error");
      keep_alive_ = false;
    }
    // Answered while the handler ran: written at once, with no writer to attach and wake.
    auto answer = res.stream ? res.stream->take_json_answer() : std::nullopt;
    // An answer still to come may take long: the request keeps nothing meanwhile.
    reader_.trim(res.stream && !answer);
    if (!res.stream) return write_plain(std::move(res), keep_alive_);
    if (answer) {
      return write_json(std::move(res.headers), std::move(*answer), res.stream->json_status(),
                        res.unbuffered);
    }

    // An answer that comes from a stream: JSON now, or SSE now or later.
    headers_ = std::move(res.headers);
    unbuffered_ = res.unbuffered;
    expires_never();
    phase_ = phase::waiting;
    rs_ = std::move(res.stream);
    std::weak_ptr<http_conn> weak = weak_from_this();
    auto executor = socket_.get_executor();
    generation_ = rs_->attach([weak, executor, ctx = ctx_] {
      net::post(executor, [weak] {
        if (auto self = weak.lock()) self->pump();
      });
    });
    // The pending watch read keeps this connection alive while the answer is awaited, and
    // notices a client that goes away meanwhile.
    pump();
    if (!writing_) watch_peer();
  }

  /// Writes whatever the stream has. Runs on the connection's I/O loop.
  void pump() {
    if (!rs_ || writing_) return;
    std::size_t budget = 0;
    if (opts().sse_close_after_events != 0 && !rs_->standalone()) {
      budget =
          opts().sse_close_after_events - std::min(sent_events_, opts().sse_close_after_events);
    }
    const bool early_close = opts().sse_close_after_events != 0 && !rs_->standalone() &&
                             rs_->resumable() && budget == 0 && phase_ == phase::sse;
    if (early_close) {
      // Close the connection, not the stream: the client resumes with Last-Event-ID.
      end_stream();
      out_.clear();
      append_chunk(out_, "");
      out_ += "0\r\n\r\n";
      return write_out(false);
    }
    auto t = rs_->take(generation_, rs_->resumable() ? budget : 0);
    if (t.superseded) return close();
    if (phase_ == phase::waiting) {
      if (t.kind == response_stream::mode::undecided) return;  // the waker calls again
      if (t.kind == response_stream::mode::json) {
        auto h = std::move(headers_);
        const bool unbuffered = unbuffered_;
        end_stream();
        return write_json(std::move(h), std::move(t.bytes), t.status, unbuffered);
      }
      phase_ = phase::sse;
      sse_counted_ = true;
      handler_.sse_opened();
      out_.clear();
      append_head(out_, 200);
      out_ +=
          "Content-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
          "Transfer-Encoding: chunked\r\n";
      append_headers(out_, headers_);
      if (unbuffered_) out_ += std::string_view("X-Accel-Buffering: no\r\n");
      out_ += "\r\n";
      append_chunk(out_, t.bytes);
    } else {
      if (t.bytes.empty() && !t.finished && !t.disconnect) return;
      out_.clear();
      append_chunk(out_, t.bytes);
    }
    sent_events_ += t.messages;
    if (t.finished || t.disconnect) {
      // Finished: the response ends. Disconnect: so does the connection; the stream goes on
      // and the client resumes it with Last-Event-ID.
      end_stream();
      out_ += "0\r\n\r\n";
      return write_out(t.finished && keep_alive_);
    }
    write_out(true, true);
  }

  /// A stream's JSON answer: `status` (200, or what a 2026-07-28 error maps to) with `h` and
  /// `body` (and `X-Accel-Buffering: no` when `unbuffered`).
  void write_json(headers h, std::string body, unsigned status, bool unbuffered) {
    http_response r;
    r.status = status;
    r.headers = std::move(h);
    r.unbuffered = unbuffered;
    r.content_type = "application/json";
    r.body = std::move(body);
    write_plain(std::move(r), keep_alive_);
  }

  void write_plain(http_response r, bool keep_alive) {
    out_.clear();
    append_head(out_, r.status);
    if (r.content_type != nullptr) {
      out_ += std::string_view("Content-Type: ");
      out_ += r.content_type;
      out_ += std::string_view("\r\n");
    }
    out_ += std::string_view("Content-Length: ");
    append_number(out_, r.body.size());
    out_ += std::string_view("\r\n");
    append_headers(out_, r.headers);
    if (r.unbuffered) out_ += std::string_view("X-Accel-Buffering: no\r\n");
    if (!keep_alive) {
      out_ += std::string_view("Connection: close\r\n");
    } else {
      out_ += std::string_view("Keep-Alive: timeout=");
      const auto seconds =
          std::chrono::duration_cast<std::chrono::seconds>(opts().keep_alive_timeout).count();
      append_number(out_, static_cast<std::uint64_t>(std::max<decltype(seconds)>(seconds, 0)));
      out_ += std::string_view("\r\n");
    }
    out_ += std::string_view("\r\n");
    out_ += r.body;
    write_out(keep_alive);
  }

  /// Writes out_. Afterwards: in SSE (`more`), pump again; else read the next request or close.
  void write_out(bool keep_alive, bool more = false) {
    writing_ = true;
    expires_after(opts().write_timeout);
    net::async_write(
        socket_, net::buffer(out_),
        [self = shared_from_this(), keep_alive, more](beast::error_code ec, std::size_t) {
          self->writing_ = false;
          if (ec) return self->close();
          if (more) {
            self->expires_never();
            self->watch_peer();
            return self->pump();
          }
          if (!keep_alive) return self->close();
          if (self->peeking_) {
            // A watch read is pending: it resumes reading when it completes.
            self->read_after_peek_ = true;
            beast::error_code ignored;
            self->socket_.socket().cancel(ignored);
            return;
          }
          self->read_request();
        });
  }

  /// While an SSE response is open: notice the client going away.
  void watch_peer() {
    if (peeking_ || phase_ == phase::reading) return;
    if (buffer_.size() > 65536) return close();
    peeking_ = true;
    socket_.async_read_some(buffer_.prepare(512),
                            [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                              self->peeking_ = false;
                              self->buffer_.commit(n);
                              if (self->read_after_peek_) {
                                self->read_after_peek_ = false;
                                return self->read_request();
                              }
                              if (ec) return self->close();
                              self->watch_peer();
                            });
  }

  /// The connection no longer writes the stream (ended, switched to JSON, or closing).
  void end_stream() {
    if (sse_counted_) {
      sse_counted_ = false;
      handler_.sse_closed();
    }
    if (rs_) {
      rs_->detach(generation_);
      rs_.reset();
    }
    sent_events_ = 0;
    headers_.clear();
    unbuffered_ = false;
  }

  void close() {
    end_stream();
    expires_never();
    beast::error_code ec;
    socket_.socket().shutdown(tcp::socket::shutdown_send, ec);
    socket_.socket().close(ec);
  }

  conn_stream socket_;
  request_handler& handler_;
  std::shared_ptr<net::io_context> ctx_;  // wakers may outlive the server
  io_loop& loop_;
  clock::time_point deadline_ = clock::time_point::max();
  beast::flat_buffer buffer_;
  request_reader reader_;   ///< reset for each request; its storage is reused
  std::size_t served_ = 0;  ///< requests read on this connection
  bool continue_sent_ = false;
  phase phase_ = phase::reading;
  bool keep_alive_ = true;
  bool writing_ = false;
  bool peeking_ = false;
  bool read_after_peek_ = false;
  bool sse_counted_ = false;
  std::string out_;
  std::vector<std::pair<std::string, std::string>> headers_;
  bool unbuffered_ = false;   ///< the stream's response adds `X-Accel-Buffering: no`
  std::string peer_address_;  ///< the client's IP address; empty when it could not be read
  std::uint16_t peer_port_ = 0;
  spare_slot spare_;  ///< the per-request session kept for this connection's next request
  std::shared_ptr<response_stream> rs_;
  std::uint64_t generation_ = 0;
  std::size_t sent_events_ = 0;
};

}  // namespace mcp::http_detail
