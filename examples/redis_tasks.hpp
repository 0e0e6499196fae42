// The demo's `--task-store redis://host:port[/prefix]`: the Redis task store with the
// cross-process task queue (mcp/redis_task_queue.hpp), so that several demo processes on one
// Redis share their tasks: any of them takes a task accepted by another, each runs at most
// `workers` at once, and the tasks of one that dies are taken over after `lease`. The path, if
// any, is the key prefix (":" added); without one, "mcp:". Built with mcp::redis when hiredis is
// found (MCP_DEMO_REDIS); without it the option says so.
#pragma once

#include <mcp/task_store.hpp>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <string>

#ifdef MCP_DEMO_REDIS
#include <mcp/redis_task_queue.hpp>
#endif

namespace demo {

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
