// An application with an HTTP server of its own (Boost.Beast, on its own io_context) that mounts
// MCP at /mcp beside its own routes: GET / and GET /health are the application's; everything
// under /mcp (and the OAuth metadata paths, were it a protected resource) goes to an
// `mcp::http_endpoint`, and `mcp::async_write_response` writes what it answers. The MCP side
// serves the conformance suite's fixtures; its tool handlers run on the application's
// io_context too, so the application's io_context is the only pool of I/O threads.
//
//   embedded_app --http 127.0.0.1:8080   (port 0: any; the URL is printed on stderr)
#include <mcp/beast.hpp>
#include <mcp/http_endpoint.hpp>
#include <mcp/server.hpp>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "everything/fixtures.hpp"

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;

namespace {

/// One client connection of the application: reads requests, answers its own routes, hands
/// /mcp to the MCP endpoint.
class connection : public std::enable_shared_from_this<connection> {
 public:
  connection(tcp::socket socket, mcp::http_endpoint& mcp_endpoint)
      : stream_(std::move(socket)), mcp_(mcp_endpoint) {}

  void read_next() {
    parser_.emplace();
    parser_->body_limit(4 << 20);  // the application's own limits
    stream_.expires_after(std::chrono::seconds(120));
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                       if (ec) return self->close();
                       self->route(self->parser_->release());
                     });
  }

 private:
  void route(http::request<http::string_body> req) {
    stream_.expires_never();  // an MCP stream may last; the endpoint has its own limits
    const std::string_view target = req.target();
    if (target == "/mcp" || target.starts_with("/mcp?") || target.starts_with("/.well-known/")) {
      return to_mcp(std::move(req));
    }
    http::response<http::string_body> res;
    res.version(11);
    res.keep_alive(req.keep_alive());
    if (req.method() == http::verb::get && target == "/") {
      res.result(http::status::ok);
      res.set(http::field::content_type, "text/plain");
      res.body() = "An application with MCP at /mcp\n";
    } else if (req.method() == http::verb::get && target == "/health") {
      res.result(http::status::ok);
      res.set(http::field::content_type, "application/json");
      res.body() = R"({"status":"ok"})";
    } else {
      res.result(http::status::not_found);
      res.body() = "not found\n";
    }
    res.prepare_payload();
    auto shared = std::make_shared<http::response<http::string_body>>(std::move(res));
    http::async_write(stream_, *shared,
                      [self = shared_from_this(), shared](beast::error_code ec, std::size_t) {
                        if (ec || !shared->keep_alive()) return self->close();
                        self->read_next();
                      });
  }

  void to_mcp(http::request<http::string_body> req) {
    std::vector<mcp::http_header> headers;
    for (const auto& f : req) headers.emplace_back(f.name_string(), f.value());
    const std::string method(req.method_string());
    auto res = mcp_.handle(
        mcp::http_request_view{.method = method, .target = req.target(), .headers = headers},
        req.body());
    mcp::async_write_response(stream_, std::move(res), req.keep_alive(),
                              [self = shared_from_this()](beast::error_code ec, bool keep_alive) {
                                if (ec || !keep_alive) return self->close();
                                self->read_next();
                              });
  }

  void close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.socket().close(ec);
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  mcp::http_endpoint& mcp_;
};

void accept(tcp::acceptor& acceptor, mcp::http_endpoint& endpoint) {
  // Each connection on a strand: its handlers never run at once, whichever thread runs them.
  acceptor.async_accept(net::make_strand(acceptor.get_executor()),
                        [&acceptor, &endpoint](beast::error_code ec, tcp::socket socket) {
                          if (ec) return;
                          std::make_shared<connection>(std::move(socket), endpoint)->read_next();
                          accept(acceptor, endpoint);
                        });
}

}  // namespace

int main(int argc, char** argv) {
  std::string address = "127.0.0.1:0";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--http" && i + 1 < argc) {
      address = argv[++i];
    } else {
      std::fprintf(stderr, "usage: embedded_app [--http HOST:PORT]\n");
      return a == "--help" ? 0 : 2;
    }
  }
  mcp::http_server_options where;
  if (!mcp::set_listen_address(where, address)) {
    std::fprintf(stderr, "embedded_app: --http needs HOST:PORT, not '%s'\n", address.c_str());
    return 2;
  }

  net::io_context io;
  mcp::server server(everything::options());
  everything::add_fixtures(server);
  mcp::http_endpoint endpoint(server, {.host = where.host, .path = "/mcp"});

  tcp::acceptor acceptor(io);
  try {
    const tcp::endpoint ep(
        net::ip::make_address(where.host == "localhost" ? "127.0.0.1" : where.host), where.port);
    acceptor.open(ep.protocol());
    acceptor.set_option(net::socket_base::reuse_address(true));
    acceptor.bind(ep);
    acceptor.listen();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "embedded_app: cannot listen on %s: %s\n", address.c_str(), e.what());
    return 1;
  }
  accept(acceptor, endpoint);
  std::fprintf(stderr, "embedded_app: listening on http://%s:%u/mcp\n", where.host.c_str(),
               static_cast<unsigned>(acceptor.local_endpoint().port()));

  // The application decides what its signals do: here, stop.
  net::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](beast::error_code, int) { io.stop(); });
  io.run();  // one thread: the application's and MCP's connections
  return 0;
}
