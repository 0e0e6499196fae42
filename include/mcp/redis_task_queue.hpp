// File: mcp/redis_task_queue.hpp
//
// The Redis task store (mcp/redis.hpp) with a cross-process task queue (mcp/task_queue.hpp),
// target `mcp::redis`. Give the store it returns to every server process as
// `server_options::task_store`: a task accepted by any of them is stored and queued in Redis, and
// each process runs at most `workers` queued tasks at once, whichever process accepted them.
// tasks/get, tasks/result, tasks/list and tasks/cancel work from any process: tasks/result
// answers when the task ends wherever it runs (a push through Redis, no polling), and
// tasks/cancel stops the task where it runs.
//
// Leases: each task a process runs is leased to it for `lease`, renewed every third of it while
// the task runs. When the process dies its leases run out and the next `take` of another process
// takes the task over: it runs again if its tool has `tool_spec::rerun_after_restart`, else it is
// failed with a status message saying the process running it was lost.
//
// Keys (besides the task store's): `<prefix>tasks:queue` (a list of ids), `<prefix>tasks:leases`
// (a sorted set, score: the lease's end in ms), `<prefix>tasks:holders` (a hash, id -> node);
// pushes are announced on `<prefix>tasks:queued`.
//
// Example:
//
//   auto store = mcp::make_redis_task_queue({.url = "redis://10.0.0.5:6379", .key_prefix = "svc:"},
//                                           {.workers = 32});
//   if (!store) die(store.error().message);
//   mcp::server srv({.task_store = *store});
#pragma once

#include <mcp/error.hpp>
#include <mcp/redis.hpp>
#include <mcp/task_queue.hpp>
#include <mcp/task_store.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

namespace mcp {

/// How this process takes part in the queue.
struct redis_task_queue_options {
  std::size_t workers = 16;  ///< queued tasks this process runs at once (at least 1)
  /// How long a lease lasts without renewal: how soon another process takes over the tasks of a
  /// process that died. At least 100 ms.
  std::chrono::milliseconds lease{10000};
  /// This process's name in the leases; empty: "<host>:<pid>:<random>".
  std::string node{};
};

/// A Redis task store that is also a `task_queue` (the server finds it by `dynamic_cast`).
/// Errors: those of `make_redis_task_store`; `errc::invalid_params` for 0 workers or a lease
/// under 100 ms.
[[nodiscard]] result<std::shared_ptr<task_store>> make_redis_task_queue(
    redis_options options, redis_task_queue_options queue = {});
/// The same, on an existing client (sharing its pool and subscriber).
[[nodiscard]] result<std::shared_ptr<task_store>> make_redis_task_queue(
    std::shared_ptr<redis_client> client, redis_task_queue_options queue = {});

}  // namespace mcp
