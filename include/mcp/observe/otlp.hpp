// File: mcp/observe/otlp.hpp
//
// An OTLP/HTTP exporter (target `mcp::observe`): spans POSTed to `{endpoint}/v1/traces` and
// metrics (cumulative) to `{endpoint}/v1/metrics`, in protobuf encoding (the default, as
// OpenTelemetry's exporters have it) or JSON, over HTTP or HTTPS, from one background thread. Spans
// wait in a bounded queue (a full queue drops the span and counts it: a call is never held up), go
// out in batches of `max_batch` or every `batch_delay`, and a batch that meets 429, 502, 503, 504
// or no answer is sent again after an exponential backoff (or the server's `Retry-After`), up to
// `max_attempts` times. Other refusals are not retried (the OTLP specification's rules).
//
// Example:
//
//   auto metrics = mcp::observe::make_metrics();
//   auto exporter = mcp::observe::make_otlp_exporter(
//       {.endpoint = "http://127.0.0.1:4318", .metrics = metrics});
//   if (!exporter) return exporter.error();  // a bad URL
//   auto tracer = mcp::observe::make_tracer({.sink = (*exporter)->span_sink()});
//   ... // at exit:
//   (*exporter)->shutdown();
#pragma once

#include <mcp/error.hpp>
#include <mcp/observe/metrics.hpp>
#include <mcp/observe/tracing.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcp::observe {

/// How spans or metrics are encoded: OTLP/HTTP's two encodings of the same messages.
enum class otlp_encoding : std::uint8_t {
  json,     ///< `application/json`, the protobuf JSON mapping (readable; about twice the bytes)
  protobuf  ///< `application/x-protobuf` (less to encode, send and receive per span)
};

/// Where and how `make_otlp_exporter` sends spans and metrics (OTLP/HTTP).
struct otlp_options {
  /// Base URL (http or https); `/v1/traces` and `/v1/metrics` are appended (a trailing `/` is
  /// dropped first), as for OTEL_EXPORTER_OTLP_ENDPOINT.
  std::string endpoint = "http://localhost:4318";
  /// https: trust these PEM certificates instead of the system's.
  std::string ca_file{};
  /// Extra request headers (e.g. an API key).
  std::vector<std::pair<std::string, std::string>> headers{};
  /// Resource attributes of every request.
  resource_attributes resource{{"service.name", "unknown_service"}};
  std::size_t max_queue = 2048;                 ///< spans waiting; more are dropped (counted)
  std::size_t max_batch = 512;                  ///< spans per request
  std::chrono::milliseconds batch_delay{5000};  ///< longest wait of a queued span
  std::chrono::milliseconds timeout{10000};     ///< per request (lookup, connect, answer)
  /// The connection kept open between requests is closed and opened again before a request
  /// when it was idle longer than this (a collector or a proxy may have dropped it silently);
  /// zero: a new connection for every request.
  std::chrono::milliseconds connection_idle_limit{30000};
  /// Exported every `metrics_interval`, and at flush and shutdown; null: no metrics.
  std::shared_ptr<observe::metrics> metrics{};
  std::chrono::milliseconds metrics_interval{60000};  ///< with `metrics`: time between exports
  int max_attempts = 5;                               ///< tries per request, the first included
  std::chrono::milliseconds initial_backoff{1000};    ///< doubled per retry, with jitter
  std::chrono::milliseconds max_backoff{30000};       ///< also caps `Retry-After`
  /// The spans' encoding (as OTEL_EXPORTER_OTLP_TRACES_PROTOCOL `http/protobuf`, the default
  /// of OpenTelemetry's OTLP exporter specification, or `http/json`).
  otlp_encoding traces_encoding = otlp_encoding::protobuf;
  /// The metrics' encoding (as OTEL_EXPORTER_OTLP_METRICS_PROTOCOL).
  otlp_encoding metrics_encoding = otlp_encoding::protobuf;
};

/// Counts since the exporter started.
struct otlp_stats {
  std::uint64_t spans_exported = 0;   ///< accepted by the collector
  std::uint64_t spans_dropped = 0;    ///< not queued: the queue was full (or shut down)
  std::uint64_t spans_failed = 0;     ///< given up after the tries, refused, or rejected
  std::uint64_t metric_exports = 0;   ///< metrics requests accepted
  std::uint64_t metric_failures = 0;  ///< metrics requests given up after the tries, or refused
  std::uint64_t requests = 0;         ///< HTTP requests made, retries included
  std::uint64_t retries = 0;          ///< requests that were tries after the first
};

