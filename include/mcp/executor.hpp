// File: mcp/executor.hpp
//
// Where handlers run. A server runs tool, resource, prompt and completion handlers on an
// `executor` so that a slow handler never holds up a transport's reader; a client runs the
// server's requests (sampling, elicitation, roots) the same way. The default is a thread pool
// sized for blocking handlers: 4 threads, growing to 64 while all are busy (a handler waiting
// for a database, a robot or the user holds its thread), shrinking again when idle. Replace it
// to run handlers on your own threads or job system; mcp/asio.hpp makes an executor of an Asio
// executor, on which coroutine handlers (`co_await`) run without holding a thread each.
//
// Example:
//
//   struct thread_per_task final : mcp::executor {   // each piece of work on a new thread
//     void post(mcp::unique_function<void()> work) override {
//       std::thread(std::move(work)).detach();
//     }
//   };
//   mcp::server server({.handler_executor = mcp::make_thread_pool(8)});
#pragma once

#include <mcp/detail/unique_function.hpp>

#include <chrono>
#include <cstddef>
#include <memory>

namespace mcp {

/// Runs work soon, on some thread.
class executor {
 public:
  virtual ~executor() = default;
  /// Runs `work` soon, on some thread. Must not run it inline (callers may hold locks that
  /// `work` takes). `work` may be move-only. Thread-safe; never throws.
  virtual void post(unique_function<void()> work) = 0;
  /// Posts `work` only if a thread can start it at once (an idle one, or one the executor
  /// starts for it), and returns true; otherwise leaves `work` as it is and returns false. For
  /// a caller that would rather do the work itself than have it wait behind others (the server
  /// hands a task's start to the thread that runs its handler this way, keeping it off the
  /// transport's reader). The default, for executors that cannot tell, always returns false.
  /// Thread-safe; never throws.
  virtual bool try_post(unique_function<void()>& work) {
    (void)work;
    return false;
  }
};

/// A fixed pool of `threads` workers (at least 1). Destruction finishes queued work, then
/// joins; a pool destroyed by one of its own workers detaches that worker instead.
[[nodiscard]] std::shared_ptr<executor> make_thread_pool(std::size_t threads);

/// How an elastic pool grows and shrinks.
struct thread_pool_options {
  std::size_t threads = 4;       ///< kept running (at least 1)
  std::size_t max_threads = 64;  ///< started while every thread is busy (at least `threads`)
  std::chrono::milliseconds idle_timeout{10000};  ///< a thread above `threads` idle this long ends
};

/// A pool of `opts.threads` workers that starts more, up to `opts.max_threads`, when work
/// arrives while all are busy: the default handler executor. Destruction as above.
[[nodiscard]] std::shared_ptr<executor> make_thread_pool(const thread_pool_options& opts);

}  // namespace mcp
