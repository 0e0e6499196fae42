// Internal to the Streamable HTTP client transport (client.cpp): the threads that run blocking
// exchanges. Starting a thread costs more than a call, so a worker is kept for the next piece of
// work; a new one starts only when every worker is busy, and an idle one ends after `linger`.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

namespace mcp::http_detail {

/// An elastic pool of worker threads. Thread-safe.
class worker_pool {
 public:
  explicit worker_pool(std::chrono::milliseconds linger) : linger_(linger) {}
  ~worker_pool() { close(); }
  worker_pool(const worker_pool&) = delete;
  worker_pool& operator=(const worker_pool&) = delete;

  /// Runs `work` on an idle worker, or on a new one when none is idle; on this thread when no
  /// thread can be started. `keep` is held by a new worker until it ends (the object whose
  /// members the work uses). After `close`, `work` is dropped unrun.
  void run(const std::shared_ptr<void>& keep, std::function<void()> work) {
    {
      std::lock_guard lock(mu_);
      if (closed_) return;
      for (auto it = threads_.begin(); it != threads_.end();) {  // reap workers that ended
        if (it->second->load()) {
          it->first.join();
          it = threads_.erase(it);
        } else {
          ++it;
        }
      }
      if (idle_ > jobs_.size()) {
        jobs_.push_back(std::move(work));
        cv_.notify_one();
        return;
      }
      try {
        auto ended = std::make_shared<std::atomic<bool>>(false);
        threads_.emplace_back(std::thread([this, keep, ended] { loop(*ended); }), ended);
        jobs_.push_back(std::move(work));
        return;
      } catch (const std::system_error&) {
        // No thread to be had: the work runs on the caller's thread instead.
      }
    }
    work();
  }

  /// Drops the work not started, then waits for the workers to finish what they run (a worker
  /// calling this is detached instead: it ends by itself). Idempotent.
  void close() {
    std::list<std::pair<std::thread, std::shared_ptr<std::atomic<bool>>>> threads;
    std::deque<std::function<void()>> dropped;
    {
      std::lock_guard lock(mu_);
      closed_ = true;
      threads.swap(threads_);
      dropped.swap(jobs_);
      cv_.notify_all();
    }
    dropped.clear();
    for (auto& [t, ended] : threads) {
      if (!t.joinable()) continue;
      if (t.get_id() == std::this_thread::get_id()) {
        t.detach();
      } else {
        t.join();
      }
    }
  }

 private:
  void loop(std::atomic<bool>& ended) {
    std::unique_lock lock(mu_);
    for (;;) {
      ++idle_;
      const bool got = cv_.wait_for(lock, linger_, [&] { return closed_ || !jobs_.empty(); });
      --idle_;
      if (closed_ || !got) break;
      auto job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      job();
      job = nullptr;  // its captures are released outside the lock
      lock.lock();
    }
    ended.store(true);
  }

  const std::chrono::milliseconds linger_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::list<std::pair<std::thread, std::shared_ptr<std::atomic<bool>>>> threads_;
  std::size_t idle_ = 0;
  bool closed_ = false;
};

}  // namespace mcp::http_detail
