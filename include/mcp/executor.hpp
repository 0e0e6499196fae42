// File: mcp/executor.hpp
//
// Where handlers run. A server runs tool, resource, prompt and completion handlers on an
// `executor` (a fixed thread pool by default) so that a slow handler never holds up a
// transport's reader; a client runs the server's requests (sampling, elicitation, roots) the
// same way. Replace it to run handlers on your own threads or job system.
//
// Example:
//
//   struct thread_per_task final : mcp::executor {   // each piece of work on a new thread
//     void post(std::function<void()> work) override { std::thread(std::move(work)).detach(); }
//   };
//   mcp::server server({.handler_executor = mcp::make_thread_pool(8)});
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

namespace mcp {

/// Runs work soon, on some thread.
class executor {
 public:
  virtual ~executor() = default;
  /// Runs `work` soon, on some thread. Must not run it inline (callers may hold locks that
  /// `work` takes). Thread-safe; never throws.
  virtual void post(std::function<void()> work) = 0;
};

/// A fixed pool of `threads` workers (at least 1). Destruction finishes queued work, then
/// joins; a pool destroyed by one of its own workers detaches that worker instead.
[[nodiscard]] std::shared_ptr<executor> make_thread_pool(std::size_t threads);

}  // namespace mcp
