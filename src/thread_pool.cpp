#include <mcp/executor.hpp>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "detail/fallback_executor.hpp"

namespace mcp {
namespace {

/// A pool of `min` workers that grows to `max` while every worker is busy. The queue lives in a
/// shared state that every worker also holds, because the pool may be destroyed by one of its
/// own workers (when a handler drops the last reference to the server): that worker is
/// detached instead of joined and finishes on the shared state. Workers above `min` end after
/// `idle` without work; they are detached (they hold the state, not the pool).
class thread_pool final : public executor {
 public:
  thread_pool(std::size_t min, std::size_t max, std::chrono::milliseconds idle)
      : state_(std::make_shared<state>()) {
    state_->max = std::max(min, max);
    state_->idle_timeout = idle;
    workers_.reserve(min);
    for (std::size_t i = 0; i < min; ++i) {
      workers_.emplace_back([s = state_] { run(*s, false); });
    }
    state_->threads = min;
  }
  ~thread_pool() override {
    {
      std::lock_guard lock(state_->mu);
      state_->stopping = true;
    }
    state_->cv.notify_all();
    for (auto& w : workers_) {
      if (w.get_id() == std::this_thread::get_id()) {
        w.detach();
      } else {
        w.join();
      }
    }
  }
  thread_pool(const thread_pool&) = delete;
  thread_pool& operator=(const thread_pool&) = delete;

  void post(unique_function<void()> work) override {
    std::unique_lock lock(state_->mu);
    enqueue(lock, work);
  }

  bool try_post(unique_function<void()>& work) override {
    std::unique_lock lock(state_->mu);
    if (state_->queue.size() < state_->idle) {  // an idle thread takes it at once
      enqueue(lock, work);
      return true;
    }
    // Every thread busy: only a thread started first (and started for sure) runs it at once.
    if (state_->threads >= state_->max) return false;
    ++state_->threads;
    lock.unlock();
    try {
      std::thread([s = state_] { run(*s, true); }).detach();
    } catch (...) {  // no thread to be had: the work stays with the caller
      std::lock_guard relock(state_->mu);
      --state_->threads;
      return false;
    }
    lock.lock();
    state_->queue.push_back(std::move(work));
    lock.unlock();
    state_->cv.notify_one();
    return true;
  }

 private:
  /// Queues `work` (with `lock` on the state held; released on return) and wakes a worker,
  /// starting one more when every thread is busy (or about to be, with what is queued).
  void enqueue(std::unique_lock<std::mutex>& lock, unique_function<void()>& work) {
    state_->queue.push_back(std::move(work));
    bool grow = false;
    if (state_->queue.size() > state_->idle && state_->threads < state_->max) {
      ++state_->threads;
      grow = true;
    }
    lock.unlock();
    if (grow) {
      try {
        std::thread([s = state_] { run(*s, true); }).detach();
      } catch (...) {  // no thread to be had: the queued work waits for a running one
        std::lock_guard relock(state_->mu);
        --state_->threads;
      }
    }
    state_->cv.notify_one();
  }

  struct state {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<unique_function<void()>> queue;
    std::size_t threads = 0;  ///< running workers
    std::size_t idle = 0;     ///< workers waiting for work
    std::size_t max = 1;
    std::chrono::milliseconds idle_timeout{10000};
    bool stopping = false;
  };

  static void run(state& s, bool extra) {
    for (;;) {
      unique_function<void()> work;
      {
        std::unique_lock lock(s.mu);
        ++s.idle;
        const auto ready = [&] { return s.stopping || !s.queue.empty(); };
        bool woke = true;
        if (extra) {
          woke = s.cv.wait_for(lock, s.idle_timeout, ready);
        } else {
          s.cv.wait(lock, ready);
        }
        --s.idle;
        if (!woke || s.queue.empty()) {  // idle too long, or stopping and drained
          --s.threads;
          return;
        }
        work = std::move(s.queue.front());
        s.queue.pop_front();
      }
      work();
    }
  }

  std::shared_ptr<state> state_;
  std::vector<std::thread> workers_;
};

}  // namespace

std::shared_ptr<executor> make_thread_pool(std::size_t threads) {
  const auto n = threads == 0 ? 1 : threads;
  return std::make_shared<thread_pool>(n, n, std::chrono::milliseconds(0));
}

std::shared_ptr<executor> make_thread_pool(const thread_pool_options& opts) {
  const auto n = opts.threads == 0 ? 1 : opts.threads;
  return std::make_shared<thread_pool>(n, opts.max_threads, opts.idle_timeout);
}

namespace detail {
executor& fallback_executor() {
  static const auto pool = make_thread_pool(thread_pool_options{.threads = 1});
  return *pool;
}
}  // namespace detail

}  // namespace mcp
