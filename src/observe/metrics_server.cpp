// The /metrics endpoint (mcp/observe/metrics_server.hpp): Beast on one io_context run by one
// thread, so connections need no locking; each reads a request head (bounded), answers, and
// waits for the next within the timeout.
#include <mcp/observe/metrics_server.hpp>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <charconv>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

namespace mcp::observe {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
using tcp = net::ip::tcp;

namespace {

constexpr unsigned max_requests_per_connection = 1000;

/// `HOST:PORT`, `[V6]:PORT`; nothing when it does not parse.
std::optional<tcp::endpoint> parse_listen(std::string_view s) {
  const auto colon = s.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  auto host = s.substr(0, colon);
  const auto port_text = s.substr(colon + 1);
  unsigned port = 0;
  const auto r = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || r.ec != std::errc{} || r.ptr != port_text.data() + port_text.size() ||
      port > 65535) {
    return std::nullopt;
  }
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host == "localhost") host = "127.0.0.1";
  boost::system::error_code ec;
  const auto addr = net::ip::make_address(host, ec);
  if (ec) return std::nullopt;
  return tcp::endpoint(addr, static_cast<std::uint16_t>(port));
}

}  // namespace

struct metrics_server::impl {
  class connection;
  metrics_server_options opts;
  std::set<connection*> live;  // on the loop's thread only; outlives the context's handlers
  net::io_context ioc{1};
  tcp::acceptor acceptor{ioc};
  std::uint16_t port = 0;
  std::thread thread;
  std::mutex stop_mu;
  bool stopped = false;

  /// The exposition, or nothing when the producer failed.
  std::optional<std::string> text() {
    try {
      if (opts.text) return opts.text();
      return opts.metrics->prometheus_text();
    } catch (...) {
      return std::nullopt;
    }
  }

  class connection : public std::enable_shared_from_this<connection> {
   public:
    connection(impl& owner, tcp::socket s) : owner_(owner), stream_(std::move(s)) {
      owner_.live.insert(this);
    }
    ~connection() { owner_.live.erase(this); }
    connection(const connection&) = delete;
    connection& operator=(const connection&) = delete;

    /// Ends the connection: its pending operation completes with an error.
    void close() {
      beast::error_code ignored;
      stream_.socket().close(ignored);
    }

    void read() {
      parser_.emplace();
      parser_->header_limit(8192);
      parser_->body_limit(0);
      stream_.expires_after(owner_.opts.timeout);
      bhttp::async_read(stream_, buffer_, *parser_,
                        [self = shared_from_this()](beast::error_code ec, std::size_t) {
                          if (!ec) self->answer();
                        });
    }

   private:
    void answer() {
      const auto& req = parser_->get();
      auto target = std::string_view(req.target());
      target = target.substr(0, target.find('?'));
      auto res = std::make_shared<bhttp::response<bhttp::string_body>>();
      res->version(11);
      res->set(bhttp::field::server, "mcp-cpp");
      const bool head = req.method() == bhttp::verb::head;
      if (target != owner_.opts.path) {
        res->result(bhttp::status::not_found);
        res->set(bhttp::field::content_type, "text/plain; charset=utf-8");
        res->body() = "not found\n";
      } else if (req.method() != bhttp::verb::get && !head) {
        res->result(bhttp::status::method_not_allowed);
        res->set(bhttp::field::allow, "GET, HEAD");
        res->set(bhttp::field::content_type, "text/plain; charset=utf-8");
        res->body() = "method not allowed\n";
      } else if (auto text = owner_.text()) {
        res->result(bhttp::status::ok);
        res->set(bhttp::field::content_type, prometheus_content_type);
        res->body() = std::move(*text);
      } else {
        res->result(bhttp::status::internal_server_error);
        res->set(bhttp::field::content_type, "text/plain; charset=utf-8");
        res->body() = "the metrics could not be written\n";
      }
      const bool again = req.keep_alive() && ++served_ < max_requests_per_connection;
      res->keep_alive(again);
      res->prepare_payload();
      if (head) res->body().clear();  // Content-Length stays the GET's
      stream_.expires_after(owner_.opts.timeout);
      if (head) {
        auto sr = std::make_shared<bhttp::response_serializer<bhttp::string_body>>(*res);
        bhttp::async_write_header(
            stream_, *sr,
            [self = shared_from_this(), res, sr, again](beast::error_code ec, std::size_t) {
              self->written(ec, again);
            });
        return;
      }
      bhttp::async_write(stream_, *res,
                         [self = shared_from_this(), res, again](
                             beast::error_code ec, std::size_t) { self->written(ec, again); });
    }

    void written(beast::error_code ec, bool again) {
      if (ec) return;
      if (again) return read();
      beast::error_code ignored;
      stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    }

    impl& owner_;
    beast::tcp_stream stream_;
    beast::flat_buffer buffer_;
    std::optional<bhttp::request_parser<bhttp::empty_body>> parser_;
    unsigned served_ = 0;
  };

  void accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket s) {
      if (ec) {
        if (ec == net::error::operation_aborted || !acceptor.is_open()) return;
        return accept();
      }
      if (live.size() < opts.max_connections) {
        std::make_shared<connection>(*this, std::move(s))->read();
      }  // else the socket closes here
      accept();
    });
  }
};

metrics_server::metrics_server(std::unique_ptr<impl> im) : impl_(std::move(im)) {}

metrics_server::~metrics_server() { stop(); }

std::uint16_t metrics_server::port() const noexcept { return impl_->port; }

void metrics_server::stop() {
  std::lock_guard lock(impl_->stop_mu);
  if (impl_->stopped) return;
  impl_->stopped = true;
  // On the loop's thread: stop accepting and close every connection; their handlers then end
  // with errors, the loop runs out of work and its thread returns.
  net::post(impl_->ioc, [im = impl_.get()] {
    beast::error_code ignored;
    im->acceptor.close(ignored);
    for (auto* c : im->live) c->close();
  });
  if (impl_->thread.joinable()) impl_->thread.join();
}

result<std::unique_ptr<metrics_server>> make_metrics_server(metrics_server_options opts) {
  const auto ep = parse_listen(opts.listen);
  if (!ep) {
    return error(errc::invalid_params,
                 "metrics endpoint: not HOST:PORT with a numeric host: " + opts.listen);
  }
  if (!opts.metrics && !opts.text) {
    return error(errc::invalid_params, "metrics endpoint: no metrics to serve");
  }
  auto im = std::make_unique<metrics_server::impl>();
  im->opts = std::move(opts);
  boost::system::error_code ec;
  im->acceptor.open(ep->protocol(), ec);
  if (!ec) im->acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) im->acceptor.bind(*ep, ec);
  if (!ec) im->acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return error(errc::internal_error,
                 "metrics endpoint: cannot listen on " + im->opts.listen + ": " + ec.message());
  }
  im->port = im->acceptor.local_endpoint().port();
  im->accept();
  im->thread = std::thread([raw = im.get()] {
    for (;;) {
      try {
        raw->ioc.run();
        return;
      } catch (...) {  // a handler's exception ends that connection, never the loop
      }
    }
  });
  return std::unique_ptr<metrics_server>(new metrics_server(std::move(im)));
}

}  // namespace mcp::observe
