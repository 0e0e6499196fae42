// Helpers for the Streamable HTTP tests: a raw HTTP/1.1 client with deadlines (so a test can
// send exactly the bytes it wants, read a response partly, and drop the connection), and a test
// server with a few tools.
#pragma once

#include <mcp/http_client.hpp>
#include <mcp/http_server.hpp>
#include <mcp/server.hpp>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "http/sse.hpp"

namespace mcp_test {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;

/// A response read whole (SSE bodies too, once the stream ended).
struct response {
  unsigned status = 0;
  std::map<std::string, std::string> headers;  // lowercase names
  std::string body;
  [[nodiscard]] std::string header(const std::string& n) const {
    auto it = headers.find(n);
    return it == headers.end() ? std::string() : it->second;
  }
  /// The SSE events of the body (data-carrying ones), with their ids.
  [[nodiscard]] std::vector<mcp::http_detail::sse_event> events() const {
    std::vector<mcp::http_detail::sse_event> out;
    mcp::http_detail::sse_parser p;
    p.feed(body, [&](const auto& e) { out.push_back(e); });
    return out;
  }
};

/// One connection driven step by step.
class raw_client {
 public:
  explicit raw_client(std::uint16_t port) : stream_(ctx_) {
    stream_.expires_after(5s);
    beast::error_code ec;
    stream_.async_connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port),
                          [&](beast::error_code e) { ec = e; });
    run();
    if (ec) throw std::runtime_error("connect: " + ec.message());
  }

  void send_raw(const std::string& data) {
    if (auto ec = write(data)) throw std::runtime_error("write: " + ec.message());
  }

  /// Sends what the server takes: for a request the server may refuse (and close) before it
  /// has read it all. True when everything was written.
  bool send_until_refused(const std::string& data) { return !write(data); }

  /// Reads a complete response (false on timeout or error).
  bool read_response(response& out, std::chrono::milliseconds timeout = 10s) {
    bhttp::response_parser<bhttp::string_body> p;
    p.body_limit(boost::none);
    beast::error_code ec;
    stream_.expires_after(timeout);
    bhttp::async_read(stream_, buffer_, p, [&](beast::error_code e, std::size_t) { ec = e; });
    run();
    if (ec) return false;
    auto& m = p.get();
    out.status = m.result_int();
    for (const auto& f : m) {
      std::string n(f.name_string());
      for (auto& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      out.headers[n] = std::string(f.value());
    }
    out.body = m.body();
    return true;
  }

  /// Reads the response head, then body bytes until `pred(body so far)` holds.
  bool read_until(response& out, const std::function<bool(const std::string&)>& pred,
                  std::chrono::milliseconds timeout = 10s) {
    if (!head_read_) {
      parser_.body_limit(boost::none);
      beast::error_code ec;
      stream_.expires_after(timeout);
      bhttp::async_read_header(stream_, buffer_, parser_,
                               [&](beast::error_code e, std::size_t) { ec = e; });
      run();
      if (ec) return false;
      head_read_ = true;
      out.status = parser_.get().result_int();
      for (const auto& f : parser_.get()) {
        std::string n(f.name_string());
        for (auto& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        out.headers[n] = std::string(f.value());
      }
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!pred(out.body)) {
      if (parser_.is_done() || std::chrono::steady_clock::now() > deadline) return false;
      char buf[4096];
      parser_.get().body().data = buf;
      parser_.get().body().size = sizeof buf;
      beast::error_code ec;
      stream_.expires_at(deadline);
      bhttp::async_read_some(stream_, buffer_, parser_,
                             [&](beast::error_code e, std::size_t) { ec = e; });
      run();
      if (ec == bhttp::error::need_buffer) ec = {};
      out.body.append(buf, sizeof buf - parser_.get().body().size);
      if (ec) return pred(out.body);
    }
    return true;
  }

  /// True when the server closed the connection within `timeout`.
  bool closed_by_peer(std::chrono::milliseconds timeout) {
    char c = 0;
    beast::error_code ec;
    stream_.expires_after(timeout);
    stream_.async_read_some(net::buffer(&c, 1), [&](beast::error_code e, std::size_t) { ec = e; });
    run();
    return ec && ec != beast::error::timeout;
  }

  void close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.close();
  }

 private:
  beast::error_code write(const std::string& data) {
    stream_.expires_after(5s);
    beast::error_code ec;
    net::async_write(stream_, net::buffer(data), [&](beast::error_code e, std::size_t) { ec = e; });
    run();
    return ec;
  }

  void run() {
    ctx_.restart();
    ctx_.run();
  }
  net::io_context ctx_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  bhttp::response_parser<bhttp::buffer_body> parser_;
  bool head_read_ = false;
};

/// Builds a request's bytes.
inline std::string make_request(const std::string& method, std::uint16_t port,
                                const std::string& body,
                                const std::vector<std::pair<std::string, std::string>>& headers,
                                const std::string& path = "/mcp") {
  std::string r = method + " " + path + " HTTP/1.1\r\n";
  bool has_host = false;
  for (const auto& [k, v] : headers) {
    if (k == "Host") has_host = true;
  }
  if (!has_host) r += "Host: 127.0.0.1:" + std::to_string(port) + "\r\n";
  for (const auto& [k, v] : headers) {
    if (!v.empty()) r += k + ": " + v + "\r\n";
  }
  if (method == "POST" || !body.empty()) {
    r += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  }
  r += "\r\n" + body;
  return r;
}

