// The OTLP/protobuf `ExportMetricsServiceRequest` of a metrics snapshot (opentelemetry-proto's
// metrics.proto and metrics_service.proto): the same messages `write_otlp_metrics` writes in the
// JSON mapping, field by field. Histograms as `Histogram` (cumulative, explicit bounds),
// counters as a monotonic `Sum`, up-down counters as a non-monotonic `Sum`, integers as `as_int`.
// A metrics request is written once per interval: each nested message is built in a string of
// its own and put with its length.
#include <mcp/observe/otlp.hpp>

#include "observe/protobuf_put.hpp"

namespace mcp::observe {
namespace {

namespace pb = detail::protobuf;

constexpr std::uint64_t cumulative = 2;  // AggregationTemporality

/// A data point's attributes (`field`), start and time.
void put_point_head(std::string& out, unsigned attributes_field,
                    const std::vector<attribute>& attributes, std::uint64_t start,
                    std::uint64_t now) {
  for (const auto& a : attributes) pb::put_key_value(out, attributes_field, a.key, a.value);
  pb::put_fixed64(out, 2, start);  // start_time_unix_nano
  pb::put_fixed64(out, 3, now);    // time_unix_nano
}

/// A packed repeated field of `bytes`; none when empty (as protobuf encoders leave it out).
void put_packed(std::string& out, unsigned field, std::string_view bytes) {
  if (!bytes.empty()) pb::put_bytes(out, pb::tag(field, 2), bytes);
}

/// `Histogram` (Metric field 9) of `m`'s points.
void put_histogram(std::string& out, const metric_data& m, std::uint64_t now) {
  std::string h;
  std::string point;
  std::string packed;
  for (const auto& p : m.histogram_points) {
    point.clear();
    put_point_head(point, 9, p.attributes, p.start_unix_ns, now);
    pb::put_fixed64(point, 4, p.count);
    pb::put_double(point, 5, p.sum);
    packed.clear();
    for (const auto c : p.bucket_counts) pb::put_le64(packed, c);
    put_packed(point, 6, packed);  // bucket_counts
    packed.clear();
    for (const auto b : duration_bounds) pb::put_le64(packed, std::bit_cast<std::uint64_t>(b));
    put_packed(point, 7, packed);            // explicit_bounds
    pb::put_bytes(h, pb::tag(1, 2), point);  // data_points
  }
  h += pb::tag(2, 0);  // aggregation_temporality
  pb::put_varint(h, cumulative);
  pb::put_bytes(out, pb::tag(9, 2), h);
}

/// `Sum` (Metric field 7) of `m`'s points: monotonic for a counter.
void put_sum(std::string& out, const metric_data& m, std::uint64_t now) {
  std::string sum;
  std::string point;
  for (const auto& p : m.number_points) {
    point.clear();
    put_point_head(point, 7, p.attributes, p.start_unix_ns, now);
    point += pb::tag(6, 1);  // as_int, sfixed64
    pb::put_le64(point, static_cast<std::uint64_t>(p.value));
    pb::put_bytes(sum, pb::tag(1, 2), point);  // data_points
  }
  sum += pb::tag(2, 0);  // aggregation_temporality
  pb::put_varint(sum, cumulative);
  if (m.type == metric_type::counter) {
    sum += pb::tag(3, 0);  // is_monotonic
    sum += '\x01';
  }
  pb::put_bytes(out, pb::tag(7, 2), sum);
}

}  // namespace

void write_otlp_metrics_protobuf(const metrics_snapshot& snap, const resource_attributes& resource,
                                 std::string& out) {
  std::string scope_metrics;
  pb::put_scope(scope_metrics);
  std::string metric;
  for (const auto& m : snap.metrics) {
    metric.clear();
    pb::put_bytes(metric, pb::tag(1, 2), m.name);
    pb::put_bytes(metric, pb::tag(2, 2), m.description);
    pb::put_bytes(metric, pb::tag(3, 2), m.unit);
    if (m.type == metric_type::histogram) {
      put_histogram(metric, m, snap.time_unix_ns);
    } else {
      put_sum(metric, m, snap.time_unix_ns);
    }
    pb::put_bytes(scope_metrics, pb::tag(2, 2), metric);  // ScopeMetrics.metrics
  }
  std::string resource_metrics;
  pb::put_resource(resource_metrics, resource);
  pb::put_bytes(resource_metrics, pb::tag(2, 2), scope_metrics);  // ResourceMetrics.scope_metrics
  pb::put_bytes(out, pb::tag(1, 2),
                resource_metrics);  // ExportMetricsServiceRequest.resource_metrics
}

}  // namespace mcp::observe
