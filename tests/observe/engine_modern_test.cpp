// 2026-07-28 requests over Streamable HTTP with the metrics on: the `_meta` the transport read
// passes through the engine's observed dispatch without being parsed again (the metrics read no
// trace context from it), reaches the tool as sent, and every call counts once in its series.
#include <mcp/http_server.hpp>
#include <mcp/observe/metrics.hpp>
#include <mcp/observe/tracing.hpp>
#include <mcp/server.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "http/modern_util.hpp"
#include "observe/series_count.hpp"

namespace {

using namespace mcp_test;  // NOLINT(google-build-using-namespace): the HTTP test helpers

/// The count of the server's tools/call series of `tool` (no status code) at `version`.
std::uint64_t calls(const mcp::observe::metrics& m, std::string_view tool,
                    std::string_view version) {
  return count_where(m, {{"gen_ai.tool.name", tool},
                         {"mcp.protocol.version", version},
                         {"rpc.response.status_code", ""},
                         {"error.type", ""}});
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

TEST(engine_modern, a_tracer_begins_a_trace_for_kept_meta_and_follows_a_parent_in_parsed_meta) {
  // Kept as text (no trace context in it): a new trace; a traceparent in `_meta` (parsed into
  // the params): the span is its child. With the metrics, which count each call once. A ratio
  // of 1 starts every span with its operation; below 1 a new trace begins without it.
  for (const double ratio : {1.0, 0.5}) {
    struct seen_spans {
      std::mutex mu;
      std::vector<std::string> traces;   // the tools/call spans' trace ids, in order
      std::vector<std::string> parents;  // their parents' span ids ("" for a root)
      std::vector<bool> remote;          // whether the parent came from `_meta`
    };
    const auto seen = std::make_shared<seen_spans>();
    auto metrics = mcp::observe::make_metrics();
    const auto sink = [seen](std::unique_ptr<mcp::observe::span_record> r) {
      if (r->side() != mcp::observe::kind::server || r->name() != "tools/call meta") return;
      static constexpr char hex[] = "0123456789abcdef";
      std::string parent;
      bool any = false;
      for (const auto b : r->parent_span_id) {
        any = any || b != 0;
        parent += hex[b >> 4];
        parent += hex[b & 15];
      }
      std::lock_guard lock(seen->mu);
      seen->traces.push_back(r->context.trace_id_hex());
      seen->parents.push_back(any ? parent : "");
      seen->remote.push_back(r->parent_remote);
    };
    auto tracer = mcp::observe::make_tracer({.sink = sink, .root_sample_ratio = ratio});
    mcp::server s({.observer = mcp::observe::combine({tracer, metrics})});
    s.add_tool({.name = "meta", .description = "its request's _meta", .run_inline = true},
               [](mcp::tool_context& ctx, const text_in& in) -> std::string {
                 return in.text + mcp::to_json_string(mcp::json::value(ctx.request_meta()));
               });
    mcp::http_server http(s, {});
    ASSERT_TRUE(http.start().has_value());
    const auto h = modern_headers("tools/call", "meta");
    const std::string kept = R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
                             R"("io.modelcontextprotocol/clientCapabilities":{}})";
    const std::string trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
    const std::string parent_id = "00f067aa0ba902b7";
    const std::string with_parent =
        R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
        R"("io.modelcontextprotocol/clientCapabilities":{},"traceparent":"00-)" +
        trace_id + "-" + parent_id + R"(-01"})";
    for (const auto* meta : {&kept, &with_parent}) {
      const auto r =
          request(http.port(), "POST", modern_call("1", "meta", R"({"text":"A"})", {}, *meta), h);
      ASSERT_EQ(r.status, 200U) << r.body;
      const auto text = first_text(result_of(answer_of(r)));
      EXPECT_NE(text.find(R"("io.modelcontextprotocol/protocolVersion":"2026-07-28")"),
                std::string::npos)
          << text;
    }
    http.stop();
    std::lock_guard lock(seen->mu);
    // The child of a sampled parent is always recorded; the new trace when the ratio says so.
    if (ratio == 1.0) {
      ASSERT_EQ(seen->traces.size(), 2U);
    }
    ASSERT_GE(seen->traces.size(), 1U) << ratio;
    ASSERT_LE(seen->traces.size(), 2U) << ratio;
    const std::size_t child = seen->traces.size() - 1;
    EXPECT_EQ(seen->traces[child], trace_id) << ratio;
    EXPECT_EQ(seen->parents[child], parent_id) << ratio;
    EXPECT_TRUE(seen->remote[child]) << ratio;
    if (child == 1) {
      EXPECT_NE(seen->traces[0], trace_id) << ratio;
      EXPECT_EQ(seen->traces[0].size(), 32U) << ratio;
      EXPECT_EQ(seen->parents[0], "") << ratio;
    }
    EXPECT_EQ(calls(*metrics, "meta", "2026-07-28"), 2U) << ratio;
  }
}

}  // namespace
