// An example's observation flags: `--metrics HOST:PORT` serves Prometheus text at /metrics,
// `--otlp URL` exports spans (and the metrics, every 10 s) over OTLP/HTTP JSON to a collector.
// Both, either or neither; `observer()` is what goes into `server_options::observer`.
#pragma once

#include <mcp/observe/metrics.hpp>
#include <mcp/observe/metrics_server.hpp>
#include <mcp/observe/otlp.hpp>
#include <mcp/observe/tracing.hpp>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

namespace examples {

class observation {
 public:
  /// Starts what was asked; false (after saying why on stderr) when it cannot.
  bool start(const std::string& metrics_listen, const std::string& otlp_url,
             const std::string& service, const char* name) {
    const mcp::observe::resource_attributes resource{{"service.name", service}};
    if (!metrics_listen.empty() || !otlp_url.empty()) {
      metrics_ = mcp::observe::make_metrics({.resource = resource});
    }
    if (!metrics_listen.empty()) {
      auto endpoint =
          mcp::observe::make_metrics_server({.listen = metrics_listen, .metrics = metrics_});
      if (!endpoint) {
        std::fprintf(stderr, "%s: --metrics: %s\n", name, endpoint.error().message.c_str());
        return false;
      }
      endpoint_ = std::move(*endpoint);
      const auto host = metrics_listen.substr(0, metrics_listen.rfind(':'));
      std::fprintf(stderr, "%s: metrics at http://%s:%u/metrics\n", name, host.c_str(),
                   static_cast<unsigned>(endpoint_->port()));
    }
    std::shared_ptr<mcp::observe::observer> tracer;
    if (!otlp_url.empty()) {
      auto exporter =
          mcp::observe::make_otlp_exporter({.endpoint = otlp_url,
                                            .resource = resource,
                                            .batch_delay = std::chrono::milliseconds(1000),
                                            .metrics = metrics_,
                                            .metrics_interval = std::chrono::milliseconds(10000)});
      if (!exporter) {
        std::fprintf(stderr, "%s: --otlp: %s\n", name, exporter.error().message.c_str());
        return false;
      }
      exporter_ = std::move(*exporter);
      tracer = mcp::observe::make_tracer({.sink = exporter_->span_sink()});
    }
    observer_ = mcp::observe::combine({tracer, metrics_});  // the tracer first: it gives ids
    return true;
  }

  [[nodiscard]] std::shared_ptr<mcp::observe::observer> observer() const { return observer_; }

  ~observation() {
    if (exporter_) exporter_->shutdown();  // what is queued goes out before the process ends
  }

 private:
  std::shared_ptr<mcp::observe::metrics> metrics_;
  std::unique_ptr<mcp::observe::metrics_server> endpoint_;
  std::shared_ptr<mcp::observe::otlp_exporter> exporter_;
  std::shared_ptr<mcp::observe::observer> observer_;
};

}  // namespace examples
