// An example's observation flags: `--metrics HOST:PORT` serves Prometheus text at /metrics,
// `--otlp URL` exports spans (and the metrics, every 10 s) over OTLP/HTTP to a collector.
// Both, either or neither; `observer()` is what goes into `server_options::observer`.
// OpenTelemetry's environment variables apply (`apply_otel_environment`): the protocols
// (`http/protobuf`, the default, or `http/json`), OTEL_BSP_MAX_QUEUE_SIZE (how many spans may wait
// for the exporter, default 2048; more are dropped and counted) and
// OTEL_BSP_MAX_EXPORT_BATCH_SIZE (how many go in one request, default 512); and
// OTEL_TRACES_SAMPLER_ARG, the share of new traces recorded.
#pragma once

#include <mcp/observe/metrics.hpp>
#include <mcp/observe/metrics_server.hpp>
#include <mcp/observe/otlp.hpp>
#include <mcp/observe/tracing.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
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
      mcp::observe::otlp_options options{.endpoint = otlp_url,
                                         .resource = resource,
                                         .batch_delay = std::chrono::milliseconds(1000),
                                         .metrics = metrics_,
                                         .metrics_interval = std::chrono::milliseconds(10000)};
      for (const auto& why : mcp::observe::apply_otel_environment(options)) {
        std::fprintf(stderr, "%s: %s\n", name, why.c_str());
      }
      auto exporter = mcp::observe::make_otlp_exporter(std::move(options));
      if (!exporter) {
        std::fprintf(stderr, "%s: --otlp: %s\n", name, exporter.error().message.c_str());
        return false;
      }
      exporter_ = std::move(*exporter);
      // OpenTelemetry's sampler argument: the share of new traces recorded (a call that
      // carries a parent follows the parent's sampled flag).
      double ratio = 1.0;
      if (const char* a = std::getenv("OTEL_TRACES_SAMPLER_ARG"); a != nullptr) {
        char* end = nullptr;
        const double r = std::strtod(a, &end);
        if (end != a && *end == '\0' && r >= 0 && r <= 1) {
          ratio = r;
        } else {
          std::fprintf(stderr, "%s: OTEL_TRACES_SAMPLER_ARG=%s ignored (not in [0, 1])\n", name, a);
        }
      }
      tracer =
          mcp::observe::make_tracer({.sink = exporter_->span_sink(), .root_sample_ratio = ratio});
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
