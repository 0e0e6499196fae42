// OpenTelemetry's environment variables for the OTLP exporter (mcp/observe/otlp.hpp): the
// protocol of each signal and the batch span processor's sizes, as the SDKs of OpenTelemetry
// read them.
#include <mcp/observe/otlp.hpp>

#include <charconv>
#include <cstdlib>
#include <cstring>

namespace mcp::observe {
namespace {

/// `var`'s value; null when unset.
const char* env(const char* var) noexcept {
  return std::getenv(var);  // NOLINT(concurrency-mt-unsafe): documented in otlp.hpp
}

/// A signal's protocol: its own variable, else OTEL_EXPORTER_OTLP_PROTOCOL.
void protocol(const char* signal_var, otlp_encoding& into, std::vector<std::string>& ignored) {
  const char* p = env(signal_var);
  const char* var = signal_var;
  if (p == nullptr) {
    var = "OTEL_EXPORTER_OTLP_PROTOCOL";
    p = env(var);
  }
  if (p == nullptr) return;
  if (std::strcmp(p, "http/protobuf") == 0) {
    into = otlp_encoding::protobuf;
  } else if (std::strcmp(p, "http/json") == 0) {
    into = otlp_encoding::json;
  } else {
    ignored.push_back(std::string(var) + "=" + p + " ignored (http/protobuf or http/json)");
  }
}

/// A positive count.
void positive(const char* var, std::size_t& into, std::vector<std::string>& ignored) {
  const char* q = env(var);
  if (q == nullptr) return;
  std::size_t n = 0;
  const auto* end = q + std::strlen(q);
  if (const auto r = std::from_chars(q, end, n); r.ec == std::errc{} && r.ptr == end && n > 0) {
    into = n;
  } else {
    ignored.push_back(std::string(var) + "=" + q + " ignored (not a positive number)");
  }
}

}  // namespace

std::vector<std::string> apply_otel_environment(otlp_options& o) {
  std::vector<std::string> ignored;
  protocol("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", o.traces_encoding, ignored);
  protocol("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", o.metrics_encoding, ignored);
  positive("OTEL_BSP_MAX_QUEUE_SIZE", o.max_queue, ignored);
  positive("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", o.max_batch, ignored);
  return ignored;
}

}  // namespace mcp::observe
