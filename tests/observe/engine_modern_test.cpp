// 2026-07-28 requests over Streamable HTTP with the metrics on: the `_meta` the transport read
// passes through the engine's observed dispatch without being parsed again (the metrics read no
// trace context from it), reaches the tool as sent, and every call counts once in its series.
#include <mcp/http_server.hpp>
#include <mcp/observe/metrics.hpp>
#include <mcp/server.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "http/modern_util.hpp"

namespace {

using namespace mcp_test;  // NOLINT(google-build-using-namespace): the HTTP test helpers

/// The count of the server's tools/call series of `tool` (no status code) at `version`.
std::uint64_t calls(const mcp::observe::metrics& m, std::string_view tool,
                    std::string_view version) {
  std::uint64_t n = 0;
  for (const auto& md : m.snapshot().metrics) {
    if (md.name != "mcp.server.operation.duration") continue;
    for (const auto& p : md.histogram_points) {
      bool named = false;
      bool versioned = false;
      bool failed = false;
      for (const auto& a : p.attributes) {
        const auto* t = std::get_if<std::string>(&a.value);
        if (t == nullptr) continue;
        if (a.key == "gen_ai.tool.name") named = *t == tool;
        if (a.key == "mcp.protocol.version") versioned = *t == version;
        if (a.key == "rpc.response.status_code" || a.key == "error.type") failed = true;
      }
      if (named && versioned && !failed) n += p.count;
    }
  }
  return n;
}

TEST(engine_modern, the_meta_passes_as_read_and_each_call_counts_once) {
  auto metrics = mcp::observe::make_metrics();
  mcp::server s({.observer = metrics});
  s.add_tool({.name = "meta", .description = "its request's _meta", .run_inline = true},
             [](mcp::tool_context& ctx, const text_in& in) -> std::string {
               return in.text + mcp::to_json_string(mcp::json::value(ctx.request_meta()));
             });
  mcp::http_server http(s, {});
  ASSERT_TRUE(http.start().has_value());
  // Kept as text by the transport (only the revision, capabilities, client info and log level):
  // the session takes what the transport found; a tool still reads `_meta` as sent.
  const std::string kept =
      R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
      R"("io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},)"
      R"("io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},)"
      R"("io.modelcontextprotocol/logLevel":"info"})";
  // Parsed into the params (members the transport does not keep as text).
  const std::string parsed =
      R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":7,)"
      R"("io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},)"
      R"("io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"x":{"y":null}})";
  const auto h = modern_headers("tools/call", "meta");
  constexpr int n = 6;
  for (int i = 0; i < n; ++i) {
    const bool as_text = i % 2 == 0;
    const auto r = request(
        http.port(), "POST",
        modern_call(std::to_string(i + 1), "meta", R"({"text":"A"})", {}, as_text ? kept : parsed),
        h);
    ASSERT_EQ(r.status, 200U) << r.body;
    const auto seen = first_text(result_of(answer_of(r)));
    EXPECT_EQ(seen.rfind("A{", 0), 0U) << seen;
    EXPECT_NE(seen.find(R"("io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"})"),
              std::string::npos)
        << seen;
    if (as_text) {
      EXPECT_NE(seen.find(R"("io.modelcontextprotocol/logLevel":"info")"), std::string::npos)
          << seen;
    } else {
      EXPECT_NE(seen.find(R"("progressToken":7,)"), std::string::npos) << seen;
      EXPECT_NE(seen.find(R"("x":{"y":null})"), std::string::npos) << seen;
    }
  }
  // A `_meta` kept as text whose log level is no level: only the session sees it, from what the
  // transport found, and refuses it as without the metrics.
  const auto refused =
      request(http.port(), "POST",
              modern_call("99", "meta", R"({"text":"A"})", {},
                          R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
                          R"("io.modelcontextprotocol/clientCapabilities":{},)"
                          R"("io.modelcontextprotocol/logLevel":"loud"})"),
              h);
  EXPECT_EQ(error_code(answer_of(refused)), -32602) << refused.body;
  http.stop();
  EXPECT_EQ(calls(*metrics, "meta", "2026-07-28"), static_cast<std::uint64_t>(n));
}

}  // namespace
