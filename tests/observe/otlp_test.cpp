// OTLP/JSON bodies and the exporter's parts that need no collector (mcp/observe/otlp.hpp): the
// trace and metrics encodings (parsed back and checked field by field), the protobuf message's
// length bound (spans written while it fits), Retry-After, the
// options it refuses, and dropping when the queue is full. The exchange with a collector is in
// otlp_exporter_test.cpp.
#include <mcp/observe/otlp.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "observe/otlp_decoded.hpp"
#include "observe/span_shapes.hpp"

namespace {

using namespace mcp::observe;

span_record sample_span() {
  span_record r;
  r.shape = make_span_shape("tools/call get-weather", kind::server,
                            {{attr::method_name, std::string("tools/call")}});
  r.context = *parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  r.context.trace_state = "rojo=1";
  r.parent_span_id = {1, 2, 3, 4, 5, 6, 7, 8};
  r.parent_remote = true;
  r.start_unix_ns = 1767225600000000000ULL;
  r.end_unix_ns = 1767225600012345678ULL;
  r.peer_address = "10.0.0.7";
  r.peer_port = 51234;
  r.status = span_status::error;
  r.status_message = "boom \"quoted\"";
  return r;
}

/// Lower-case hex of `bytes`, two digits a byte (the reference the encoder is checked against).
template <std::size_t N>
std::string hex_of(const std::array<std::uint8_t, N>& bytes) {
  std::string out;
  for (const auto b : bytes) {
    constexpr std::string_view digits = "0123456789abcdef";
    out += digits[b >> 4U];
    out += digits[b & 0xFU];
  }
  return out;
}

TEST(OtlpJson, IdsOfEveryByteValueAreLowerCaseHex) {
  std::vector<span_record> spans(16);
  for (std::size_t i = 0; i < spans.size(); ++i) {  // trace ids: 0 to 255; span ids: 255 to 128
    for (std::size_t j = 0; j < 16; ++j) {
      spans[i].context.trace_id[j] = static_cast<std::uint8_t>(16 * i + j);
    }
    for (std::size_t j = 0; j < 8; ++j) {
      spans[i].context.span_id[j] = static_cast<std::uint8_t>(255 - 8 * i - j);
      spans[i].parent_span_id[j] = static_cast<std::uint8_t>(8 * i + j + 1);
    }
  }
  std::string body;
  write_otlp_traces(spans, {}, body);
  auto v = mcp::parse_json(body);
  ASSERT_TRUE(v) << body;
  const auto& out = otlp_test::spans_in(*v);
  ASSERT_EQ(out.size(), spans.size());
  for (std::size_t i = 0; i < spans.size(); ++i) {
    EXPECT_EQ(out[i].at("traceId").as_string(), hex_of(spans[i].context.trace_id));
    EXPECT_EQ(out[i].at("spanId").as_string(), hex_of(spans[i].context.span_id));
    EXPECT_EQ(out[i].at("parentSpanId").as_string(), hex_of(spans[i].parent_span_id));
  }
}

TEST(OtlpJson, Traces) {
  std::string body;
  const std::vector<span_record> spans{sample_span()};
  write_otlp_traces(spans, {{"service.name", "weather"}}, body);
  auto v = mcp::parse_json(body);
  ASSERT_TRUE(v) << body;
  const auto& rs = v->at("resourceSpans").at(0);
  EXPECT_EQ(rs.at("resource").at("attributes").at(0).at("key").as_string(), "service.name");
  EXPECT_EQ(rs.at("resource").at("attributes").at(0).at("value").at("stringValue").as_string(),
            "weather");
  const auto& scope = rs.at("scopeSpans").at(0);
  EXPECT_EQ(scope.at("scope").at("name").as_string(), "mcp-cpp");
  const auto& s = scope.at("spans").at(0).as_object();
  EXPECT_EQ(s.at("traceId").as_string(), "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_EQ(s.at("spanId").as_string(), "00f067aa0ba902b7");
  EXPECT_EQ(s.at("parentSpanId").as_string(), "0102030405060708");
  EXPECT_EQ(s.at("traceState").as_string(), "rojo=1");
  EXPECT_EQ(s.at("flags").as_int64(), 0x301);  // sampled, parent known to be remote
  EXPECT_EQ(s.at("kind").as_int64(), 2);       // SERVER
  EXPECT_EQ(s.at("startTimeUnixNano").as_string(), "1767225600000000000");
  EXPECT_EQ(s.at("endTimeUnixNano").as_string(), "1767225600012345678");
  const auto& attrs = s.at("attributes").as_array();
  ASSERT_EQ(attrs.size(), 3U);  // the shape's, then the call's own
  EXPECT_EQ(attrs.at(0).at("key").as_string(), "mcp.method.name");
  EXPECT_EQ(attrs.at(0).at("value").at("stringValue").as_string(), "tools/call");
  EXPECT_EQ(attrs.at(1).at("key").as_string(), "client.address");
  EXPECT_EQ(attrs.at(1).at("value").at("stringValue").as_string(), "10.0.0.7");
  EXPECT_EQ(attrs.at(2).at("key").as_string(), "client.port");
  EXPECT_EQ(attrs.at(2).at("value").at("intValue").as_string(), "51234");
  EXPECT_EQ(s.at("name").as_string(), "tools/call get-weather");
  EXPECT_EQ(s.at("status").at("code").as_int64(), 2);
  EXPECT_EQ(s.at("status").at("message").as_string(), "boom \"quoted\"");
}

TEST(OtlpJson, RootClientSpanWithoutStatusOrState) {
  auto r = sample_span();
  r.shape = make_span_shape("ping", kind::client, {});
  r.peer_address.clear();
  r.parent_span_id = {};
  r.parent_remote = false;
  r.context.trace_state.clear();
  r.status = span_status::unset;
  std::string body;
  const std::vector<span_record> both{r, r};
  write_otlp_traces(both, {}, body);
  auto v = mcp::parse_json(body);
  ASSERT_TRUE(v) << body;
  const auto& spans = otlp_test::spans_in(*v);
  ASSERT_EQ(spans.size(), 2U);
  const auto& s = spans[0].as_object();
  EXPECT_FALSE(s.contains("parentSpanId"));
  EXPECT_FALSE(s.contains("traceState"));
  EXPECT_FALSE(s.contains("status"));
  EXPECT_EQ(s.at("kind").as_int64(), 3);  // CLIENT
  EXPECT_EQ(s.at("flags").as_int64(), 0x101);
  EXPECT_FALSE(s.contains("attributes"));  // none at all: left out
}

TEST(OtlpJson, ManySpansOfLongAndEscapedTextsAreWrittenWhole) {
  // Spans of every text part, long (past the room made at a time) and needing escapes or not,
  // many in one body: each parsed back to its exact texts.
  std::vector<span_record> spans;
  for (std::size_t i = 0; i < 40; ++i) {
    span_record r = sample_span();
    const std::string t = std::string(i * 97, i % 3 == 0 ? '"' : 'x') + std::to_string(i) +
                          (i % 2 == 0 ? "\u00e9\n" : "");
    r.context.trace_state = t;
    r.request_id = i % 4 == 0 ? mcp::jsonrpc::request_id(static_cast<std::int64_t>(i) - 20)
                              : mcp::jsonrpc::request_id("r" + t);
    r.session_id = "s" + t;
    r.peer_address = "a" + t;
    r.peer_port = static_cast<std::uint16_t>(i * 1600);
    r.resource_uri = "u" + t;
    r.error_type = "e" + t;
    r.status_code = "c" + t;
    r.status_message = "m" + t;
    spans.push_back(std::move(r));
  }
  std::string body;
  write_otlp_traces(spans, {}, body);
  auto v = mcp::parse_json(body);
  ASSERT_TRUE(v) << body.substr(0, 2000);
  const auto& out = otlp_test::spans_in(*v);
  ASSERT_EQ(out.size(), spans.size());
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const auto& r = spans[i];
    const auto& s = out[i].as_object();
    EXPECT_EQ(s.at("traceState").as_string(), r.context.trace_state) << i;
    EXPECT_EQ(s.at("status").at("message").as_string(), r.status_message) << i;
    std::map<std::string, std::string> a;
    for (const auto& kv : s.at("attributes").as_array()) {
      const auto& value = kv.at("value").as_object();
      const auto* text = value.if_contains("stringValue");
      a[std::string(kv.at("key").as_string())] =
          text != nullptr ? text->as_string() : value.at("intValue").as_string();
    }
    const auto* n = std::get_if<std::int64_t>(&r.request_id);
    EXPECT_EQ(a["jsonrpc.request.id"],
              n != nullptr ? std::to_string(*n) : std::get<std::string>(r.request_id));
    EXPECT_EQ(a["mcp.session.id"], r.session_id);
    EXPECT_EQ(a["client.address"], r.peer_address);
    if (r.peer_port != 0) {
      EXPECT_EQ(a["client.port"], std::to_string(r.peer_port));
    } else {
      EXPECT_EQ(a.count("client.port"), 0U);
    }
    EXPECT_EQ(a["mcp.resource.uri"], r.resource_uri);
    EXPECT_EQ(a["error.type"], r.error_type);
    EXPECT_EQ(a["rpc.response.status_code"], r.status_code);
    EXPECT_EQ(a.size(), r.peer_port != 0 ? 8U : 7U) << i;  // the shape's method name too
  }
}

TEST(OtlpJson, CallTextsOfEveryLengthAreEscapedWhereTheyNeedIt) {
  // A character needing an escape (or none) at each place of texts of 1 to 19 bytes: in the
  // blocks of 8 tested at once and in the few after them.
  for (std::size_t n = 1; n < 20; ++n) {
    for (std::size_t at = 0; at <= n; ++at) {
      for (const char c : {'"', '\\', '\n', '\x7f'}) {
        span_record r = sample_span();
        std::string id(n, 'a');
        if (at < n) id[at] = c;
        r.request_id = id;
        std::string body;
        write_otlp_traces(std::vector<span_record>{r}, {}, body);
        auto v = mcp::parse_json(body);
        ASSERT_TRUE(v) << body;
        const auto& attrs = otlp_test::spans_in(*v).at(0).at("attributes");
        EXPECT_EQ(attrs.at(1).at("key").as_string(), "jsonrpc.request.id");
        EXPECT_EQ(attrs.at(1).at("value").at("stringValue").as_string(), id) << body;
      }
    }
  }
}

/// Every digit of the ids' hex and the times' decimals, around the eight-digit steps the writer
/// takes, parsed back against what the standard library writes.
TEST(OtlpJson, IdsAndTimesOfEveryDigitAreWrittenExactly) {
  const std::uint64_t times[] = {0,
                                 7,
                                 10,
                                 99'999'999,
                                 100'000'000,
                                 100'000'001,
                                 9'999'999'999'999'999,
                                 10'000'000'000'000'000,
                                 1'767'225'600'012'345'678,
                                 10'000'000'000'000'000'000ULL,
                                 18'446'744'073'709'551'615ULL};
  constexpr std::string_view hex_digits = "0123456789abcdef";
  for (std::size_t k = 0; k < std::size(times); ++k) {
    auto r = sample_span();
    r.start_unix_ns = times[k];
    r.end_unix_ns = times[k];
    std::string expected_trace;
    for (std::size_t i = 0; i < r.context.trace_id.size(); ++i) {
      r.context.trace_id[i] = static_cast<std::uint8_t>(17 * i + 29 * k + 1);  // every nibble
      expected_trace += hex_digits[r.context.trace_id[i] >> 4U];
      expected_trace += hex_digits[r.context.trace_id[i] & 0xFU];
    }
    std::string body;
    write_otlp_traces(std::vector<span_record>{r}, {}, body);
    auto v = mcp::parse_json(body);
    ASSERT_TRUE(v) << body;
    const auto& s = otlp_test::spans_in(*v).at(0);
    EXPECT_EQ(s.at("startTimeUnixNano").as_string(), std::to_string(times[k]));
    EXPECT_EQ(s.at("endTimeUnixNano").as_string(), std::to_string(times[k]));
    EXPECT_EQ(s.at("traceId").as_string(), expected_trace);
    EXPECT_EQ(s.at("spanId").as_string(), "00f067aa0ba902b7");
  }
}

TEST(OtlpJson, EndTimesBesideTheirStartAreWrittenExactly) {
  // An end time sharing all but its last eight digits with the start is written from the
  // start's; every other is written whole: both around each step of the digits.
  const std::uint64_t starts[] = {0,
                                  99'999'999,
                                  100'000'000,
                                  199'999'999,
                                  999'999'999,
                                  1'767'225'600'012'345'678,
                                  1'767'225'600'099'999'999,
                                  9'999'999'999'999'999'999ULL,
                                  18'446'744'073'609'551'615ULL};
  for (const auto start : starts) {
    const std::uint64_t window_end = start - start % 100'000'000 + 99'999'999;
    for (const std::uint64_t end :
         {start, start + 1, window_end, window_end + 1, start + 100'000'000, start * 10 + 3,
          std::uint64_t{18'446'744'073'709'551'615ULL}}) {
      if (end < start) continue;  // past 2^64
      auto r = sample_span();
      r.start_unix_ns = start;
      r.end_unix_ns = end;
      std::string body;
      write_otlp_traces(std::vector<span_record>{r}, {}, body);
      auto v = mcp::parse_json(body);
      ASSERT_TRUE(v) << body;
      const auto& s = otlp_test::spans_in(*v).at(0);
      EXPECT_EQ(s.at("startTimeUnixNano").as_string(), std::to_string(start));
      EXPECT_EQ(s.at("endTimeUnixNano").as_string(), std::to_string(end)) << start;
      EXPECT_EQ(s.at("attributes").at(0).at("key").as_string(), "mcp.method.name");
    }
  }
}

TEST(OtlpJson, FlagsOfEveryW3cValueAndParentAreWrittenExactly) {
  for (unsigned w3c = 0; w3c < 256; ++w3c) {
    for (const bool remote : {false, true}) {
      auto r = sample_span();
      r.context.flags = static_cast<std::uint8_t>(w3c);
      r.parent_remote = remote;
      std::string body;
      write_otlp_traces(std::vector<span_record>{r}, {}, body);
      auto v = mcp::parse_json(body);
      ASSERT_TRUE(v) << body;
      const auto& s = otlp_test::spans_in(*v).at(0);
      EXPECT_EQ(s.at("flags").as_int64(), (w3c | 0x100U | (remote ? 0x200U : 0U))) << body;
    }
  }
}

TEST(OtlpJson, Metrics) {
  auto m = make_metrics();
  m->record({.method = "tools/call", .target = "t"}, {}, 0.015);
  m->record({.method = "tools/call", .target = "t"}, {}, 0.5);
  m->on_stream(kind::server, 1);
  std::string body;
  write_otlp_metrics(m->snapshot(), {{"service.name", "x"}}, body);
  auto v = mcp::parse_json(body);
  ASSERT_TRUE(v) << body;
  const auto& metrics = v->at("resourceMetrics").at(0).at("scopeMetrics").at(0).at("metrics");
  const auto& h = metrics.at(0).as_object();
  EXPECT_EQ(h.at("name").as_string(), "mcp.server.operation.duration");
  EXPECT_EQ(h.at("unit").as_string(), "s");
  const auto& hist = h.at("histogram").as_object();
  EXPECT_EQ(hist.at("aggregationTemporality").as_int64(), 2);
  const auto& p = hist.at("dataPoints").at(0).as_object();
  EXPECT_EQ(p.at("count").as_string(), "2");
  EXPECT_DOUBLE_EQ(p.at("sum").to_number<double>(), 0.515);
  EXPECT_EQ(p.at("bucketCounts").as_array().size(), 15U);
  EXPECT_EQ(p.at("bucketCounts").at(1).as_string(), "1");
  EXPECT_EQ(p.at("bucketCounts").at(5).as_string(), "1");
  EXPECT_EQ(p.at("explicitBounds").as_array().size(), 14U);
  EXPECT_DOUBLE_EQ(p.at("explicitBounds").at(13).to_number<double>(), 300);
  const auto& ops = metrics.at(1).as_object();
  EXPECT_EQ(ops.at("name").as_string(), "mcp.server.operations");
  EXPECT_TRUE(ops.at("sum").at("isMonotonic").as_bool());
  EXPECT_EQ(ops.at("sum").at("dataPoints").at(0).at("asInt").as_string(), "2");
  const auto& streams = metrics.at(2).as_object();
  EXPECT_EQ(streams.at("name").as_string(), "mcp.server.active_streams");
  EXPECT_FALSE(streams.at("sum").as_object().contains("isMonotonic"));  // false is the default
}

TEST(RetryAfter, SecondsAndHttpDates) {
  const auto now = std::chrono::system_clock::from_time_t(784111777);  // Sun, 06 Nov 1994 08:49:37
  EXPECT_EQ(parse_retry_after("1", now), std::chrono::seconds(1));
  EXPECT_EQ(parse_retry_after(" 120 ", now), std::chrono::seconds(120));
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:47 GMT", now), std::chrono::seconds(10));
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:00 GMT", now), std::chrono::seconds(0));
  EXPECT_EQ(parse_retry_after("99999999999999999999", now), std::chrono::seconds(999'999'999));
  // Past the clock's range in nanoseconds (found by the otlp_answer fuzz target): the cap.
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 9194 08:49:37 GMT", now),
            std::chrono::seconds(999'999'999));
  for (const std::string_view bad :
       {"", "-1", "1.5", "soon", "Sun, 06 Xyz 1994 08:49:47 GMT", "Sun, 06 Nov 1994 08:49:47 UTC",
        "Sun, 6 Nov 1994 08:49:47 GMT"}) {
    EXPECT_FALSE(parse_retry_after(bad, now)) << bad;
  }
}