/// The exporter. Thread-safety: every member may be called from any thread at once.
class otlp_exporter {
 public:
  ~otlp_exporter();  ///< `shutdown()` with its default timeout
  otlp_exporter(const otlp_exporter&) = delete;
  otlp_exporter& operator=(const otlp_exporter&) = delete;

  /// Queues a finished span (the pointer: the record stays where it is until it is sent); never
  /// blocks on I/O and never throws. Dropped (and counted) when the queue is full or the
  /// exporter is shut down. A sent span's record is kept for the later spans of a thread that
  /// queues spans (`make_tracer` takes its records from there). A null `s` is ignored.
  void export_span(std::unique_ptr<span_record> s) noexcept;
  /// A sink for `tracer_options::sink` that queues into this exporter (`export_span`). It may
  /// outlive the exporter: spans it gets after `shutdown` are dropped.
  [[nodiscard]] std::function<void(std::unique_ptr<span_record>)> span_sink();

  /// Sends what is queued (and the metrics, when set) now, and waits until it went out or
  /// `timeout` passes. True when everything queued before the call was sent (or given up).
  bool flush(std::chrono::milliseconds timeout = std::chrono::milliseconds(10000));
  /// Flushes within `timeout`, then stops the thread; later spans are dropped. Idempotent.
  void shutdown(std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));

  /// The counts so far (each read atomically, not all at one instant).
  [[nodiscard]] otlp_stats stats() const;

  struct impl;

 private:
  friend result<std::shared_ptr<otlp_exporter>> make_otlp_exporter(otlp_options opts);
  explicit otlp_exporter(std::shared_ptr<impl> im);
  std::shared_ptr<impl> impl_;
};

/// Starts an exporter (its thread). Errors: `errc::invalid_params` for an endpoint that is not
/// an http(s) URL with a host, or limits that are zero.
[[nodiscard]] result<std::shared_ptr<otlp_exporter>> make_otlp_exporter(otlp_options opts);

/// Sets in `o` what OpenTelemetry's environment variables ask, as its SDKs read them:
/// OTEL_EXPORTER_OTLP_TRACES_PROTOCOL and OTEL_EXPORTER_OTLP_METRICS_PROTOCOL (each, when unset,
/// OTEL_EXPORTER_OTLP_PROTOCOL): `http/protobuf` or `http/json`; OTEL_BSP_MAX_QUEUE_SIZE
/// (`max_queue`) and OTEL_BSP_MAX_EXPORT_BATCH_SIZE (`max_batch`): positive numbers. Returns a
/// line for each value it ignored (the rest still applies); unset variables leave `o` as it is.
/// Throws only std::bad_alloc. Reads the environment: not safe while another thread changes it
/// (setenv).
[[nodiscard]] std::vector<std::string> apply_otel_environment(otlp_options& o);

/// The OTLP/JSON `ExportTraceServiceRequest` of `spans` (one resource, one scope), appended to
/// `out`. Thread-safe.
void write_otlp_traces(std::span<const span_record> spans, const resource_attributes& resource,
                       std::string& out);
/// The longest message `write_otlp_traces_protobuf` writes (its ResourceSpans, 2^35 - 1
/// bytes): the enclosing messages' lengths are written in five bytes, filled in last.
inline constexpr std::uint64_t otlp_protobuf_max_length = (std::uint64_t{1} << 35U) - 1;
/// The OTLP/protobuf `ExportTraceServiceRequest` of `spans` (one resource, one scope; the same
/// message as `write_otlp_traces`), appended to `out`: the spans in order while the message
/// stays within `otlp_protobuf_max_length`; returns how many were written (the first ones; the
/// exporter sends the others in another request). Thread-safe.
std::size_t write_otlp_traces_protobuf(std::span<const span_record> spans,
                                       const resource_attributes& resource, std::string& out);
/// The OTLP/JSON `ExportMetricsServiceRequest` of `snap` (cumulative temporality). Thread-safe.
void write_otlp_metrics(const metrics_snapshot& snap, const resource_attributes& resource,
                        std::string& out);
/// The OTLP/protobuf `ExportMetricsServiceRequest` of `snap` (the same message as
/// `write_otlp_metrics`), appended to `out`. Throws only std::bad_alloc. Thread-safe.
void write_otlp_metrics_protobuf(const metrics_snapshot& snap, const resource_attributes& resource,
                                 std::string& out);

/// The wait a `Retry-After` value asks for: delta-seconds, or an HTTP-date relative to `now`;
/// nothing when it is neither. Thread-safe.
[[nodiscard]] std::optional<std::chrono::seconds> parse_retry_after(
    std::string_view value, std::chrono::system_clock::time_point now);

}  // namespace mcp::observe
