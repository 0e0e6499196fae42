// The Beast/Asio edge of the HTTP server: listen, accept, deal connections (connection.hpp) to the
// I/O loops, sweep their deadlines and the idle sessions, start and stop.
//
// Threading: one `io_context` per I/O thread ("loop"), each run by exactly one thread
// (`run_loop`, which an exception from a handler does not end). Read and write timeouts are
// deadlines checked by a per-loop sweep (a few times per timeout), not a timer armed and
// cancelled for every socket operation.
#include <mcp/http_server.hpp>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <future>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>

#include "http/connection.hpp"
#include "http/handler.hpp"

namespace mcp {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;

// ---------------------------------------------------------------------------------------------

struct http_server::impl {
  static std::vector<std::unique_ptr<http_detail::io_loop>> make_loops(std::size_t n,
                                                                       net::io_context* app) {
    std::vector<std::unique_ptr<http_detail::io_loop>> loops;
    if (app != nullptr) {
      loops.push_back(std::make_unique<http_detail::io_loop>(*app));
      return loops;
    }
    for (std::size_t i = 0; i < std::max<std::size_t>(1, n); ++i) {
      loops.push_back(std::make_unique<http_detail::io_loop>());
    }
    return loops;
  }

  impl(http_detail::session_source source, http_server_options o, net::io_context* app)
      : srv(source.srv),
        opts(std::move(o)),
        external(app != nullptr),
        loops(make_loops(opts.io_threads, app)),
        acceptor(loops[0]->exec),
        sessions_sweeper(loops[0]->exec),
        handler(std::move(source), opts,
                [e = loops[0]->exec](std::function<void()> f) { net::post(e, std::move(f)); }) {}

