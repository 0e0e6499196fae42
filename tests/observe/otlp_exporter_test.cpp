// Our OTLP/HTTP exporter against a local receiver (otlp-sink.mjs, node) that validates every
// body strictly and decodes it with the opentelemetry-proto definitions (the protobufjs module
// pinned in package.json): span names, kinds, parents, flags, attributes and status by the MCP
// conventions, the metrics; a 503 with Retry-After retried after the wait it asks; a 400 not
// retried; a partial success counted; a full queue dropping. Then the engine's own spans of
// real calls between a client and a server of this process, exported and decoded the same way. The
// npm package is installed by scripts/npm-cache.sh. Prints SKIPPED and exits 77 when node or npm is
// missing.
#include <mcp/client.hpp>
#include <mcp/observe/otlp.hpp>
#include <mcp/observe/tracing.hpp>
#include <mcp/server.hpp>
#include <mcp/transport/memory.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "observe/otlp_sink.hpp"
#include "observe/span_node.hpp"
#include "support/subprocess.hpp"

namespace {

using namespace otlp_test;
using namespace mcp::observe;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

/// Attributes of a decoded span or point as key -> text.
std::map<std::string, std::string> attrs(const mcp::json::value& holder) {
  std::map<std::string, std::string> out;
  const auto* list = holder.as_object().if_contains("attributes");
  if (list == nullptr) return out;
  for (const auto& kv : list->as_array()) {
    const auto& v = kv.at("value").as_object();
    std::string text;
    if (const auto* s = v.if_contains("stringValue")) text = s->as_string();
    if (const auto* i = v.if_contains("intValue")) {
      text = i->is_string() ? std::string(i->as_string()) : std::to_string(i->to_number<long>());
    }
    if (const auto* b = v.if_contains("boolValue")) text = b->as_bool() ? "true" : "false";
    out[std::string(kv.at("key").as_string())] = text;
  }
  return out;
}

constexpr std::string_view remote = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

/// Spans of a call, its sampling request and a notification, and the metrics, exported in
/// `encoding` and decoded by the receiver with the official definitions.
void spans_and_metrics_decode(otlp_encoding encoding) {
  sink s({});
  ASSERT_TRUE(s.ok()) << s.log();
  auto m = make_metrics();
  auto opts = fast(s, encoding);
  opts.metrics = m;
  auto e = make_otlp_exporter(opts);
  ASSERT_TRUE(e) << e.error().message;
  auto observer = combine({make_tracer({.sink = (*e)->span_sink()}), m});

  auto call = observer->on_start({.side = kind::server,
                                  .method = "tools/call",
                                  .target = "get-weather",
                                  .request_id = "7",
                                  .protocol_version = "2025-11-25",
                                  .transport = network_transport::pipe,
                                  .remote = {remote, "rojo=00f067aa0ba902b7", ""}});
  auto sampling = observer->on_start({.side = kind::client,
                                      .method = "sampling/createMessage",
                                      .request_id = "1",
                                      .transport = network_transport::pipe,
                                      .parent = &call});
  observer->on_end(sampling, {.status = status::rpc_error, .code = -32603, .message = "no model"});
  observer->on_end(call, {.status = status::tool_error});
  auto note = observer->on_start({.side = kind::server,
                                  .method = "notifications/initialized",
                                  .transport = network_transport::pipe});
  observer->on_end(note, {});
  ASSERT_TRUE((*e)->flush(20s));
  const auto st = (*e)->stats();
  EXPECT_EQ(st.spans_exported, 3U);
  EXPECT_EQ(st.metric_exports, 1U);

  std::map<std::string, mcp::json::object> spans;
  bool metrics_seen = false;
  for (const auto& line : s.lines()) {
    ASSERT_EQ(text(line, "status"), "200") << mcp::to_json_string(line);
    ASSERT_EQ(text(line, "ok"), "true") << mcp::to_json_string(line);
    const auto& decoded = line.at("decoded");
    EXPECT_EQ(text(line, "encoding"), encoding == otlp_encoding::json ? "json" : "protobuf");
    if (line.at("path").as_string() == "/v1/metrics") {
      metrics_seen = true;
      const auto& rm = decoded.at("resourceMetrics").at(0);
      EXPECT_EQ(attrs(rm.at("resource"))["service.name"], "otlp-test");
      std::map<std::string, mcp::json::value> by_name;
      for (const auto& metric : rm.at("scopeMetrics").at(0).at("metrics").as_array()) {
        by_name[std::string(metric.at("name").as_string())] = metric;
      }
      ASSERT_TRUE(by_name.count("mcp.server.operation.duration"));
      const auto& hist = by_name["mcp.server.operation.duration"].at("histogram");
      EXPECT_EQ(hist.at("aggregationTemporality").to_number<int>(), 2);
      std::uint64_t count = 0;
      for (const auto& p : hist.at("dataPoints").as_array()) {
        count += std::stoull(text(p.as_object(), "count"));
        EXPECT_EQ(p.at("bucketCounts").as_array().size(), 15U);
      }
      EXPECT_EQ(count, 2U);                                 // tools/call and the notification
      ASSERT_TRUE(by_name.count("mcp.server.operations"));  // a counter: a monotonic sum
      const auto& ops = by_name["mcp.server.operations"].at("sum");
      EXPECT_EQ(text(ops.as_object(), "isMonotonic"), "true");
      EXPECT_EQ(text(ops.at("dataPoints").at(0).as_object(), "asInt"), "1");
      ASSERT_TRUE(by_name.count("mcp.client.operation.duration"));
      const auto& cp = by_name["mcp.client.operation.duration"].at("histogram").at("dataPoints");
      EXPECT_EQ(attrs(cp.at(0))["error.type"], "-32603");
      continue;
    }
    const auto& rs = decoded.at("resourceSpans").at(0);
    EXPECT_EQ(attrs(rs.at("resource"))["service.name"], "otlp-test");
    const auto& scope = rs.at("scopeSpans").at(0);
    EXPECT_EQ(scope.at("scope").at("name").as_string(), "mcp-cpp");
    for (const auto& sp : scope.at("spans").as_array()) {
      spans[std::string(sp.at("name").as_string())] = sp.as_object();
    }
  }
  EXPECT_TRUE(metrics_seen);
  ASSERT_EQ(spans.size(), 3U);
  const auto& server = spans.at("tools/call get-weather");
  EXPECT_EQ(text(server, "kind"), "2");
  EXPECT_EQ(text(server, "traceId"), "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_EQ(text(server, "parentSpanId"), "00f067aa0ba902b7");
  EXPECT_EQ(text(server, "traceState"), "rojo=00f067aa0ba902b7");
  EXPECT_EQ(text(server, "flags"), "769");  // 0x301: sampled, remote parent
  EXPECT_EQ(text(server, "spanId"), call.context.span_id_hex());
  auto a = attrs(server);
  EXPECT_EQ(a["mcp.method.name"], "tools/call");
  EXPECT_EQ(a["gen_ai.tool.name"], "get-weather");
  EXPECT_EQ(a["gen_ai.operation.name"], "execute_tool");
  EXPECT_EQ(a["jsonrpc.request.id"], "7");
  EXPECT_EQ(a["mcp.protocol.version"], "2025-11-25");
  EXPECT_EQ(a["network.transport"], "pipe");
  EXPECT_EQ(a["error.type"], "tool_error");
  EXPECT_EQ(text(server.at("status").as_object(), "code"), "2");
  EXPECT_GE(std::stoull(text(server, "endTimeUnixNano")),
            std::stoull(text(server, "startTimeUnixNano")));

  const auto& client = spans.at("sampling/createMessage");
  EXPECT_EQ(text(client, "kind"), "3");
  EXPECT_EQ(text(client, "traceId"), "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_EQ(text(client, "parentSpanId"), call.context.span_id_hex());
  EXPECT_EQ(text(client, "flags"), "257");  // 0x101: sampled, local parent
  a = attrs(client);
  EXPECT_EQ(a["error.type"], "-32603");
  EXPECT_EQ(a["rpc.response.status_code"], "-32603");
  EXPECT_EQ(text(client.at("status").as_object(), "message"), "no model");

  const auto& root = spans.at("notifications/initialized");
  EXPECT_EQ(text(root, "kind"), "2");
  EXPECT_EQ(text(root, "parentSpanId"), "<none>");
  EXPECT_NE(text(root, "traceId"), "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_FALSE(root.contains("status"));
  EXPECT_EQ(attrs(root).count("jsonrpc.request.id"), 0U);
  (*e)->shutdown();
}

TEST(OtlpExporter, SpansAndMetricsDecodeByTheConventions) {
  spans_and_metrics_decode(otlp_encoding::json);
}

TEST(OtlpExporter, ProtobufSpansAndMetricsDecodeByTheConventions) {
  spans_and_metrics_decode(otlp_encoding::protobuf);
}

/// The decoded spans of every request so far, by "name/kind" (kind 2 SERVER, 3 CLIENT).
std::map<std::string, mcp::json::object> decoded_spans(const sink& s) {
  std::map<std::string, mcp::json::object> out;
  for (const auto& line : s.lines()) {
    if (line.at("path").as_string() != "/v1/traces") continue;
    EXPECT_EQ(text(line, "ok"), "true") << mcp::to_json_string(line);
    for (const auto& rs : line.at("decoded").at("resourceSpans").as_array()) {
      for (const auto& ss : rs.at("scopeSpans").as_array()) {
        for (const auto& sp : ss.at("spans").as_array()) {
          const auto& o = sp.as_object();
          out[std::string(o.at("name").as_string()) + "/" + text(o, "kind")] = o;
        }
      }
    }
  }
  return out;
}

/// The engine's spans of real calls between a client and a server of this process, exported
/// in `encoding`.
void engine_spans_decode(otlp_encoding encoding) {
  sink s({});
  ASSERT_TRUE(s.ok()) << s.log();
  auto e = make_otlp_exporter(fast(s, encoding));
  ASSERT_TRUE(e) << e.error().message;
  mcp::server server({.observer = make_tracer({.sink = (*e)->span_sink()})});
  server.add_tool({.name = "add"}, [](mcp::tool_context&) { return std::string("3"); });
  server.add_tool({.name = "fail"}, [](mcp::tool_context&) -> mcp::call_tool_result {
    return {.content = {mcp::text_content("no")}, .is_error = true};
  });
  server.add_tool({.name = "ask"}, [](mcp::tool_context& ctx) -> mcp::result<std::string> {
    auto a = ctx.elicit(mcp::json::object{
        {"message", "name?"},
        {"requestedSchema",
         mcp::json::object{{"type", "object"}, {"properties", mcp::json::object{}}}}});
    if (!a) return a.error();
    return std::string("asked");
  });
  server.add_tool({.name = "slow", .task_support_mode = mcp::task_support::optional},
                  [](mcp::tool_context&) { return std::string("done"); });
  auto c = mcp::connect_in_process(
      server,
      {.capabilities = mcp::json::object{{"elicitation", mcp::json::object{}}},
       .request_handlers =
           {{"elicitation/create",
             [](const mcp::json::object&, std::stop_token) {
               return mcp::result<mcp::json::object>(mcp::json::object{{"action", "decline"}});
             }}},
       .observer = make_tracer({.sink = (*e)->span_sink()})});
  ASSERT_TRUE(c) << c.error().message;
  auto& client = *c->client;
  ASSERT_TRUE(client.call_tool("add"));
  ASSERT_TRUE(client.call_tool("fail"));
  ASSERT_FALSE(client.call_tool("nope"));
  ASSERT_TRUE(client.call_tool("ask"));
  auto task = client.call_tool_as_task("slow");
  ASSERT_TRUE(task) << task.error().message;
  ASSERT_TRUE(client.task_result(task->id));
  ASSERT_TRUE((*e)->flush(20s));
  auto spans = decoded_spans(s);

  // A call: the client's span (CLIENT) is the parent of the server's (SERVER), through _meta.
  const auto& sent = spans.at("tools/call add/3");
  const auto& served = spans.at("tools/call add/2");
  EXPECT_EQ(text(served, "traceId"), text(sent, "traceId"));
  EXPECT_EQ(text(served, "parentSpanId"), text(sent, "spanId"));
  EXPECT_EQ(text(served, "flags"), "769");  // sampled, remote parent
  auto a = attrs(served);
  EXPECT_EQ(a["gen_ai.tool.name"], "add");
  EXPECT_EQ(a["gen_ai.operation.name"], "execute_tool");
  EXPECT_EQ(a["mcp.protocol.version"], "2025-11-25");
  EXPECT_EQ(a.count("error.type"), 0U);
  EXPECT_FALSE(served.contains("status"));

  // isError: error.type tool_error, status ERROR, on both sides.
  EXPECT_EQ(attrs(spans.at("tools/call fail/2"))["error.type"], "tool_error");
  EXPECT_EQ(text(spans.at("tools/call fail/2").at("status").as_object(), "code"), "2");
  EXPECT_EQ(attrs(spans.at("tools/call fail/3"))["error.type"], "tool_error");

  // -32602: the caller's mistake, so not an error of the server; an error for the client.
  a = attrs(spans.at("tools/call nope/2"));
  EXPECT_EQ(a["rpc.response.status_code"], "-32602");
  EXPECT_EQ(a.count("error.type"), 0U);
  EXPECT_EQ(attrs(spans.at("tools/call nope/3"))["error.type"], "-32602");

  // The elicitation the handler sends is a CLIENT span under the call's SERVER span, and the
  // client's handling of it a SERVER span under that.
  const auto& call = spans.at("tools/call ask/2");
  const auto& asked = spans.at("elicitation/create/3");
  const auto& answered = spans.at("elicitation/create/2");
  EXPECT_EQ(text(asked, "traceId"), text(call, "traceId"));
  EXPECT_EQ(text(asked, "parentSpanId"), text(call, "spanId"));
  EXPECT_EQ(text(answered, "parentSpanId"), text(asked, "spanId"));
  EXPECT_EQ(text(answered, "traceId"), text(call, "traceId"));

  // A task: the task-augmented call and the tasks/result that waits for it, each a child of
  // the client's request.
  const auto& created = spans.at("tools/call slow/2");
  EXPECT_EQ(text(created, "parentSpanId"), text(spans.at("tools/call slow/3"), "spanId"));
  const auto& result = spans.at("tasks/result/2");
  EXPECT_EQ(text(result, "parentSpanId"), text(spans.at("tasks/result/3"), "spanId"));
  EXPECT_EQ(attrs(result)["mcp.method.name"], "tasks/result");
  (*e)->shutdown();
}

TEST(OtlpExporter, ProtobufSpansOfEverySizeDecode) {
  sink s({});
  ASSERT_TRUE(s.ok()) << s.log();
  auto e = make_otlp_exporter(fast(s, otlp_encoding::protobuf));
  ASSERT_TRUE(e);
  auto small = one_span();  // under 128 bytes: a one-byte length
  small->shape = make_span_shape("p", kind::client, {});
  auto large = one_span();  // over 16 KiB: a three-byte length
  large->status = span_status::error;
  large->status_message = std::string(20000, 'x');
  large->peer_address = "127.0.0.1";
  large->peer_port = 65535;
  large->request_id = std::string(300, '7');  // a two-byte length inside
  large->error_type = "-32603";
  (*e)->export_span(std::move(small));
  (*e)->export_span(std::move(large));
  (*e)->export_span(one_span());
  ASSERT_TRUE((*e)->flush(20s));
  EXPECT_EQ((*e)->stats().spans_exported, 3U);
  std::vector<mcp::json::object> spans;
  for (const auto& line : s.lines()) {
    ASSERT_EQ(text(line, "ok"), "true") << mcp::to_json_string(line).substr(0, 2000);
    for (const auto& sp : spans_of(line)) {
      spans.push_back(sp.as_object());
    }
  }
  ASSERT_EQ(spans.size(), 3U);
  EXPECT_EQ(text(spans[0], "name"), "p");
  EXPECT_EQ(text(spans[0], "kind"), "3");
  EXPECT_EQ(text(spans[1], "name"), "ping");
  EXPECT_EQ(text(spans[1].at("status").as_object(), "message").size(), 20000U);
  auto a = attrs(spans[1]);
  EXPECT_EQ(a["client.address"], "127.0.0.1");
  EXPECT_EQ(a["client.port"], "65535");
  EXPECT_EQ(a["jsonrpc.request.id"], std::string(300, '7'));
  EXPECT_EQ(a["error.type"], "-32603");
  EXPECT_EQ(text(spans[2], "name"), "ping");
  EXPECT_EQ(text(spans[2], "startTimeUnixNano"), "1");
}

TEST(OtlpExporter, TheEngineSpansOfRealCallsDecodeByTheConventions) {
  engine_spans_decode(otlp_encoding::json);
}

TEST(OtlpExporter, TheEngineSpansOfRealCallsDecodeFromProtobuf) {
  engine_spans_decode(otlp_encoding::protobuf);
}

/// A tracer on the exporter's own sink queues the records it wrote, and the exporter gives the
/// sent ones back for later spans: spans that reuse them (of another shape, without a parent,
/// trace state, address, URI or error) must carry nothing over from the spans before.
void reused_records_carry_nothing_over(otlp_encoding encoding) {
  sink s({});
  ASSERT_TRUE(s.ok()) << s.log();
  auto e = make_otlp_exporter(fast(s, encoding));
  ASSERT_TRUE(e) << e.error().message;
  auto tracer = make_tracer({.sink = (*e)->span_sink()});
  constexpr int n = 40;
  std::set<const void*> first_records;  // where the first round's records were written
  for (int i = 0; i < n; ++i) {
    auto sp = tracer->on_start({.side = kind::server,
                                .method = "resources/read",
                                .request_id = "a-long-request-id-of-the-first-round",
                                .resource_uri = "file:///first/round",
                                .session_id = "session-of-the-first-round",
                                .transport = network_transport::tcp,
                                .peer_address = "10.1.2.3",
                                .peer_port = 4567,
                                .remote = {remote, "rojo=00f067aa0ba902b7", ""}});
    first_records.insert(sp.state.get());
    tracer->on_end(sp, {.status = status::rpc_error, .code = -32603, .message = "boom"});
  }
  ASSERT_TRUE((*e)->flush(20s));
  int reused = 0;
  for (int i = 0; i < n; ++i) {  // one at a time, each in a record the first round used
    auto sp = tracer->on_start({.side = kind::client,
                                .method = "notifications/initialized",
                                .transport = network_transport::pipe});
    reused += first_records.count(sp.state.get()) != 0 ? 1 : 0;
    tracer->on_end(sp, {});
    if (i == 0) {  // sent records are back on this thread (not only the addresses malloc reuses)
      const auto* spare = mcp::observe::detail::spare_records();
      ASSERT_NE(spare, nullptr);
      EXPECT_GT(spare->size(), 0U);
    }
  }
  // The sent records came back to this thread: most of the second round was written in them
  // (the first of it may take a new one, before its queuing brings the sent ones back).
  EXPECT_GE(reused, n / 2);
  (*e)->export_span(one_span());  // a record from elsewhere, queued by pointer too
  ASSERT_TRUE((*e)->flush(20s));
  EXPECT_EQ((*e)->stats().spans_exported, 2U * n + 1);
  int first = 0;
  int later = 0;
  for (const auto& line : s.lines()) {
    ASSERT_EQ(text(line, "ok"), "true") << mcp::to_json_string(line).substr(0, 2000);
    for (const auto& sp : spans_of(line)) {
      const auto& o = sp.as_object();
      const auto a = attrs(o);
      if (o.at("name").as_string() == "resources/read") {
        ++first;
        EXPECT_EQ(a.at("mcp.resource.uri"), "file:///first/round");
        EXPECT_EQ(a.at("client.address"), "10.1.2.3");
        EXPECT_EQ(a.at("error.type"), "-32603");
        EXPECT_EQ(text(o, "parentSpanId"), "00f067aa0ba902b7");
        continue;
      }
      ++later;
      EXPECT_EQ(text(o, "parentSpanId"), "<none>");
      EXPECT_EQ(text(o, "traceState"), "<none>");
      EXPECT_FALSE(o.contains("status"));
      for (const auto* key :
           {"jsonrpc.request.id", "mcp.session.id", "client.address", "client.port",
            "mcp.resource.uri", "error.type", "rpc.response.status_code"}) {
        EXPECT_EQ(a.count(key), 0U) << key << " in " << mcp::to_json_string(o);
      }
      if (o.at("name").as_string() == "ping") continue;
      EXPECT_EQ(text(o, "name"), "notifications/initialized");
      EXPECT_EQ(text(o, "kind"), "3");
      EXPECT_EQ(text(o, "flags"), "257");  // sampled, a root: no remote parent
    }
  }
  EXPECT_EQ(first, n);
  EXPECT_EQ(later, n + 1);
  (*e)->shutdown();
}

TEST(OtlpExporter, ReusedRecordsCarryNothingOver) {
  reused_records_carry_nothing_over(otlp_encoding::json);
}

TEST(OtlpExporter, ReusedRecordsCarryNothingOverInProtobuf) {
  reused_records_carry_nothing_over(otlp_encoding::protobuf);
}

TEST(OtlpExporter, A503WithRetryAfterIsRetriedAfterThatWait) {
  sink s({"FAIL_FIRST=1", "FAIL_STATUS=503", "RETRY_AFTER=1"});
  ASSERT_TRUE(s.ok()) << s.log();
  auto e = make_otlp_exporter(fast(s));
  ASSERT_TRUE(e);
  (*e)->export_span(one_span());
  ASSERT_TRUE((*e)->flush(20s));
  const auto lines = s.lines();
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(text(lines[0], "status"), "503");
  EXPECT_EQ(text(lines[1], "status"), "200");
  EXPECT_EQ(text(lines[1], "ok"), "true");
  const auto waited = lines[1].at("t").to_number<long>() - lines[0].at("t").to_number<long>();
  EXPECT_GE(waited, 950) << "Retry-After: 1 was not honoured";
  EXPECT_EQ(lines[1].at("conn"), lines[0].at("conn")) << "the retry came on a new connection";
  const auto st = (*e)->stats();
  EXPECT_EQ(st.requests, 2U);
  EXPECT_EQ(st.retries, 1U);
  EXPECT_EQ(st.spans_exported, 1U);
  EXPECT_EQ(st.spans_failed, 0U);
}

TEST(OtlpExporter, A429WithoutRetryAfterBacksOffExponentially) {
  sink s({"FAIL_FIRST=2", "FAIL_STATUS=429"});
  ASSERT_TRUE(s.ok()) << s.log();
  auto e = make_otlp_exporter(fast(s));
  ASSERT_TRUE(e);
  (*e)->export_span(one_span());
  ASSERT_TRUE((*e)->flush(20s));
  const auto lines = s.lines();
  ASSERT_EQ(lines.size(), 3U);
  EXPECT_EQ(text(lines[2], "status"), "200");
  const auto t = [&](std::size_t i) { return lines[i].at("t").to_number<long>(); };
  EXPECT_GE(t(1) - t(0), 20);  // 50 ms with jitter down to half
  EXPECT_GE(t(2) - t(1), 45);  // 100 ms, likewise
  EXPECT_EQ((*e)->stats().retries, 2U);
  EXPECT_EQ((*e)->stats().spans_exported, 1U);
}

TEST(OtlpExporter, ANullSpanIsIgnored) {
  sink s({});
  ASSERT_TRUE(s.ok()) << s.log();
  auto e = make_otlp_exporter(fast(s));
  ASSERT_TRUE(e);
  (*e)->export_span(nullptr);
  (*e)->span_sink()(nullptr);
  (*e)->export_span(one_span());
  ASSERT_TRUE((*e)->flush(20s));
  const auto st = (*e)->stats();
  EXPECT_EQ(st.spans_exported, 1U);
  EXPECT_EQ(st.spans_dropped, 0U);
  EXPECT_EQ(st.spans_failed, 0U);
}

TEST(OtlpExporter, A400IsNotRetried) {
  sink s({"FAIL_FIRST=5", "FAIL_STATUS=400"});
  ASSERT_TRUE(s.ok()) << s.log();
  auto e = make_otlp_exporter(fast(s));
  ASSERT_TRUE(e);
  (*e)->export_span(one_span());
  (*e)->export_span(one_span());
  ASSERT_TRUE((*e)->flush(20s));
  EXPECT_EQ(s.lines().size(), 1U);
  const auto st = (*e)->stats();
  EXPECT_EQ(st.requests, 1U);
  EXPECT_EQ(st.retries, 0U);
  EXPECT_EQ(st.spans_failed, 2U);
}

TEST(OtlpExporter, APartialSuccessCountsTheRejected) {
  for (const auto encoding : {otlp_encoding::json, otlp_encoding::protobuf}) {
    sink s({"PARTIAL=1"});
    ASSERT_TRUE(s.ok()) << s.log();
    auto e = make_otlp_exporter(fast(s, encoding));  // the answer comes in the request's encoding
    ASSERT_TRUE(e);
    for (int i = 0; i < 3; ++i) (*e)->export_span(one_span());
    ASSERT_TRUE((*e)->flush(20s));
    const auto st = (*e)->stats();
    EXPECT_EQ(st.requests, 1U);
    EXPECT_EQ(st.spans_exported, 2U);
    EXPECT_EQ(st.spans_failed, 1U);
  }
}

TEST(OtlpExporter, AFullQueueDropsWhatDoesNotFitAndSendsTheRest) {
  sink s({});
  ASSERT_TRUE(s.ok()) << s.log();
  auto opts = fast(s);
  opts.max_queue = 4;
  opts.max_batch = 100;  // never reached: the thread waits for the flush
  opts.batch_delay = std::chrono::hours(1);
  auto e = make_otlp_exporter(opts);
  ASSERT_TRUE(e);
  for (int i = 0; i < 20; ++i) (*e)->export_span(one_span());
  EXPECT_EQ((*e)->stats().spans_dropped, 16U);
  ASSERT_TRUE((*e)->flush(20s));
  EXPECT_EQ((*e)->stats().spans_exported, 4U);
  const auto lines = s.lines();
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_EQ(text(lines[0], "ok"), "true");
  EXPECT_EQ(spans_of(lines[0]).size(), 4U);
}

TEST(OtlpExporter, RequestsCarryAtMostABatch) {
  sink s({});
  ASSERT_TRUE(s.ok()) << s.log();
  auto opts = fast(s);
  opts.max_batch = 3;
  opts.batch_delay = std::chrono::hours(1);
  auto e = make_otlp_exporter(opts);
  ASSERT_TRUE(e);
  for (int i = 0; i < 7; ++i) (*e)->export_span(one_span());
  ASSERT_TRUE((*e)->flush(20s));
  EXPECT_EQ((*e)->stats().spans_exported, 7U);
  std::uint64_t received = 0;
  const auto lines = s.lines();
  EXPECT_GE(lines.size(), 3U);
  for (const auto& line : lines) {
    EXPECT_EQ(text(line, "ok"), "true");
    const auto& spans = spans_of(line);
    EXPECT_LE(spans.size(), 3U);
    received += spans.size();
  }
  EXPECT_EQ(received, 7U);
}

}  // namespace

int main(int argc, char** argv) {
  if (std::system("command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1") != 0) {
    std::puts("SKIPPED: node or npm not found");
    return 77;
  }
  mcp::test::subprocess install(
      {"/bin/bash", MCP_SOURCE_DIR "/scripts/npm-cache.sh", MCP_SOURCE_DIR "/tests/observe"});
  const auto dir = install.read_line(std::chrono::seconds(600));
  if (install.wait(std::chrono::seconds(60)) != 0 || !dir) {
    std::fprintf(stderr, "npm install failed: %s\n", install.drain_stderr().c_str());
    return 1;
  }
  otlp_test::node_modules = *dir + "/node_modules";
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
