// The demo's `--task-store redis://host:port[/prefix]`: the Redis task store with the
// cross-process task queue (mcp/redis_task_queue.hpp), so that several demo processes on one
// Redis share their tasks: any of them takes a task accepted by another, each runs at most
// `workers` at once, and the tasks of one that dies are taken over after `lease`. The path, if
// any, is the key prefix (":" added); without one, "mcp:". Built with mcp::redis when hiredis is
// found (MCP_DEMO_REDIS); without it the option says so. Also slow_stop_task, a tool of the
// demo processes that share Redis.
#pragma once

#include <mcp/server.hpp>
#include <mcp/task_store.hpp>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <stop_token>
#include <string>
#include <thread>

#ifdef MCP_DEMO_REDIS
#include <mcp/redis_task_queue.hpp>
#endif

namespace demo {

struct slow_stop_in {
  int steps = 1;
  int step_ms = 0;
  int stop_ms = 0;
  bool ask_first = false;
};
struct go_on_form {
  bool go_on = true;
};
MCP_FIELDS(go_on_form, (go_on, "Whether the task goes on"))
MCP_FIELDS(
    slow_stop_in,
    (steps, {.description = "Number of steps", .defaulted = true, .minimum = 0, .maximum = 100000}),
    (step_ms,
     {.description = "Milliseconds per step", .defaulted = true, .minimum = 0, .maximum = 60000}),
    (stop_ms, {.description = "Milliseconds its stop takes",
               .defaulted = true,
               .minimum = 0,
               .maximum = 60000}),
    (ask_first, {.description = "Asks the user whether to go on (elicitation) before its steps",
                 .defaulted = true}))

/// slow_stop_task: slow_task whose stop callback takes `stop_ms` (as a tool's does when
/// cancelling waits for something to let go): a cancellation pushed from another process shows
/// what else waits behind it. With `ask_first` it asks the user before its steps (the task is
/// input_required, then working again once answered).
inline void add_slow_stop_task(mcp::server& server) {
  server.add_tool(
      {.name = "slow_stop_task",
       .description = "Sleeps steps x step_ms ms (after asking whether to go on, with "
                      "ask_first), then returns \"done <steps>\"; when it is cancelled, its stop "
                      "callback sleeps stop_ms ms.",
       .annotations = {.read_only_hint = true},
       .task_support_mode = mcp::task_support::optional},
      [](mcp::tool_context& ctx, const slow_stop_in& in) -> mcp::tool_result<std::string> {
        auto slow_stop = [ms = in.stop_ms] {
          std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        };
        const std::stop_callback<decltype(slow_stop)> on_stop(ctx.stop_token(), slow_stop);
        if (in.ask_first) {
          auto reply = ctx.elicit<go_on_form>("Go on?");
          if (!reply) return mcp::tool_error{"no answer: " + reply.error().message};
          if (!reply->accepted() || !reply->content->go_on) return "stopped before its steps";
        }
        for (int i = 0; i < in.steps && !ctx.cancelled(); ++i) {
          std::this_thread::sleep_for(std::chrono::milliseconds(in.step_ms));
        }
        if (ctx.cancelled()) return mcp::tool_error{"cancelled"};
        return "done " + std::to_string(in.steps);
      });
}

/// The store `spec` (redis://…) names; null (after saying why on stderr) when it cannot be had.
inline std::shared_ptr<mcp::task_store> open_redis_tasks(const std::string& spec,
                                                         std::size_t workers,
                                                         std::chrono::milliseconds lease) {
#ifdef MCP_DEMO_REDIS
  mcp::redis_options ro;
  ro.url = spec;
  ro.pool_size = 8;
  const auto slash = spec.find('/', std::string_view("redis://").size());
  if (slash != std::string::npos) {
    ro.url = spec.substr(0, slash);
    if (slash + 1 < spec.size()) ro.key_prefix = spec.substr(slash + 1) + ":";
  }
  auto store = mcp::make_redis_task_queue(ro, {.workers = workers, .lease = lease});
  if (!store) {
    std::fprintf(stderr, "demo_server: %s\n", store.error().message.c_str());
    return nullptr;
  }
  std::fprintf(stderr, "demo_server: tasks queued in Redis at %s (prefix %s)\n", ro.url.c_str(),
               ro.key_prefix.c_str());
  return std::move(*store);
#else
  (void)workers;
  (void)lease;
  std::fprintf(stderr, "demo_server: %s: built without hiredis (no Redis support)\n", spec.c_str());
  return nullptr;
#endif
}

}  // namespace demo
