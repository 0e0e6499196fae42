// W3C trace context from a peer's `_meta` and what we make of it: the input is tried as a
// traceparent, a tracestate and a baggage value (each accepted value must parse again the same),
// then as a `_meta` object whose carrier parents a span that is injected into an outgoing
// `_meta` (which must parse back), and as a tool name in the Prometheus text (every line must
// still be a comment or a sample of ours).
#include <mcp/observe/metrics.hpp>
#include <mcp/observe/tracing.hpp>

#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {

void require(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace o = mcp::observe;
  const std::string_view in(reinterpret_cast<const char*>(data), size);

  if (auto c = o::parse_traceparent(in)) {
    require(c->valid());
    const auto text = c->traceparent();
    auto again = o::parse_traceparent(text);
    require(again && again->trace_id == c->trace_id && again->span_id == c->span_id &&
            again->flags == c->flags);
    if (in.substr(0, 2) == "00") require(text == in);
  }
  if (auto ts = o::parse_tracestate(in)) {
    require(ts->size() <= o::max_tracestate_bytes);
    auto again = o::parse_tracestate(*ts);
    require(again && *again == *ts);
  }
  if (auto b = o::parse_baggage(in)) {
    require(b->size() <= o::max_baggage_bytes);
    require(o::parse_baggage(*b).has_value());
  }

  if (auto meta = mcp::parse_json(in, {.max_size = 1 << 16, .max_depth = 16});
      meta && meta->is_object()) {
    auto tracer = o::make_tracer({.sink = [](std::unique_ptr<o::span_record>) {}});
    auto s = tracer->on_start(
        {.method = "tools/call", .target = "t", .remote = o::extract(&meta->as_object())});
    mcp::json::object out;
    tracer->inject(s, out);
    require(o::parse_traceparent(out.at("traceparent").as_string()).has_value());
    if (const auto* ts = out.if_contains("tracestate")) {
      require(o::parse_tracestate(ts->as_string()).has_value());
    }
    if (const auto* b = out.if_contains("baggage")) {
      require(o::parse_baggage(b->as_string()).has_value());
    }
    tracer->on_end(s, {});
  }

  auto m = o::make_metrics();
  m->record({.method = "tools/call", .target = in.substr(0, 512)},
            {.status = o::status::rpc_error, .code = -32603}, 0.01);
  const auto text = m->prometheus_text();
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    require(end != std::string::npos);  // every line ends with a newline
    const auto line = std::string_view(text).substr(start, end - start);
    require(line.starts_with("# ") || line.starts_with("mcp_") || line.starts_with("target_info"));
    start = end + 1;
  }
  return 0;
}
