// File: mcp/observe/metrics.hpp
//
// Metrics of MCP operations (target `mcp::observe`): the four duration histograms of the
// OpenTelemetry MCP conventions (`mcp.{client,server}.operation.duration`,
// `mcp.{client,server}.session.duration`, unit s, the conventions' bucket boundaries and
// attributes) and the SDK's counters: operations and errors (derived from the histograms at
// collection, so recording them costs nothing), denials by policy, tasks by status, active
// sessions and streams. Read them as Prometheus text (format 0.0.4, names by OpenTelemetry's
// Prometheus mapping: `mcp_server_operation_duration_seconds_bucket{...,le="0.01"}`), as a
// snapshot, or have `otlp_exporter` push them (mcp/observe/otlp.hpp).
//
// Recording takes no lock once a thread has seen an attribute set (a per-thread cache in front
// of a shared-locked map): a relaxed atomic add to a bucket and one to the sum. A set of attributes
// is a series; past `max_series` per metric, new sets go to one series marked
// `otel.metric.overflow=true`, so a peer inventing names cannot grow memory without bound.
//
// Example:
//
//   auto metrics = mcp::observe::make_metrics({.resource = {{"service.name", "weather"}}});
//   // hand `metrics` (an observer) to the session engine, then:
//   std::string text = metrics->prometheus_text();
#pragma once

#include <mcp/observe.hpp>
#include <mcp/observe/conventions.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mcp::observe {

/// Resource attributes (`service.name`, ...): Prometheus `target_info`, OTLP `resource`.
using resource_attributes = std::vector<std::pair<std::string, std::string>>;

/// One histogram series at collection time.
struct histogram_point {
  std::vector<attribute> attributes;                            ///< the series' attribute set
  std::array<std::uint64_t, duration_buckets> bucket_counts{};  ///< per bucket, not cumulative
  std::uint64_t count = 0;                                      ///< observations in all buckets
  double sum = 0;                                               ///< seconds
  std::uint64_t start_unix_ns = 0;  ///< when the series began (cumulative temporality)
};

/// One counter or gauge series at collection time.
struct number_point {
  std::vector<attribute> attributes;  ///< the series' attribute set
  std::int64_t value = 0;             ///< the counter's total, or the gauge's current value
  std::uint64_t start_unix_ns = 0;    ///< when the series began (cumulative temporality)
};

/// A histogram (seconds), a monotonic counter, or an up-down counter (a Prometheus gauge).
enum class metric_type : std::uint8_t { histogram, counter, up_down_counter };

/// One metric.
struct metric_data {
  std::string_view name{};         ///< OpenTelemetry name, e.g. "mcp.server.operation.duration"
  std::string_view description{};  ///< one line, as in the Prometheus `# HELP`
  std::string_view unit{};         ///< UCUM: "s", "{operation}"
  metric_type type = metric_type::histogram;        ///< which of the point lists is filled
  std::vector<histogram_point> histogram_points{};  ///< `histogram`: its series
  std::vector<number_point> number_points{};        ///< counters and gauges: their series
};

/// Everything recorded so far (cumulative), at `time_unix_ns`. Metrics without series are left
/// out.
struct metrics_snapshot {
  std::uint64_t time_unix_ns = 0;    ///< when it was taken, ns since the Unix epoch
  std::vector<metric_data> metrics;  ///< every metric that has a series
};

/// What `make_metrics` records, and how much.
struct metrics_options {
  /// Resource attributes, written as `target_info` in the Prometheus text.
  resource_attributes resource{{"service.name", "unknown_service"}};
  /// Record `mcp.resource.uri` on the operation histograms (opt-in in the conventions: URIs
  /// can be many).
  bool resource_uri_attribute = false;
  /// Series per metric before new attribute sets go to the overflow series.
  std::size_t max_series = 2000;
};

/// The metrics observer. Thread-safety: every member may be called from any thread at once.
class metrics final : public observer {
 public:
  ~metrics() override;
  metrics(const metrics&) = delete;
  metrics& operator=(const metrics&) = delete;

  span on_start(const operation& op) override;
  void on_end(span& s, const outcome& o) override;
  span on_session_start(const session_info& info) override;
  void on_session_end(span& s, std::string_view error_type) override;
  void on_denial(const denial& d) override;
  void on_task_status(std::string_view tool, std::string_view task_status) override;
  void on_stream(kind side, int delta) override;
  /// False: no series has a request id.
  [[nodiscard]] bool reads_request_id() const noexcept override { return false; }
  /// True unless `metrics_options::resource_uri_attribute` (a URI is not in the number): the
  /// span holds the set's series and the start.
  [[nodiscard]] bool spans_by_attribute_set() const noexcept override;

  /// Records one operation that took `seconds` directly (what `on_start` + `on_end` do).
  void record(const operation& op, const outcome& o, double seconds);

  /// Everything recorded so far. Never throws (but bad_alloc).
  [[nodiscard]] metrics_snapshot snapshot() const;
  /// The Prometheus text exposition (format 0.0.4) of `snapshot()`, `target_info` first.
  [[nodiscard]] std::string prometheus_text() const;
  /// The resource given at construction.
  [[nodiscard]] const resource_attributes& resource() const noexcept;

  struct impl;

 private:
  friend std::shared_ptr<metrics> make_metrics(metrics_options opts);
  explicit metrics(metrics_options opts);
  std::unique_ptr<impl> impl_;
};

/// A metrics observer. Never throws (but bad_alloc).
[[nodiscard]] std::shared_ptr<metrics> make_metrics(metrics_options opts = {});

/// Appends the Prometheus text exposition (format 0.0.4) of `snap` to `out`: `target_info` with
/// `resource` as labels (when not empty), then each metric family (HELP, TYPE, samples); names
/// and labels by OpenTelemetry's Prometheus mapping (dots to underscores, the unit as a suffix,
/// `_total` for counters, units in braces dropped), `otel_scope_name`/`otel_scope_version` on
/// every sample, histograms as cumulative `_bucket{le=...}`, `_sum`, `_count`. Thread-safe.
void write_prometheus(const metrics_snapshot& snap, const resource_attributes& resource,
                      std::string& out);

/// The Content-Type of that text: `text/plain; version=0.0.4; charset=utf-8`.
inline constexpr std::string_view prometheus_content_type =
    "text/plain; version=0.0.4; charset=utf-8";

/// The instrumentation scope every sink names: "mcp-cpp" and the SDK's version.
[[nodiscard]] std::string_view scope_name() noexcept;
[[nodiscard]] std::string_view scope_version() noexcept;

}  // namespace mcp::observe