  void accept() {
    // Connections are dealt to the loops in turn.
    auto& loop = *loops[next_loop++ % loops.size()];
    acceptor.async_accept(loop.exec, [this, &loop](beast::error_code ec, tcp::socket s) {
      if (ec) {
        if (ec == net::error::operation_aborted || !acceptor.is_open()) return;
        return accept();
      }
      beast::error_code ignored;
      s.set_option(tcp::no_delay(true), ignored);
      s.set_option(net::socket_base::keep_alive(true), ignored);
      auto stream = tls ? http_detail::conn_stream(std::move(s), *tls)
                        : http_detail::conn_stream(std::move(s));
      std::make_shared<http_detail::http_conn>(std::move(stream), handler, loop)->start();
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
      // After a burst of connections, the list gives its room back.
      if (loop.conns.capacity() > 64 && loop.conns.size() < loop.conns.capacity() / 4) {
        loop.conns.shrink_to_fit();
      }
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

  /// TLS (`opts.tls`): the context every connection's stream uses, made when the server is.
  static std::unique_ptr<net::ssl::context> make_tls(const http_server_options& o) {
    if (!o.tls) return nullptr;
    auto ctx = std::make_unique<net::ssl::context>(net::ssl::context::tls_server);
    ctx->set_options(net::ssl::context::default_workarounds | net::ssl::context::no_sslv2 |
                     net::ssl::context::no_sslv3 | net::ssl::context::no_tlsv1 |
                     net::ssl::context::no_tlsv1_1 | net::ssl::context::single_dh_use);
    try {
      ctx->use_certificate_chain_file(o.tls->certificate_chain_file);
      ctx->use_private_key_file(o.tls->private_key_file, net::ssl::context::pem);
    } catch (const boost::system::system_error& e) {
      throw std::invalid_argument("http_server: TLS certificate or key cannot be used (" +
                                  o.tls->certificate_chain_file + ", " + o.tls->private_key_file +
                                  "): " + e.code().message());
    }
    return ctx;
  }

  server* srv;  ///< the server whose sessions this serves (null: a session opener's)
  http_server_options opts;
  bool external;  ///< on the application's io_context: no threads of our own
  std::unique_ptr<net::ssl::context> tls = make_tls(opts);
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
  bool signals_armed = false;              ///< `arm_signals` ran or is running
  std::optional<net::signal_set> signals;  ///< `handle_signals`, while serving

  /// Catches SIGINT and SIGTERM on loop 0 (`handle_signals`): one sets `signalled`. Returns once
  /// they are caught; not on loop 0's thread, and loop 0 must be running.
  void arm_signals() {
    std::promise<void> armed;
    net::dispatch(loops[0]->exec, [this, &armed] {
      signals.emplace(loops[0]->exec, SIGINT, SIGTERM);
      signals->async_wait([this](beast::error_code ec, int) {
        if (ec) return;
        std::lock_guard lock(mu);
        signalled = true;
        cv.notify_all();
      });
      armed.set_value();
    });
    armed.get_future().wait();
  }
  std::uint16_t port = 0;
  std::string host;
};

http_server::http_server(server& srv, http_server_options opts) {
  http_detail::default_events(opts, &srv);
  impl_ = std::make_shared<impl>(
      http_detail::session_source{.srv = &srv, .limits = srv.options().limits}, std::move(opts),
      nullptr);
}

http_server::http_server(server& srv, boost::asio::io_context& io, http_server_options opts) {
  http_detail::default_events(opts, &srv);
  impl_ = std::make_shared<impl>(
      http_detail::session_source{.srv = &srv, .limits = srv.options().limits}, std::move(opts),
      &io);
}

http_server::http_server(session_opener open, http_server_options opts, json_limits limits) {
  if (opts.stateless) throw std::invalid_argument("http_server: a session opener needs sessions");
  if (!open) throw std::invalid_argument("http_server: no session opener");
  if (opts.resumable && !opts.events) opts.events = make_memory_event_store();
  impl_ =
      std::make_shared<impl>(http_detail::session_source{.open = std::move(open), .limits = limits},
                             std::move(opts), nullptr);
}

http_server::~http_server() { stop(); }

result<void> http_server::start() {
  auto& m = *impl_;
  {
    std::lock_guard lock(m.mu);
    if (m.started) throw std::logic_error("http_server: already started");
    m.started = true;
  }
  const auto not_started = [&m](error e) -> result<void> {
    beast::error_code ignored;
    m.acceptor.close(ignored);
    std::lock_guard lock(m.mu);
    m.started = false;
    return e;
  };
  const std::string host = m.opts.host == "localhost" ? "127.0.0.1" : m.opts.host;
  beast::error_code ec;
  const auto address = net::ip::make_address(host, ec);
  if (ec) return not_started(error{errc::invalid_params, "not an IP address: " + host});
  const tcp::endpoint ep(address, m.opts.port);
  m.acceptor.open(ep.protocol(), ec);
  if (!ec) m.acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) m.acceptor.bind(ep, ec);
  if (!ec) m.acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return not_started(error{
        errc::connection_closed,
        "cannot listen on " + host + ":" + std::to_string(m.opts.port) + ": " + ec.message()});
  }
  {  // read by port() and url() on any thread
    std::lock_guard lock(m.mu);
    m.port = m.acceptor.local_endpoint().port();
    m.host = address.is_v6() ? "[" + address.to_string() + "]" : address.to_string();
  }
  m.handler.set_bound(address.is_loopback());
  // From here on the server serves: its list changes are published to the service's others.
  if (m.srv != nullptr) m.srv->start_serving();
  // The acceptor and the sweeps run on loop 0 (its strand, on the application's io_context).
  net::dispatch(m.loops[0]->exec, [&m] {
    m.accept();
    m.sweep_sessions();
  });
  for (auto& loop : m.loops) {
    net::dispatch(loop->exec, [&m, l = loop.get()] { m.sweep_connections(*l); });
    if (loop->ctx) m.threads.emplace_back([ctx = loop->ctx] { http_detail::run_loop(*ctx); });
  }
  // Signals are caught before the caller can say the server is ready (a SIGTERM right after
  // "listening" is a clean stop, not the default death); on the application's io_context,
  // which may not run yet, `serve` arms them.
  if (m.opts.handle_signals && !m.external) {
    {
      std::lock_guard lock(m.mu);
      m.signals_armed = true;
    }
    m.arm_signals();
  }
  return {};
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
  auto close_all = [&m] {
    beast::error_code ec;
    m.acceptor.close(ec);
    m.sessions_sweeper.cancel();
    if (m.signals) m.signals->cancel(ec);
  };
  auto close_loop = [](http_detail::io_loop& l) {
    l.stopping = true;
    l.sweeper.cancel();
    for (auto& w : l.conns) {
      if (auto c = w.lock()) c->shutdown();
    }
    l.conns.clear();
  };
  m.handler.sessions().clear();
  if (m.external) {
    // The application's io_context runs on: the closes run on the loop's strand, and this
    // returns once they have (at once when called on that strand). On another thread that runs
    // the io_context (a handler of the application's), waiting could wait for itself (a single
    // thread would be the one to run them): the closes are posted and this returns; `self`
    // keeps the server's state alive until they ran (or the io_context drops them unrun). When
    // the io_context is stopped (the application left its run() first), nothing would run them
    // while this waited: they run here.
    auto& loop = *m.loops[0];
    const auto& strand = *loop.exec.target<net::strand<net::io_context::executor_type>>();
    if (strand.running_in_this_thread() || strand.get_inner_executor().context().stopped()) {
      close_all();
      close_loop(loop);
    } else if (strand.get_inner_executor().running_in_this_thread()) {
      net::post(loop.exec, [self = impl_, close_all, close_loop] {
        close_all();
        close_loop(*self->loops[0]);
      });
    } else {
      // Posted, and awaited with a re-check: an io_context stopped by another thread meanwhile
      // would never run the post, so whichever of the post and this thread claims the closes
      // first runs them (the post, if it runs later, finds them done).
      struct closing {
        std::atomic<bool> claimed{false};
        std::promise<void> done;
      };
      auto c = std::make_shared<closing>();
      net::post(loop.exec, [self = impl_, c, close_all, close_loop] {
        if (c->claimed.exchange(true)) return;
        close_all();
        close_loop(*self->loops[0]);
        c->done.set_value();
      });
      auto closed = c->done.get_future();
      const auto& ctx = strand.get_inner_executor().context();
      while (closed.wait_for(std::chrono::milliseconds(10)) != std::future_status::ready) {
        if (ctx.stopped() && !c->claimed.exchange(true)) {
          close_all();
          close_loop(loop);
          break;
        }
      }
    }
    m.cv.notify_all();
    return;
  }
  net::post(m.loops[0]->exec, close_all);
  for (auto& loop : m.loops) {
    net::post(loop->exec, [l = loop.get(), close_loop] { close_loop(*l); });
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

int http_server::serve(std::stop_token stop) {
  bool started = false;
  {
    std::lock_guard lock(impl_->mu);
    started = impl_->started;
  }
  if (!started) {
    if (auto r = start(); !r) {
      std::fprintf(stderr, "mcp http_server: %s\n", r.error().message.c_str());
      return 1;
    }
  }
  auto wake = [this] {
    std::lock_guard lock(impl_->mu);
    impl_->signalled = true;
    impl_->cv.notify_all();
  };
  if (impl_->opts.handle_signals) {
    bool armed = false;
    {
      std::lock_guard lock(impl_->mu);
      armed = std::exchange(impl_->signals_armed, true);
    }
    if (!armed) impl_->arm_signals();
  }
  std::stop_callback on_stop(stop, wake);
  {
    std::unique_lock lock(impl_->mu);
    impl_->cv.wait(lock, [this] { return impl_->stopped || impl_->signalled; });
  }
  stop_server_and_signals();
  return 0;
}

void http_server::stop_server_and_signals() {
  stop();
  std::promise<void> done;
  net::post(impl_->loops[0]->exec, [this, &done] {
    impl_->signals.reset();
    done.set_value();
  });
  // The server's own loops have stopped: nothing runs the post; the signal set goes with them.
  if (impl_->external) {
    done.get_future().wait();
  } else {
    impl_->signals.reset();
  }
}

bool set_listen_address(http_server_options& opts, std::string_view address) {
  const auto colon = address.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == address.size()) return false;
  auto host = address.substr(0, colon);
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') return false;
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return false;  // an IPv6 address needs its brackets: "[::1]:8080"
  }
  unsigned long port = 0;
  for (const char c : address.substr(colon + 1)) {
    if (c < '0' || c > '9') return false;
    port = port * 10 + static_cast<unsigned long>(c - '0');
    if (port > 65535) return false;
  }
  opts.host = std::string(host);
  opts.port = static_cast<std::uint16_t>(port);
  return true;
}

std::uint16_t http_server::port() const {
  std::lock_guard lock(impl_->mu);
  return impl_->port;
}

std::string http_server::url() const {
  std::lock_guard lock(impl_->mu);
  return (impl_->tls ? "https://" : "http://") + impl_->host + ":" + std::to_string(impl_->port) +
         impl_->opts.path;
}

std::size_t http_server::session_count() const { return impl_->handler.sessions().size(); }

std::size_t http_server::sse_stream_count() const { return impl_->handler.sse_open(); }

}  // namespace mcp
