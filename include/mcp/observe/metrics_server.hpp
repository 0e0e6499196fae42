// File: mcp/observe/metrics_server.hpp
//
// A Prometheus scrape endpoint (target `mcp::observe`): a small HTTP/1.1 server on an address of
// its own that answers `GET /metrics` with the text exposition of a `metrics` observer (or of
// any text the application supplies), on one thread of its own. Anything else is 404 (405 for
// other methods on the path). Connections are kept alive, bounded in number, and closed after
// `timeout` of silence.
//
// Example:
//
//   auto metrics = mcp::observe::make_metrics();
//   auto endpoint = mcp::observe::make_metrics_server({.listen = "127.0.0.1:9464",
//                                                      .metrics = metrics});
//   if (!endpoint) return endpoint.error();  // a bad address, or it is in use
//   // curl http://127.0.0.1:9464/metrics
#pragma once

#include <mcp/error.hpp>
#include <mcp/observe/metrics.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace mcp::observe {

/// Where and what `make_metrics_server` serves.
struct metrics_server_options {
  /// `HOST:PORT` with a numeric address (or `localhost`), `[v6]:PORT` for IPv6; port 0: any
  /// free port (see `port()`).
  std::string listen = "127.0.0.1:9464";
  /// Served as `metrics->prometheus_text()`.
  std::shared_ptr<observe::metrics> metrics{};
  /// Served instead when set (e.g. the metrics' text followed by the application's own).
  /// Called on the server's thread; an exception answers 500.
  std::function<std::string()> text{};
  std::string path = "/metrics";             ///< the only target served (GET, HEAD); else 404
  std::size_t max_connections = 32;          ///< more are closed at once
  std::chrono::milliseconds timeout{10000};  ///< per request, and idle between requests
};

/// A running endpoint. Thread-safety: every member may be called from any thread.
class metrics_server {
 public:
  ~metrics_server();  ///< `stop()`
  metrics_server(const metrics_server&) = delete;
  metrics_server& operator=(const metrics_server&) = delete;

  /// The port it listens on (the one chosen when 0 was asked).
  [[nodiscard]] std::uint16_t port() const noexcept;
  /// Stops listening, closes the connections and joins the thread. Idempotent.
  void stop();

  struct impl;

 private:
  friend result<std::unique_ptr<metrics_server>> make_metrics_server(metrics_server_options opts);
  explicit metrics_server(std::unique_ptr<impl> im);
  std::unique_ptr<impl> impl_;
};

/// Starts an endpoint. Errors: `errc::invalid_params` for an address that does not parse or
/// neither `metrics` nor `text`; `errc::internal_error` when the address cannot be listened on
/// (the system's reason in the message).
[[nodiscard]] result<std::unique_ptr<metrics_server>> make_metrics_server(
    metrics_server_options opts);

}  // namespace mcp::observe
