// The metrics observer's collection (mcp/observe/metrics.hpp): a snapshot of every series
// (metrics_series.hpp), the operation and error counters summed from the histograms, and the
// Prometheus text.
#include <mcp/observe/metrics.hpp>

#include "metrics_series.hpp"

namespace mcp::observe {

using namespace series;  // NOLINT(google-build-using-namespace): this file's own internals

namespace {

/// Operations and errors per (method, target), summed from a histogram family.
void derive_counters(group_family& f, metric_data& ops, metric_data& errs) {
  std::map<std::string, std::size_t, std::less<>> op_index;
  std::map<std::string, std::size_t, std::less<>> err_index;
  std::shared_lock lock(f.mu);
  for (auto* g : f.order) {
    g->each_point([&](const histogram_point& p, const variant_series* v) {
      if (p.count == 0) return;
      auto [it, fresh] = op_index.try_emplace(g->counter_key, ops.number_points.size());
      if (fresh) ops.number_points.push_back({g->counter_attributes, 0, g->start_unix_ns});
      ops.number_points[it->second].value += static_cast<std::int64_t>(p.count);
      if (v == nullptr || v->error_type.empty()) return;
      std::string key = g->counter_key;
      key_field(key, v->error_type);
      auto [eit, efresh] = err_index.try_emplace(std::move(key), errs.number_points.size());
      if (efresh) {
        auto attrs = g->counter_attributes;
        attrs.push_back({attr::error_type, v->error_type});
        errs.number_points.push_back({std::move(attrs), 0, v->start_unix_ns});
      }
      errs.number_points[eit->second].value += static_cast<std::int64_t>(p.count);
    });
  }
}

void read_histograms(group_family& f, metric_data& m) {
  std::shared_lock lock(f.mu);
  for (auto* g : f.order) {
    g->each_point([&m](histogram_point p, const variant_series*) {
      if (p.count > 0) m.histogram_points.push_back(std::move(p));
    });
  }
}

}  // namespace

metrics_snapshot metrics::snapshot() const {
  auto& im = *impl_;
  metrics_snapshot snap;
  snap.time_unix_ns = unix_now_ns();
  auto push = [&snap](metric_data m) {
    if (!m.histogram_points.empty() || !m.number_points.empty()) {
      snap.metrics.push_back(std::move(m));
    }
  };
  using t = metric_type;
  for (const auto side : {kind::server, kind::client}) {
    const bool server = side == kind::server;
    metric_data m{
        .name = server ? "mcp.server.operation.duration" : "mcp.client.operation.duration",
        .description = server ? "MCP request or notification duration as observed on the "
                                "receiver from the time it was received until the result "
                                "or ack is sent."
                              : "The duration of the MCP request or notification as "
                                "observed on the sender from the time it was sent until "
                                "the response or ack is received.",
        .unit = "s",
        .type = t::histogram};
    read_histograms(im.operations[side_index(side)], m);
    push(std::move(m));
  }
  for (const auto side : {kind::server, kind::client}) {
    const bool server = side == kind::server;
    metric_data m{.name = server ? "mcp.server.session.duration" : "mcp.client.session.duration",
                  .description = server ? "The duration of the MCP session as observed on the MCP "
                                          "server."
                                        : "The duration of the MCP session as observed on the MCP "
                                          "client.",
                  .unit = "s",
                  .type = t::histogram};
    read_histograms(im.sessions[side_index(side)], m);
    push(std::move(m));
  }
  for (const auto side : {kind::server, kind::client}) {
    const bool server = side == kind::server;
    metric_data ops{.name = server ? "mcp.server.operations" : "mcp.client.operations",
                    .description = server ? "MCP requests and notifications received."
                                          : "MCP requests and notifications sent.",
                    .unit = "{operation}",
                    .type = t::counter};
    metric_data errs{.name = server ? "mcp.server.errors" : "mcp.client.errors",
                     .description = server ? "MCP operations received that ended with an error."
                                           : "MCP operations sent that ended with an error.",
                     .unit = "{error}",
                     .type = t::counter};
    derive_counters(im.operations[side_index(side)], ops, errs);
    push(std::move(ops));
    push(std::move(errs));
  }
  for (const auto side : {kind::server, kind::client}) {
    const bool server = side == kind::server;
    metric_data m{.name = server ? "mcp.server.denials" : "mcp.client.denials",
                  .description = server ? "Calls refused by a policy or an interceptor."
                                        : "Calls refused before they were sent.",
                  .unit = "{denial}",
                  .type = t::counter};
    im.denials[side_index(side)].read(m.number_points);
    push(std::move(m));
  }
  {
    metric_data m{.name = "mcp.server.tasks",
                  .description = "Tasks that reached a status.",
                  .unit = "{task}",
                  .type = t::counter};
    im.tasks.read(m.number_points);
    push(std::move(m));
  }
  auto gauge_metric = [&](const gauge& g, std::string_view name, std::string_view description,
                          std::string_view unit) {
    if (!g.used.load(std::memory_order_relaxed)) return;
    metric_data m{
        .name = name, .description = description, .unit = unit, .type = t::up_down_counter};
    m.number_points.push_back({{}, g.value.load(std::memory_order_relaxed), im.start_unix_ns});
    snap.metrics.push_back(std::move(m));
  };
  gauge_metric(im.active_sessions[0], "mcp.server.active_sessions", "MCP sessions open.",
               "{session}");
  gauge_metric(im.active_sessions[1], "mcp.client.active_sessions", "MCP sessions open.",
               "{session}");
  gauge_metric(im.active_streams[0], "mcp.server.active_streams", "SSE streams open.", "{stream}");
  gauge_metric(im.active_streams[1], "mcp.client.active_streams", "SSE streams open.", "{stream}");
  return snap;
}

std::string metrics::prometheus_text() const {
  std::string out;
  write_prometheus(snapshot(), impl_->opts.resource, out);
  return out;
}

}  // namespace mcp::observe
