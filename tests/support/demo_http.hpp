// Test support: the demo server binary serving Streamable HTTP on 127.0.0.1 at a port of its
// own choosing (its URL read from its stderr through mcp/transport/process.hpp), stopped as a
// supervisor stops it: SIGTERM, then its exit waited for.
#pragma once

#include <mcp/transport/process.hpp>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mcp::test {

class demo_http_server {
 public:
  /// Starts `MCP_DEMO_SERVER --http 127.0.0.1:0 args...` and waits up to 10 s for the line that
  /// names its URL. `url()` is empty when it did not come (`error` says why when it did not start).
  explicit demo_http_server(std::vector<std::string> args = {}) {
    std::vector<std::string> argv{MCP_DEMO_SERVER, "--http", "127.0.0.1:0"};
    argv.insert(argv.end(), args.begin(), args.end());
    // The stderr reader runs on the process's thread: what it writes is shared with it.
    auto state = heard_;
    auto proc = mcp::make_process_connection(
        {.argv = std::move(argv),
         .on_stderr =
             [state](std::string_view line) {
               std::lock_guard lock(state->mu);
               const auto at = line.find("http://");
               if (state->url.empty() && at != std::string_view::npos) {
                 state->url = std::string(line.substr(at, line.find(' ', at) - at));
                 state->cv.notify_all();
               }
             },
         .grace = std::chrono::seconds(10)});  // an ASan build on a loaded machine is slow
    if (!proc) {
      error = proc.error().message;
      return;
    }
    server_ = std::move(*proc);
    server_->start([](std::string_view) {});
    std::unique_lock lock(heard_->mu);
    heard_->cv.wait_for(lock, std::chrono::seconds(10), [this] { return !heard_->url.empty(); });
  }
  ~demo_http_server() { stop(); }
  demo_http_server(const demo_http_server&) = delete;
  demo_http_server& operator=(const demo_http_server&) = delete;

  /// The URL it serves (http://127.0.0.1:PORT/mcp), or empty.
  [[nodiscard]] std::string url() const {
    std::lock_guard lock(heard_->mu);
    return heard_->url;
  }
  /// Its process id (0: not started).
  [[nodiscard]] int pid() const { return server_ ? server_->pid() : 0; }

  /// SIGTERM (it serves HTTP, not stdin), then up to 10 s for the exit. Its exit status; -1 when
  /// it was not running or did not say.
  int stop() {
    if (!server_) return -1;
    ::kill(server_->pid(), SIGTERM);
    server_->close();
    const auto status = server_->exit_status();
    server_.reset();
    return status ? *status : -1;
  }

  std::string error;  ///< why it did not start (empty: it did)

 private:
  struct heard {
    std::mutex mu;
    std::condition_variable cv;
    std::string url;
  };
  std::shared_ptr<heard> heard_ = std::make_shared<heard>();
  std::shared_ptr<mcp::process_connection> server_;
};

}  // namespace mcp::test
