#include "detail/timer.hpp"

#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace mcp::detail {
namespace {

class timer_thread {
 public:
  timer_thread() : thread_([this] { run(); }) {}
  ~timer_thread() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  timer_thread(const timer_thread&) = delete;
  timer_thread& operator=(const timer_thread&) = delete;

  std::uint64_t schedule(clock::time_point when, std::function<void()> fn) {
    std::lock_guard lock(mu_);
    const std::uint64_t h = ++next_;
    auto it = queue_.emplace(when, entry{h, std::move(fn)});
    index_.emplace(h, it);
    // Wake the thread only when this timer is due before what it waits for: the common case,
    // a long deadline scheduled and cancelled per call, then costs no context switch.
    if (when < waiting_until_) cv_.notify_all();
    return h;
  }

  void cancel(std::uint64_t h) {
    std::lock_guard lock(mu_);
    if (auto it = index_.find(h); it != index_.end()) {
      queue_.erase(it->second);
      index_.erase(it);
    }
  }

 private:
  struct entry {
    std::uint64_t handle;
    std::function<void()> fn;
  };
  using queue_t = std::multimap<clock::time_point, entry>;

  void run() {
    std::unique_lock lock(mu_);
    while (!stopping_) {
      if (queue_.empty()) {
        waiting_until_ = clock::time_point::max();
        cv_.wait(lock);
        continue;
      }
      auto first = queue_.begin();
      if (const auto due = first->first; due > clock::now()) {
        // A copy of the deadline: `cancel` may erase the entry while this waits. Woken at the
        // deadline, by an earlier new timer or spuriously, the loop looks again.
        waiting_until_ = due;
        cv_.wait_until(lock, due);
        continue;
      }
      waiting_until_ = clock::time_point::min();  // running callbacks: no wake-up needed
      auto fn = std::move(first->second.fn);
      index_.erase(first->second.handle);
      queue_.erase(first);
      lock.unlock();
      fn();
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  queue_t queue_;
  std::unordered_map<std::uint64_t, queue_t::iterator> index_;
  std::uint64_t next_ = 0;
  clock::time_point waiting_until_ = clock::time_point::max();  ///< what the thread waits for
  bool stopping_ = false;
  std::thread thread_;  // last: starts after the members it uses
};

timer_thread& instance() {
  static timer_thread t;
  return t;
}

}  // namespace

std::uint64_t schedule_timer(clock::time_point when, std::function<void()> fn) {
  return instance().schedule(when, std::move(fn));
}

void cancel_timer(std::uint64_t handle) { instance().cancel(handle); }

}  // namespace mcp::detail