TEST(Exporter, RefusesBadEndpointsAndLimits) {
  EXPECT_FALSE(make_otlp_exporter({.endpoint = "ftp://x"}));
  EXPECT_FALSE(make_otlp_exporter({.endpoint = "not a url"}));
  EXPECT_FALSE(make_otlp_exporter({.endpoint = "http://127.0.0.1:99999"}));
  EXPECT_FALSE(make_otlp_exporter({.endpoint = "http://127.0.0.1:4318", .max_queue = 0}));
}

/// The OTLP variables unset for a test's life, each given back its value at the end (also when an
/// assertion ends the test early).
class otel_variables {
 public:
  otel_variables() {
    for (const char* v : names) {
      const char* was = std::getenv(v);
      saved_.emplace_back(v, was == nullptr ? std::nullopt : std::optional<std::string>(was));
      ::unsetenv(v);
    }
  }
  ~otel_variables() {
    for (const auto& [name, value] : saved_) {
      if (value) {
        ::setenv(name, value->c_str(), 1);
      } else {
        ::unsetenv(name);
      }
    }
  }
  otel_variables(const otel_variables&) = delete;
  otel_variables& operator=(const otel_variables&) = delete;
  static void set(const char* name, const char* value) { ::setenv(name, value, 1); }

 private:
  static constexpr const char* names[] = {
      "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
      "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "OTEL_BSP_MAX_QUEUE_SIZE",
      "OTEL_BSP_MAX_EXPORT_BATCH_SIZE"};
  std::vector<std::pair<const char*, std::optional<std::string>>> saved_;
};

