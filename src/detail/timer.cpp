#include "detail/timer.hpp"

#include <condition_variable>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

namespace mcp::detail {
namespace {

/// One thread, a binary min-heap of slot indices ordered by deadline, and a table of slots
/// reused through a free list: scheduling and cancelling allocate nothing once the table has
/// grown (per-call deadlines and request timeouts are on the hot path).
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

  std::uint64_t schedule(clock::time_point when, std::function<void()> fn,
                         std::weak_ptr<void> target, targeted_fn tfn, std::uint64_t arg) {
    std::lock_guard lock(mu_);
    std::uint32_t i = 0;
    if (free_.empty()) {
      i = static_cast<std::uint32_t>(slots_.size());
      slots_.emplace_back();
    } else {
      i = free_.back();
      free_.pop_back();
    }
    auto& s = slots_[i];
    s.when = when;
    s.fn = std::move(fn);
    s.target = std::move(target);
    s.tfn = tfn;
    s.arg = arg;
    s.pos = heap_.size();
    heap_.push_back(i);
    sift_up(s.pos);
    // Wake the thread only when this timer is due before what it waits for: the common case,
    // a long deadline scheduled and cancelled per call, then costs no context switch.
    if (when < waiting_until_) cv_.notify_all();
    return (std::uint64_t{s.gen} << 32U) | i;
  }

  void cancel(std::uint64_t handle) {
    std::lock_guard lock(mu_);
    const auto i = static_cast<std::uint32_t>(handle & 0xFFFFFFFFU);
    if (i >= slots_.size() || slots_[i].gen != (handle >> 32U) || slots_[i].pos == npos) return;
    remove_at(slots_[i].pos);
  }

 private:
  static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();
  struct slot {
    clock::time_point when{};
    std::uint32_t gen = 1;   ///< bumped when the slot is freed: stale handles do nothing
    std::size_t pos = npos;  ///< place in the heap; npos when free
    std::function<void()> fn;
    std::weak_ptr<void> target;
    targeted_fn tfn = nullptr;
    std::uint64_t arg = 0;
  };

  [[nodiscard]] bool earlier(std::size_t a, std::size_t b) const {
    return slots_[heap_[a]].when < slots_[heap_[b]].when;
  }
  void place(std::size_t pos, std::uint32_t i) {
    heap_[pos] = i;
    slots_[i].pos = pos;
  }
  void sift_up(std::size_t pos) {
    while (pos > 0) {
      const auto parent = (pos - 1) / 2;
      if (!earlier(pos, parent)) break;
      const auto a = heap_[pos];
      place(pos, heap_[parent]);
      place(parent, a);
      pos = parent;
    }
  }
  void sift_down(std::size_t pos) {
    for (;;) {
      const auto l = 2 * pos + 1;
      const auto r = l + 1;
      auto best = pos;
      if (l < heap_.size() && earlier(l, best)) best = l;
      if (r < heap_.size() && earlier(r, best)) best = r;
      if (best == pos) return;
      const auto a = heap_[pos];
      place(pos, heap_[best]);
      place(best, a);
      pos = best;
    }
  }
  /// Takes the timer at heap position `pos` out of the heap and frees its slot.
  void remove_at(std::size_t pos) {
    const auto i = heap_[pos];
    const auto last = heap_.back();
    heap_.pop_back();
    if (pos < heap_.size()) {
      place(pos, last);
      sift_down(pos);
      sift_up(pos);
    }
    auto& s = slots_[i];
    s.pos = npos;
    ++s.gen;
    s.fn = nullptr;
    s.target.reset();
    free_.push_back(i);
  }

  void run() {
    std::unique_lock lock(mu_);
    while (!stopping_) {
      if (heap_.empty()) {
        waiting_until_ = clock::time_point::max();
        cv_.wait(lock);
        continue;
      }
      auto& first = slots_[heap_.front()];
      if (const auto due = first.when; due > clock::now()) {
        // A copy of the deadline: `cancel` may free the slot while this waits. Woken at the
        // deadline, by an earlier new timer or spuriously, the loop looks again.
        waiting_until_ = due;
        cv_.wait_until(lock, due);
        continue;
      }
      waiting_until_ = clock::time_point::min();  // running callbacks: no wake-up needed
      auto fn = std::move(first.fn);
      auto target = std::move(first.target);
      const auto tfn = first.tfn;
      const auto arg = first.arg;
      remove_at(0);
      lock.unlock();
      if (fn) {
        fn();
      } else if (auto alive = target.lock()) {
        tfn(alive, arg);
      }
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<slot> slots_;
  std::vector<std::uint32_t> free_;
  std::vector<std::uint32_t> heap_;
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
  return instance().schedule(when, std::move(fn), {}, nullptr, 0);
}

std::uint64_t schedule_timer(clock::time_point when, std::weak_ptr<void> target, targeted_fn fn,
                             std::uint64_t arg) {
  return instance().schedule(when, nullptr, std::move(target), fn, arg);
}

void cancel_timer(std::uint64_t handle) { instance().cancel(handle); }

}  // namespace mcp::detail
