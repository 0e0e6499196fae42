// http_server_options::tls: the server over HTTPS, checked with a TLS client that trusts only
// the test certificate; a plain-HTTP client on the TLS port is dropped and the server goes on.
// The client transport over HTTPS (http_client_options::ca_file) against it.
#include <mcp/client.hpp>
#include <mcp/http_client.hpp>
#include <mcp/http_server.hpp>

#include <boost/asio/ssl.hpp>
#include <boost/beast/ssl.hpp>
#include <gtest/gtest.h>

#include "http_test_util.hpp"
#include "support/test_cert.hpp"

namespace {

using namespace mcp_test;

/// One POST over TLS (verifying the server against `ca` for host 127.0.0.1); status and body.
std::pair<unsigned, std::string> tls_post(std::uint16_t port, const std::string& ca,
                                          const std::string& body) {
  net::io_context ioc;
  net::ssl::context ctx(net::ssl::context::tls_client);
  ctx.load_verify_file(ca);
  ctx.set_verify_mode(net::ssl::verify_peer);
  beast::ssl_stream<beast::tcp_stream> stream(ioc, ctx);
  stream.set_verify_callback(net::ssl::host_name_verification("127.0.0.1"));
  beast::get_lowest_layer(stream).expires_after(5s);
  beast::get_lowest_layer(stream).connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
  stream.handshake(net::ssl::stream_base::client);
  bhttp::request<bhttp::string_body> req{bhttp::verb::post, "/mcp", 11};
  req.set(bhttp::field::host, "127.0.0.1");
  req.set(bhttp::field::content_type, "application/json");
  req.set(bhttp::field::accept, "application/json, text/event-stream");
  req.body() = body;
  req.prepare_payload();
  bhttp::write(stream, req);
  beast::flat_buffer buf;
  bhttp::response<bhttp::string_body> res;
  bhttp::read(stream, buf, res);
  return {res.result_int(), res.body()};
}

class tls_server : public http_fixture {};

TEST_F(tls_server, ServesMcpOverHttps) {
  test_cert cert;
  ASSERT_TRUE(cert.ok) << "openssl could not make a certificate";
  start(
      {.tls = mcp::tls_options{.certificate_chain_file = cert.cert, .private_key_file = cert.key}});
  EXPECT_EQ(http_->url().rfind("https://127.0.0.1:", 0), 0U) << http_->url();
  auto [status, body] = tls_post(port_, cert.cert, initialize_body());
  EXPECT_EQ(status, 200U);
  EXPECT_NE(body.find("\"protocolVersion\":\"2025-11-25\""), std::string::npos) << body;
  // Plain HTTP on the TLS port: no answer (the handshake fails), and the server goes on.
  auto plain = request(port_, "POST", initialize_body(), post_headers());
  EXPECT_EQ(plain.status, 0U);
  EXPECT_EQ(tls_post(port_, cert.cert, initialize_body()).first, 200U);
}

TEST_F(tls_server, AClientThatDoesNotTrustTheCertificateFails) {
  test_cert cert, other;
  ASSERT_TRUE(cert.ok && other.ok);
  start(
      {.tls = mcp::tls_options{.certificate_chain_file = cert.cert, .private_key_file = cert.key}});
  EXPECT_THROW((void)tls_post(port_, other.cert, initialize_body()), boost::system::system_error);
  EXPECT_EQ(tls_post(port_, cert.cert, initialize_body()).first, 200U);
}

/// A client session over `http_client_connection` to `url`, trusting `ca`.
struct https_client {
  https_client(const std::string& url, const std::string& ca)
      : conn(mcp::make_http_client_connection({.url = url, .ca_file = ca}).value()),
        client(conn, mcp::client_options{.timeout = 5s}) {
    conn->on_receive([this](std::string_view m) { client.receive(m); });
  }
  std::shared_ptr<mcp::http_client_connection> conn;
  mcp::client_session client;
};

TEST_F(tls_server, TheClientTransportSpeaksHttpsAndChecksTheCertificate) {
  test_cert cert, other;
  ASSERT_TRUE(cert.ok && other.ok);
  start(
      {.tls = mcp::tls_options{.certificate_chain_file = cert.cert, .private_key_file = cert.key}});
  https_client good(http_->url(), cert.cert);
  ASSERT_TRUE(good.client.initialize());
  EXPECT_FALSE(good.conn->session_id().empty());
  const auto r = good.client.call_tool("echo", mcp::json::object{{"text", "over tls"}});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->at("content").at(0).at("text"), "over tls");
  // Kept-alive TLS connections are reused.
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(good.client.call_tool("echo", {{"text", "again"}}));
  EXPECT_LE(good.conn->connections_opened(), 2U);
  // SSE over TLS: a call with progress.
  std::atomic<int> progress{0};
  mcp::request_options opts;
  opts.on_progress = [&](const mcp::json::object&) { ++progress; };
  const auto counted =
      good.client.call_tool("count", mcp::json::object{{"steps", 3}, {"step_ms", 5}}, opts);
  ASSERT_TRUE(counted) << counted.error().message;
  EXPECT_EQ(progress, 3);
  // A server whose certificate this client does not trust: an error, not a crash.
  https_client wary(http_->url(), other.cert);
  const auto refused = wary.client.initialize();
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("HTTP request failed"), std::string::npos)
      << refused.error().message;
  const auto unreadable = mcp::make_http_client_connection(
      {.url = http_->url(), .ca_file = (cert.dir / "missing.pem").string()});
  ASSERT_FALSE(unreadable);
  EXPECT_TRUE(unreadable.error().is(mcp::errc::invalid_params)) << unreadable.error().message;
}

TEST(tls_options, FilesThatCannotBeUsedAreRefused) {
  mcp::server s;
  EXPECT_THROW(mcp::http_server(s, {.tls = mcp::tls_options{.certificate_chain_file = "/nope.pem",
                                                            .private_key_file = "/nope.key"}}),
               std::invalid_argument);
}

}  // namespace
