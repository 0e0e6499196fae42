// The Beast/Asio edge of the HTTP server: accept, read one request with Beast's parser (header
// and body limits and timeouts), hand it to the sans-I/O `request_handler`, write the answer.
// Answers are written as raw HTTP/1.1 bytes: a plain response with Content-Length, or an SSE
// response with chunked transfer encoding whose chunks are whatever the `response_stream`
// produced since the last write. While an SSE response is open the connection keeps one small
// read pending, so that a client that goes away is noticed without a thread per stream.
//
// Threading: one `io_context` per I/O thread ("loop"), each run by exactly one thread. A
// connection lives on one loop for its whole life, so its handlers never run concurrently and
// need no strand. Read and write timeouts are deadlines checked by a per-loop sweep (a few times
// per timeout), not a timer armed and cancelled for every socket operation.
#include <mcp/http_server.hpp>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "http/handler.hpp"

namespace mcp {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;

namespace http_detail {
namespace {

void append_head(std::string& out, unsigned status) {
  out += "HTTP/1.1 ";
  out += std::to_string(status);
  out += ' ';
  out += bhttp::obsolete_reason(static_cast<bhttp::status>(status));
  out += "\r\n";
}

void append_headers(std::string& out, const std::vector<std::pair<std::string, std::string>>& h) {
  for (const auto& [k, v] : h) {
    out += k;
    out += ": ";
    out += v;
    out += "\r\n";
  }
}

void append_chunk(std::string& out, std::string_view data) {
  if (data.empty()) return;
  char hex[20];
  const int n = std::snprintf(hex, sizeof hex, "%zx\r\n", data.size());
  out.append(hex, static_cast<std::size_t>(n));
  out += data;
  out += "\r\n";
}

class http_conn;

/// One I/O thread's io_context and the connections that live on it.
struct io_loop {
  io_loop() : ctx(std::make_shared<net::io_context>(1)), sweeper(*ctx) {}
  std::shared_ptr<net::io_context> ctx;  // shared: wakers may outlive the server
  net::steady_timer sweeper;
  // Touched only on this loop's thread:
  std::vector<std::weak_ptr<http_conn>> conns;
  bool stopping = false;  // the server is stopping: connections that start now close at once
};

using clock = std::chrono::steady_clock;

/// One TCP connection: a loop of requests, each answered plainly or with a stream.
/// All its handlers run on its loop's thread.
class http_conn : public std::enable_shared_from_this<http_conn> {
 public:
  http_conn(tcp::socket&& socket, request_handler& handler, io_loop& loop)
      : socket_(std::move(socket)), handler_(handler), ctx_(loop.ctx), loop_(loop) {}

  ~http_conn() { end_stream(); }

  void start() {
    net::dispatch(socket_.get_executor(), [self = shared_from_this()] {
      if (self->loop_.stopping) return self->shutdown();
      self->loop_.conns.push_back(self);
      self->read_request();
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
    socket_.shutdown(tcp::socket::shutdown_both, ec);
    socket_.close(ec);
  }

 private:
  enum class phase { reading, waiting, sse };

  const http_server_options& opts() const { return handler_.options(); }

  void expires_after(std::chrono::milliseconds d) { deadline_ = clock::now() + d; }
  void expires_never() { deadline_ = clock::time_point::max(); }

  void read_request() {
    phase_ = phase::reading;
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(opts().max_header_bytes));
    parser_->body_limit(opts().max_body_bytes);
    expires_after(opts().header_timeout);
    bhttp::async_read_header(
        socket_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_header(ec); });
  }

  void on_header(beast::error_code ec) {
    if (ec) return fail_read(ec);
    const auto& head = parser_->get();
    if (!parser_->is_done() && beast::iequals(head[bhttp::field::expect], "100-continue")) {
      // The client waits for this before sending the body (curl does for larger bodies).
      static constexpr std::string_view go_on = "HTTP/1.1 100 Continue\r\n\r\n";
      expires_after(opts().write_timeout);
      net::async_write(socket_, net::buffer(go_on.data(), go_on.size()),
                       [self = shared_from_this()](beast::error_code e, std::size_t) {
                         if (e) return self->close();
                         self->read_body();
                       });
      return;
    }
    read_body();
  }

  void read_body() {
    expires_after(opts().body_timeout);
    bhttp::async_read(
        socket_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code e, std::size_t) { self->on_body(e); });
  }

  void fail_read(beast::error_code ec) {
    if (ec == bhttp::error::body_limit) {
      return write_plain(error_response(413, errc::invalid_request, "Payload Too Large"), false);
    }
    if (ec == bhttp::error::header_limit) {
      return write_plain(
          error_response(431, errc::invalid_request, "Request Header Fields Too Large"), false);
    }
    if (ec == beast::error::timeout || ec == bhttp::error::end_of_stream || ec == net::error::eof ||
        ec == net::error::operation_aborted) {
      return close();
    }
    // A malformed request.
    write_plain(error_response(400, errc::invalid_request, "Bad Request"), false);
  }

