// The OTLP tests' receiver (otlp-sink.mjs, run by node) and what the exporter's tests share:
// options with short waits, a one-span record, a field of a received line as text, the spans
// of a received request.
#pragma once

#include <mcp/json.hpp>
#include <mcp/observe/otlp.hpp>
#include <mcp/observe/tracing.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "observe/otlp_decoded.hpp"
#include "support/subprocess.hpp"
#include <unistd.h>

namespace otlp_test {

using namespace mcp::observe;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

inline std::string node_modules;  // the installed pin's node_modules
inline const std::string here = MCP_SOURCE_DIR "/tests/observe";

/// The receiver, started with extra environment; its JSON lines.
class sink {
 public:
  explicit sink(std::vector<std::string> env) {
    out_ = fs::temp_directory_path() /
           ("mcp-otlp-" + std::to_string(::getpid()) + "-" + std::to_string(++count_) + ".jsonl");
    std::vector<std::string> argv = {"/usr/bin/env", "NODE_PATH=" + node_modules,
                                     "OUT=" + out_.string(), "PORT=0"};
    argv.insert(argv.end(), env.begin(), env.end());
    argv.push_back("node");
    argv.push_back(here + "/otlp-sink.mjs");
    proc_ = std::make_unique<mcp::test::subprocess>(argv);
    if (auto line = proc_->read_line(30s)) {
      auto v = mcp::parse_json(*line);
      if (v && v->is_object()) port_ = static_cast<int>(v->at("port").to_number<int>());
    }
  }
  ~sink() {
    proc_->close_stdin();
    (void)proc_->wait(5s);
    std::error_code ec;
    fs::remove(out_, ec);
  }
  sink(const sink&) = delete;
  sink& operator=(const sink&) = delete;

  [[nodiscard]] std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  [[nodiscard]] bool ok() const { return port_ > 0; }
  std::string log() { return proc_->drain_stderr(); }

  /// Every request received so far.
  [[nodiscard]] std::vector<mcp::json::object> lines() const {
    std::vector<mcp::json::object> out;
    std::ifstream in(out_);
    std::string line;
    while (std::getline(in, line)) {
      auto v = mcp::parse_json(line, {.max_size = 64 << 20});
      if (v && v->is_object()) out.push_back(v->as_object());
    }
    return out;
  }

 private:
  static inline int count_ = 0;
  fs::path out_;
  int port_ = 0;
  std::unique_ptr<mcp::test::subprocess> proc_;
};

inline std::string text(const mcp::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (v == nullptr) return "<none>";
  if (v->is_string()) return std::string(v->as_string());
  return mcp::to_json_string(*v);
}

/// The spans of one received request (its one resource's one scope's), as decoded.
inline const mcp::json::array& spans_of(const mcp::json::object& line) {
  return spans_in(line.at("decoded"));
}

/// Options for an exporter to `s` that sends soon and retries quickly, its spans and metrics in
/// `encoding`.
inline otlp_options fast(const sink& s, otlp_encoding encoding = otlp_encoding::json) {
  return {.endpoint = s.endpoint(),
          .resource = {{"service.name", "otlp-test"}},
          .batch_delay = 200ms,
          .timeout = 5s,
          .metrics_interval = std::chrono::hours(1),
          .initial_backoff = 50ms,
          .max_backoff = 5s,
          .traces_encoding = encoding,
          .metrics_encoding = encoding};
}

inline std::unique_ptr<span_record> one_span() {
  auto r = std::make_unique<span_record>();
  r->shape = make_span_shape("ping", kind::server, {{attr::method_name, std::string("ping")}});
  r->context.trace_id = new_trace_id();
  r->context.span_id = new_span_id();
  r->context.flags = 1;
  r->start_unix_ns = 1;
  r->end_unix_ns = 2;
  return r;
}

}  // namespace otlp_test
