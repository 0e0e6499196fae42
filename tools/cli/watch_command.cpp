// `mcp-cpp watch [--resource URI]... [--count N] [--for SECONDS]`: prints what a server tells
// of its changes (list_changed, resources/updated, log messages), one JSON line each, in either
// era: in 2025-11-25 through the session's notifications (stdio, or the HTTP GET stream), in
// 2026-07-28 through the subscriptions/listen the client keeps open; `--resource` subscribes
// (resources/subscribe, or the listen's resourceSubscriptions).
#include <boost/json/serialize.hpp>

#include <chrono>
#include <condition_variable>
#include <iostream>
#include <memory>
#include <mutex>

#include "commands.hpp"
#include "tools_cli.hpp"

namespace mcp::cli {

namespace {

struct watch_args {
  server_target target;
  bool json = false;  // accepted for symmetry: the output is JSON lines anyway
  std::vector<std::string> resources;
  std::size_t count = 0;  // 0: no bound
  double seconds = 0;     // 0: until interrupted
};

/// What the notification handler shares with the waiting thread.
struct watch_state {
  std::mutex mu;
  std::condition_variable cv;
  std::size_t seen = 0;
};

int run_watch(const watch_args& a) {
  auto state = std::make_shared<watch_state>();
  auto opts = client_options_for(a.target);
  opts.on_notification = [state](std::string_view method, const json::object& params) {
    if (method == "notifications/progress") return;  // about a request, not a change
    json::object line{{"method", method}, {"params", params}};
    std::lock_guard lock(state->mu);
    std::cout << json::serialize(line) << std::endl;
    ++state->seen;
    state->cv.notify_all();
  };
  auto s = connect(a.target, std::move(opts));
  if (!s) return fail(s.error().message);
  auto& c = *s->client;
  for (const auto& uri : a.resources) {
    if (auto r = c.subscribe(uri); !r) {
      return fail("subscribing to " + terminal_safe(uri) + " failed: " + r.error().message);
    }
  }
  std::cerr << "watching " << terminal_safe(s->description) << " (protocol " << c.protocol_version()
            << ")" << std::endl;
  const auto end = a.seconds > 0
                       ? std::chrono::steady_clock::now() +
                             std::chrono::milliseconds(static_cast<std::int64_t>(a.seconds * 1000))
                       : std::chrono::steady_clock::time_point::max();
  std::unique_lock lock(state->mu);
  while (a.count == 0 || state->seen < a.count) {
    if (std::chrono::steady_clock::now() >= end) break;
    state->cv.wait_for(lock, std::chrono::milliseconds(200));
  }
  lock.unlock();
  c.close();
  return exit_ok;
}

}  // namespace

void add_watch_command(CLI::App& app, int& exit_code, std::vector<std::string> server_command) {
  auto args = std::make_shared<watch_args>();
  args->target.command = std::move(server_command);
  auto* cmd = app.add_subcommand(
      "watch", "Print the server's notifications of changes (and log messages) as JSON lines");
  add_server_options(cmd, args->target, args->json);
  cmd->add_option("--resource", args->resources, "subscribe to this resource's updates");
  cmd->add_option("--count", args->count, "stop after this many notifications (0: no bound)");
  cmd->add_option("--for", args->seconds, "stop after this many seconds (0: no bound)");
  cmd->callback([args, &exit_code] { exit_code = run_watch(*args); });
}

}  // namespace mcp::cli