// Protobuf by default, as OpenTelemetry's OTLP exporters; the variables choose per signal, the
// common one where a signal's own is unset, and a bad value is reported and leaves the rest.
TEST(Exporter, OpenTelemetrysEnvironmentChoosesTheProtocolsAndSizes) {
  const otel_variables env;
  otlp_options o;
  EXPECT_EQ(o.traces_encoding, otlp_encoding::protobuf);
  EXPECT_EQ(o.metrics_encoding, otlp_encoding::protobuf);
  EXPECT_TRUE(apply_otel_environment(o).empty());
  EXPECT_EQ(o.traces_encoding, otlp_encoding::protobuf);
  EXPECT_EQ(o.max_queue, 2048U);

  otel_variables::set("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json");  // both signals
  EXPECT_TRUE(apply_otel_environment(o).empty());
  EXPECT_EQ(o.traces_encoding, otlp_encoding::json);
  EXPECT_EQ(o.metrics_encoding, otlp_encoding::json);

  otel_variables::set("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "http/protobuf");  // its own first
  otel_variables::set("OTEL_BSP_MAX_QUEUE_SIZE", "100");
  otel_variables::set("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "0");
  auto ignored = apply_otel_environment(o);
  EXPECT_EQ(o.traces_encoding, otlp_encoding::json);
  EXPECT_EQ(o.metrics_encoding, otlp_encoding::protobuf);
  EXPECT_EQ(o.max_queue, 100U);
  EXPECT_EQ(o.max_batch, 512U);
  EXPECT_EQ(ignored, std::vector<std::string>{
                         "OTEL_BSP_MAX_EXPORT_BATCH_SIZE=0 ignored (not a positive number)"});

  otel_variables::set("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "grpc");
  ignored = apply_otel_environment(o);
  EXPECT_EQ(o.traces_encoding, otlp_encoding::json);  // unchanged
  EXPECT_EQ(ignored, (std::vector<std::string>{
                         "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc ignored (http/protobuf or "
                         "http/json)",
                         "OTEL_BSP_MAX_EXPORT_BATCH_SIZE=0 ignored (not a positive number)"}));
}

TEST(Exporter, AFullQueueDropsAndCountsWithoutBlocking) {
  // Nothing listens on port 9 of 127.0.0.1 (discard): the spans that were queued fail.
  auto e = make_otlp_exporter({.endpoint = "http://127.0.0.1:9",
                               .max_queue = 4,
                               .max_batch = 100,
                               .batch_delay = std::chrono::hours(1),
                               .timeout = std::chrono::milliseconds(500),
                               .max_attempts = 1});
  ASSERT_TRUE(e) << e.error().message;
  auto sink = (*e)->span_sink();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 10; ++i) sink(std::make_unique<span_record>(sample_span()));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(100));
  EXPECT_EQ((*e)->stats().spans_dropped, 6U);
  (*e)->shutdown(std::chrono::seconds(5));
  const auto st = (*e)->stats();
  EXPECT_EQ(st.spans_failed, 4U);
  EXPECT_EQ(st.spans_exported, 0U);
  EXPECT_EQ(st.requests, 1U);
  sink(std::make_unique<span_record>(sample_span()));  // after shutdown: dropped
  EXPECT_EQ((*e)->stats().spans_dropped, 7U);
}

/// A varint at `at` of `body` (its five-byte form included).
std::uint64_t varint_at(const std::string& body, std::size_t at) {
  std::uint64_t v = 0;
  for (unsigned shift = 0; at < body.size(); shift += 7U) {
    const auto b = static_cast<unsigned char>(body[at++]);
    v |= static_cast<std::uint64_t>(b & 0x7FU) << shift;
    if ((b & 0x80U) == 0) break;
  }
  return v;
}

TEST(OtlpProtobuf, SpansAreWrittenWhileTheMessageStaysWithinItsLengthBound) {
  const std::vector<span_record> spans{sample_span(), sample_span(), sample_span()};
  const resource_attributes resource{{"service.name", "weather"}};
  // The whole batch under the public bound; the ResourceSpans length (after the field's tag,
  // in five bytes) is the rest of the body.
  std::string all;
  ASSERT_EQ(write_otlp_traces_protobuf(spans, resource, all), 3U);
  ASSERT_GT(all.size(), 6U);
  const std::uint64_t length = all.size() - 6;
  EXPECT_EQ(varint_at(all, 1), length);
  std::string one;
  ASSERT_EQ(detail::write_otlp_traces_protobuf_within(std::span(spans).first(1), resource, one,
                                                      otlp_protobuf_max_length),
            1U);
  const std::uint64_t per_span = (all.size() - one.size()) / 2;
  // At the bound: all three; one byte under: the third waits for another request, and the
  // message is the one of two spans, its lengths filled in for them.
  std::string at_bound = "kept";
  EXPECT_EQ(detail::write_otlp_traces_protobuf_within(spans, resource, at_bound, length), 3U);
  EXPECT_EQ(at_bound, "kept" + all);
  std::string under;
  EXPECT_EQ(detail::write_otlp_traces_protobuf_within(spans, resource, under, length - 1), 2U);
  std::string two;
  ASSERT_EQ(write_otlp_traces_protobuf(std::span(spans).first(2), resource, two), 2U);
  EXPECT_EQ(under, two);
  EXPECT_EQ(varint_at(under, 1), length - per_span);
  // Not even one span fits: nothing is written.
  std::string none = "kept";
  EXPECT_EQ(detail::write_otlp_traces_protobuf_within(spans, resource, none, one.size() - 7), 0U);
  EXPECT_EQ(none, "kept");
  // The largest length five bytes hold: 2^35 - 1.
  EXPECT_EQ(otlp_protobuf_max_length, (std::uint64_t{1} << 35U) - 1);
}

}  // namespace