inline std::vector<std::pair<std::string, std::string>> post_headers(
    const std::string& session = {}, const std::string& version = "2025-11-25") {
  std::vector<std::pair<std::string, std::string>> h{
      {"Content-Type", "application/json"},
      {"Accept", "application/json, text/event-stream"},
  };
  if (!session.empty()) h.emplace_back("Mcp-Session-Id", session);
  if (!version.empty()) h.emplace_back("MCP-Protocol-Version", version);
  return h;
}

/// One request on a fresh connection, read whole.
inline response request(std::uint16_t port, const std::string& method, const std::string& body,
                        const std::vector<std::pair<std::string, std::string>>& headers,
                        const std::string& path = "/mcp") {
  raw_client c(port);
  c.send_raw(make_request(method, port, body, headers, path));
  response r;
  if (!c.read_response(r)) r.status = 0;
  return r;
}

/// GET resuming session `sid`'s stream after event `last_event_id`, read whole.
inline response resume(std::uint16_t port, const std::string& sid,
                       const std::string& last_event_id) {
  return request(port, "GET", "",
                 {{"Accept", "text/event-stream"},
                  {"Mcp-Session-Id", sid},
                  {"MCP-Protocol-Version", "2025-11-25"},
                  {"Last-Event-ID", last_event_id}});
}

inline std::string initialize_body(const std::string& version = "2025-11-25",
                                   const std::string& id = "1") {
  return R"({"jsonrpc":"2.0","id":)" + id +
         R"(,"method":"initialize","params":{"protocolVersion":")" + version +
         R"(","capabilities":{},"clientInfo":{"name":"test","version":"1"}}})";
}

/// Initializes a session (initialize + notifications/initialized); returns the session id.
inline std::string open_session(std::uint16_t port, const std::string& version = "2025-11-25") {
  auto r = request(port, "POST", initialize_body(version), post_headers({}, ""));
  const auto sid = r.header("mcp-session-id");
  request(port, "POST", R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
          post_headers(sid, version));
  return sid;
}

struct text_in {
  std::string text;
};
BOOST_DESCRIBE_STRUCT(text_in, (), (text))
struct steps_in {
  int steps = 3;
  int step_ms = 20;
};
BOOST_DESCRIBE_STRUCT(steps_in, (), (steps, step_ms))

/// Tools: echo (inline), whoami (the caller's subject), count (progress per step), ask (a
/// sampling request to the client), sleep, poll (`steps` times: progress, close its SSE stream,
/// sleep `step_ms`).
inline void add_test_tools(mcp::server& s) {
  s.add_tool({.name = "echo", .description = "echo", .run_inline = true},
             [](const text_in& in) -> std::string { return in.text; });
  s.add_tool(
      {.name = "whoami", .description = "caller subject"},
      [](mcp::tool_context& ctx, const text_in&) -> std::string { return ctx.caller().subject; });
  s.add_tool({.name = "count", .description = "progress per step"},
             [](mcp::tool_context& ctx, const steps_in& in) -> std::string {
               for (int i = 1; i <= in.steps; ++i) {
                 std::this_thread::sleep_for(std::chrono::milliseconds(in.step_ms));
                 ctx.progress(i, in.steps);
               }
               return "counted " + std::to_string(in.steps);
             });
  s.add_tool(
      {.name = "ask", .description = "asks the client to sample"},
      [](mcp::tool_context& ctx, const text_in& in) -> std::string {
        auto r = ctx.create_message(mcp::json::object{
            {"messages", mcp::json::array{mcp::json::object{
                             {"role", "user"},
                             {"content", mcp::json::object{{"type", "text"}, {"text", in.text}}}}}},
            {"maxTokens", 10}});
        if (!r) return "error: " + r.error().message;
        return "client said: " + std::string(r->at("content").at("text").as_string());
      });
  s.add_tool({.name = "sleep", .description = "sleeps step_ms"},
             [](const steps_in& in) -> std::string {
               std::this_thread::sleep_for(std::chrono::milliseconds(in.step_ms));
               return "slept";
             });
  s.add_tool({.name = "poll", .description = "progress, close the SSE stream, sleep; repeated"},
             [](mcp::tool_context& ctx, const steps_in& in) -> std::string {
               bool closed = true;
               for (int i = 1; i <= in.steps; ++i) {
                 ctx.progress(i, in.steps);
                 closed = ctx.close_sse_stream() && closed;
                 std::this_thread::sleep_for(std::chrono::milliseconds(in.step_ms));
               }
               return closed ? "closed=true" : "closed=false";
             });
}

inline std::string call_body(const std::string& id, const std::string& tool,
                             const std::string& args, bool progress = false) {
  std::string b = R"({"jsonrpc":"2.0","id":)" + id +
                  R"(,"method":"tools/call","params":{"name":")" + tool + R"(","arguments":)" +
                  args;
  if (progress) b += R"(,"_meta":{"progressToken":"tok"})";
  return b + "}}";
}

/// A server with the test tools behind a real listener on 127.0.0.1 (any free port).
class http_fixture : public ::testing::Test {
 protected:
  explicit http_fixture(mcp::server_options opts = mcp::server_options{.info = {.name = "http-test",
                                                                                .version = "1"}})
      : server_(std::move(opts)) {}
  void start(mcp::http_server_options opts = {}) {
    add_test_tools(server_);
    http_ = std::make_unique<mcp::http_server>(server_, std::move(opts));
    http_->start().value();
    port_ = http_->port();
  }
  void TearDown() override {
    if (http_) http_->stop();
  }

  mcp::server server_;
  std::unique_ptr<mcp::http_server> http_;
  std::uint16_t port_ = 0;
};

}  // namespace mcp_test
