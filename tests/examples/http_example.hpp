// Test support for the HTTP examples: starts an example that prints "listening on URL" on its
// stdout, and speaks MCP to it over real connections to 127.0.0.1 (tests/http's raw client).
#pragma once

#include <mcp/json.hpp>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "http/http_test_util.hpp"
#include "support/subprocess.hpp"

namespace mcp::test {

/// An example serving HTTP as a subprocess, with its port.
class http_example {
 public:
  explicit http_example(std::vector<std::string> argv)
      : proc_(std::make_unique<subprocess>(std::move(argv))) {
    const auto line = proc_->read_line(std::chrono::seconds(20)).value_or("");
    const auto colon = line.rfind(':');
    const auto slash = line.find('/', colon == std::string::npos ? 0 : colon);
    if (line.starts_with("listening on http://127.0.0.1:") && slash != std::string::npos) {
      port = static_cast<std::uint16_t>(std::stoul(line.substr(colon + 1, slash - colon - 1)));
    }
    EXPECT_NE(port, 0) << "no 'listening on' line: '" << line << "'\n" << proc_->drain_stderr();
  }

  /// POSTs one JSON-RPC message with `headers` added to the usual ones (session, version).
  [[nodiscard]] mcp_test::response post(const json::value& message,
                                        std::vector<std::pair<std::string, std::string>> headers,
                                        const std::string& session = {}) const {
    auto all = mcp_test::post_headers(session, session.empty() ? "" : "2025-11-25");
    all.insert(all.end(), headers.begin(), headers.end());
    return mcp_test::request(port, "POST", json::serialize(message), all);
  }

  subprocess& proc() { return *proc_; }
  std::uint16_t port = 0;

 private:
  std::unique_ptr<subprocess> proc_;
};

/// The JSON-RPC answer in a response: its JSON body, or the last event of its SSE stream.
inline json::value answer_of(const mcp_test::response& r) {
  std::string text = r.body;
  if (r.header("content-type").starts_with("text/event-stream")) {
    const auto events = r.events();
    text = events.empty() ? "" : events.back().data;
  }
  auto v = parse_json(text);
  return v ? *v : json::value("<not JSON: " + text + ">");
}

/// A JSON-RPC request.
inline json::object rpc(int id, std::string_view method, json::object params) {
  return json::object{
      {"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

/// initialize's params.
inline json::object initialize_params() {
  return json::object{{"protocolVersion", "2025-11-25"},
                      {"capabilities", json::object{}},
                      {"clientInfo", json::object{{"name", "t"}, {"version", "1"}}}};
}

}  // namespace mcp::test
