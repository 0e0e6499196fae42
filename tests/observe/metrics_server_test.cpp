// The /metrics endpoint (mcp/observe/metrics_server.hpp) over 127.0.0.1: the exposition with its
// content type, HEAD, 404 and 405, kept-alive connections (and a kept client connection to it),
// a failing producer, bad addresses.
#include <mcp/observe/metrics_server.hpp>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <gtest/gtest.h>

#include "http/fetch.hpp"

namespace {

using namespace mcp::observe;
namespace net = boost::asio;
namespace bhttp = boost::beast::http;

std::string url(const metrics_server& s, std::string_view path = "/metrics") {
  return "http://127.0.0.1:" + std::to_string(s.port()) + std::string(path);
}

mcp::http_detail::fetch_response get(const std::string& u, std::string method = "GET") {
  return mcp::http_detail::fetch(u, {.method = std::move(method)}, std::chrono::seconds(5),
                                 1 << 20);
}

TEST(MetricsServer, ServesTheExposition) {
  auto m = make_metrics();
  m->record({.method = "tools/call", .target = "t"}, {}, 0.02);
  auto server = make_metrics_server({.listen = "127.0.0.1:0", .metrics = m});
  ASSERT_TRUE(server) << server.error().message;
  ASSERT_NE((*server)->port(), 0);
  auto res = get(url(**server));
  EXPECT_EQ(res.status, 200U);
  EXPECT_EQ(res.body, m->prometheus_text());
  EXPECT_NE(res.body.find("mcp_server_operation_duration_seconds_bucket{mcp_method_name="
                          "\"tools/call\",gen_ai_tool_name=\"t\""),
            std::string::npos);
  res = get(url(**server, "/metrics?x=1"));
  EXPECT_EQ(res.status, 200U);
  res = get(url(**server, "/other"));
  EXPECT_EQ(res.status, 404U);
  res = get(url(**server), "POST");
  EXPECT_EQ(res.status, 405U);
}

// The client side of kept connections (http_detail::fetch_connection, the OTLP exporter's):
// reused for one origin, opened again when the server's answer closes it (this server does
// after 1000 answers) or for another origin.
TEST(MetricsServer, AKeptFetchConnectionIsReusedUntilTheServerClosesIt) {
  auto a = make_metrics_server({.listen = "127.0.0.1:0", .text = [] { return "a 1\n"; }});
  auto b = make_metrics_server({.listen = "127.0.0.1:0", .text = [] { return "b 1\n"; }});
  ASSERT_TRUE(a && b);
  mcp::http_detail::fetch_connection conn;
  const auto fetch = [&conn](const std::string& u) {
    return conn.exchange(u, {}, std::chrono::seconds(5), 1 << 20).body;
  };
  for (int i = 0; i < 1002; ++i) ASSERT_EQ(fetch(url(**a)), "a 1\n") << i;
  EXPECT_EQ(conn.connections(), 2U);
  EXPECT_EQ(fetch(url(**b)), "b 1\n");
  EXPECT_EQ(fetch(url(**b)), "b 1\n");
  EXPECT_EQ(fetch(url(**a)), "a 1\n");
  EXPECT_EQ(conn.connections(), 4U);
}

TEST(MetricsServer, KeepsConnectionsAliveAndAnswersHead) {
  auto server = make_metrics_server({.listen = "127.0.0.1:0", .text = [] { return "x 1\n"; }});
  ASSERT_TRUE(server);
  net::io_context ioc;
  net::ip::tcp::socket sock(ioc);
  sock.connect({net::ip::make_address("127.0.0.1"), (*server)->port()});
  boost::beast::flat_buffer buf;
  for (const auto verb : {bhttp::verb::get, bhttp::verb::head, bhttp::verb::get}) {
    bhttp::request<bhttp::empty_body> req{verb, "/metrics", 11};
    req.set(bhttp::field::host, "127.0.0.1");
    bhttp::write(sock, req);
    bhttp::response_parser<bhttp::string_body> parser;
    if (verb == bhttp::verb::head) parser.skip(true);
    bhttp::read(sock, buf, parser);
    const auto& res = parser.get();
    EXPECT_EQ(res.result_int(), 200U);
    EXPECT_EQ(res[bhttp::field::content_type], "text/plain; version=0.0.4; charset=utf-8");
    EXPECT_EQ(res[bhttp::field::content_length], "4");
    EXPECT_EQ(res.body(), verb == bhttp::verb::head ? "" : "x 1\n");
    EXPECT_TRUE(res.keep_alive());
  }
}

TEST(MetricsServer, AFailingProducerIs500) {
  auto server = make_metrics_server(
      {.listen = "127.0.0.1:0", .text = []() -> std::string { throw std::runtime_error("x"); }});
  ASSERT_TRUE(server);
  EXPECT_EQ(get(url(**server)).status, 500U);
}

TEST(MetricsServer, RefusesBadAddressesAndNothingToServe) {
  auto m = make_metrics();
  for (const std::string bad :
       {"127.0.0.1", "127.0.0.1:x", "127.0.0.1:70000", "nowhere:80", ":80", "127.0.0.1:-1"}) {
    auto r = make_metrics_server({.listen = bad, .metrics = m});
    EXPECT_FALSE(r) << bad;
    if (!r) {
      EXPECT_EQ(r.error().code, static_cast<int>(mcp::errc::invalid_params));
    }
  }
  EXPECT_FALSE(make_metrics_server({.listen = "127.0.0.1:0"}));
  auto first = make_metrics_server({.listen = "127.0.0.1:0", .metrics = m});
  ASSERT_TRUE(first);
  auto taken = make_metrics_server(
      {.listen = "127.0.0.1:" + std::to_string((*first)->port()), .metrics = m});
  ASSERT_FALSE(taken);
  EXPECT_EQ(taken.error().code, static_cast<int>(mcp::errc::internal_error));
  auto v6 = make_metrics_server({.listen = "[::1]:0", .metrics = m});
  if (v6) {  // where the machine has IPv6 loopback
    EXPECT_NE((*v6)->port(), 0);
  }
}

TEST(MetricsServer, StopIsIdempotentAndEndsConnections) {
  auto server = make_metrics_server({.listen = "127.0.0.1:0", .text = [] { return "x 1\n"; }});
  ASSERT_TRUE(server);
  net::io_context ioc;
  net::ip::tcp::socket idle(ioc);
  idle.connect({net::ip::make_address("127.0.0.1"), (*server)->port()});
  (*server)->stop();
  (*server)->stop();
  char c = 0;
  boost::system::error_code ec;
  idle.read_some(net::buffer(&c, 1), ec);
  EXPECT_TRUE(ec);  // closed
}

}  // namespace