  void on_body(beast::error_code ec) {
    if (ec) return fail_read(ec);
    auto& msg = parser_->get();
    keep_alive_ = msg.keep_alive();
    http_request req;
    req.method = msg.method_string();
    req.target = msg.target();
    req.headers.reserve(16);
    for (const auto& f : msg) req.headers.emplace_back(f.name_string(), f.value());
    req.body = std::move(msg.body());
    auto res = handler_.handle(req);
    parser_.reset();
    if (!res.stream) return write_plain(std::move(res), keep_alive_);

    // An answer that comes from a stream: JSON now, or SSE now or later.
    headers_ = std::move(res.headers);
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
        http_response r;
        r.status = 200;
        r.headers = std::move(headers_);
        r.content_type = "application/json";
        r.body = std::move(t.bytes);
        end_stream();
        return write_plain(std::move(r), keep_alive_);
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

  void write_plain(http_response r, bool keep_alive) {
    out_.clear();
    append_head(out_, r.status);
    if (!r.content_type.empty()) {
      out_ += "Content-Type: ";
      out_ += r.content_type;
      out_ += "\r\n";
    }
    out_ += "Content-Length: ";
    out_ += std::to_string(r.body.size());
    out_ += "\r\n";
    append_headers(out_, r.headers);
    if (!keep_alive) out_ += "Connection: close\r\n";
    out_ += "\r\n";
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
            self->socket_.cancel(ignored);
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
  }

  void close() {
    end_stream();
    expires_never();
    beast::error_code ec;
    socket_.shutdown(tcp::socket::shutdown_send, ec);
    socket_.close(ec);
  }

  tcp::socket socket_;
  request_handler& handler_;
  std::shared_ptr<net::io_context> ctx_;  // wakers may outlive the server
  io_loop& loop_;
  clock::time_point deadline_ = clock::time_point::max();
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  phase phase_ = phase::reading;
  bool keep_alive_ = true;
  bool writing_ = false;
  bool peeking_ = false;
  bool read_after_peek_ = false;
  bool sse_counted_ = false;
  std::string out_;
  std::vector<std::pair<std::string, std::string>> headers_;
  std::shared_ptr<response_stream> rs_;
  std::uint64_t generation_ = 0;
  std::size_t sent_events_ = 0;
};

}  // namespace
}  // namespace http_detail

// ---------------------------------------------------------------------------------------------

struct http_server::impl {
  static std::vector<std::unique_ptr<http_detail::io_loop>> make_loops(std::size_t n) {
    std::vector<std::unique_ptr<http_detail::io_loop>> loops;
    for (std::size_t i = 0; i < std::max<std::size_t>(1, n); ++i) {
      loops.push_back(std::make_unique<http_detail::io_loop>());
    }
    return loops;
  }

  impl(server& srv, http_server_options o)
      : opts(std::move(o)),
        loops(make_loops(opts.io_threads)),
        acceptor(*loops[0]->ctx),
        sessions_sweeper(*loops[0]->ctx),
        handler(srv, opts,
                [c = loops[0]->ctx](std::function<void()> f) { net::post(*c, std::move(f)); }) {}

  void accept() {
    // Connections are dealt to the loops in turn.
    auto& loop = *loops[next_loop++ % loops.size()];
    acceptor.async_accept(
        loop.ctx->get_executor(), [this, &loop](beast::error_code ec, tcp::socket s) {
          if (ec) {
            if (ec == net::error::operation_aborted || !acceptor.is_open()) return;
            return accept();
          }
          beast::error_code ignored;
          s.set_option(tcp::no_delay(true), ignored);
          s.set_option(net::socket_base::keep_alive(true), ignored);
          std::make_shared<http_detail::http_conn>(std::move(s), handler, loop)->start();
          accept();
        });
  }

  /// How often each loop checks its connections' deadlines: a quarter of the shortest timeout,
  /// between 10 ms and 500 ms.
  [[nodiscard]] std::chrono::milliseconds sweep_period() const {
    const auto shortest = std::min({opts.header_timeout, opts.body_timeout, opts.write_timeout});
    return std::clamp(shortest / 4, std::chrono::milliseconds(10), std::chrono::milliseconds(500));
  }

  void sweep_connections(http_detail::io_loop& loop) {
    loop.sweeper.expires_after(sweep_period());
    loop.sweeper.async_wait([this, &loop](beast::error_code ec) {
      if (ec) return;
      const auto now = http_detail::clock::now();
      std::erase_if(loop.conns, [now](const std::weak_ptr<http_detail::http_conn>& w) {
        auto c = w.lock();
        if (c) c->check_deadline(now);
        return !c;
      });
      sweep_connections(loop);
    });
  }

  void sweep_sessions() {
    const auto every = std::clamp(opts.session_idle_timeout / 4, std::chrono::milliseconds(20),
                                  std::chrono::milliseconds(1000));
    sessions_sweeper.expires_after(every);
    sessions_sweeper.async_wait([this](beast::error_code ec) {
      if (ec) return;
      handler.sessions().expire();
      sweep_sessions();
    });
  }

  http_server_options opts;
  std::vector<std::unique_ptr<http_detail::io_loop>> loops;
  std::size_t next_loop = 0;  // used by the accept handler only (loop 0's thread)
  tcp::acceptor acceptor;
  net::steady_timer sessions_sweeper;
  http_detail::request_handler handler;
  std::vector<std::thread> threads;
  std::mutex mu;
  std::condition_variable cv;
  bool started = false;
  bool stopped = false;
  bool signalled = false;
  std::uint16_t port = 0;
  std::string host;
};

http_server::http_server(server& srv, http_server_options opts) {
  if (opts.resumable && !opts.stateless && !opts.events) opts.events = make_memory_event_store();
  impl_ = std::make_unique<impl>(srv, std::move(opts));
}

http_server::~http_server() { stop(); }

void http_server::start() {
  auto& m = *impl_;
  {
    std::lock_guard lock(m.mu);
    if (m.started) throw std::logic_error("http_server: already started");
    m.started = true;
  }
  const std::string host = m.opts.host == "localhost" ? "127.0.0.1" : m.opts.host;
  const auto address = net::ip::make_address(host);
  const tcp::endpoint ep(address, m.opts.port);
  m.acceptor.open(ep.protocol());
  m.acceptor.set_option(net::socket_base::reuse_address(true));
  m.acceptor.bind(ep);
  m.acceptor.listen(net::socket_base::max_listen_connections);
  m.port = m.acceptor.local_endpoint().port();
  m.host = address.is_v6() ? "[" + address.to_string() + "]" : address.to_string();
  m.handler.set_bound(address.is_loopback());
  m.accept();
  m.sweep_sessions();
  for (auto& loop : m.loops) {
    m.sweep_connections(*loop);
    m.threads.emplace_back([ctx = loop->ctx] { ctx->run(); });
  }
}

void http_server::stop() {
  auto& m = *impl_;
  {
    std::lock_guard lock(m.mu);
    if (!m.started || m.stopped) {
      m.stopped = true;
      m.cv.notify_all();
      return;
    }
    m.stopped = true;
  }
  net::post(*m.loops[0]->ctx, [&m] {
    beast::error_code ec;
    m.acceptor.close(ec);
    m.sessions_sweeper.cancel();
  });
  m.handler.sessions().clear();
  for (auto& loop : m.loops) {
    net::post(*loop->ctx, [l = loop.get()] {
      l->stopping = true;
      l->sweeper.cancel();
      for (auto& w : l->conns) {
        if (auto c = w.lock()) c->shutdown();
      }
      l->conns.clear();
    });
  }
  // Let the closes run, then stop the loops.
  for (int i = 0; i < 50; ++i) {
    const bool all_stopped = std::all_of(m.loops.begin(), m.loops.end(),
                                         [](const auto& l) { return l->ctx->stopped(); });
    if (all_stopped) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  for (auto& loop : m.loops) loop->ctx->stop();
  for (auto& t : m.threads) {
    if (t.joinable()) t.join();
  }
  m.threads.clear();
  m.cv.notify_all();
}

void http_server::wait() {
  std::unique_lock lock(impl_->mu);
  impl_->cv.wait(lock, [this] { return impl_->stopped; });
}

int http_server::serve() {
  try {
    bool started = false;
    {
      std::lock_guard lock(impl_->mu);
      started = impl_->started;
    }
    if (!started) start();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mcp http_server: cannot listen on %s:%u: %s\n", impl_->opts.host.c_str(),
                 static_cast<unsigned>(impl_->opts.port), e.what());
    return 1;
  }
  net::signal_set signals(*impl_->loops[0]->ctx, SIGINT, SIGTERM);
  signals.async_wait([this](beast::error_code ec, int) {
    if (ec) return;
    std::lock_guard lock(impl_->mu);
    impl_->cv.notify_all();
    impl_->signalled = true;
  });
  {
    std::unique_lock lock(impl_->mu);
    impl_->cv.wait(lock, [this] { return impl_->stopped || impl_->signalled; });
  }
  beast::error_code ec;
  signals.cancel(ec);
  stop();
  return 0;
}

std::uint16_t http_server::port() const { return impl_->port; }

std::string http_server::url() const {
  return "http://" + impl_->host + ":" + std::to_string(impl_->port) + impl_->opts.path;
}

std::size_t http_server::session_count() const { return impl_->handler.sessions().size(); }

std::size_t http_server::sse_stream_count() const { return impl_->handler.sse_open(); }

}  // namespace mcp
