// Internal: group commit. Writes run in batches, one batch at a time: every write that arrived
// while the previous batch ran becomes the next batch, run by one call (for the SQLite task
// store: one transaction, one commit), and each write's caller returns once its batch has run.
// The batch is run by one of the callers waiting for it (the leader), not by a thread of its
// own: a write that finds nothing running runs at once on its caller's thread, with no hand-off
// to another thread and back; under load a batch holds what queued during one commit, and the
// caller that leads it wakes only when it is its turn.
//
// Waking costs a system call per sleeper (and, in a virtual machine, a cross-processor
// interrupt), so the waits are shaped to need one wake-up each: a caller sleeps on a futex word
// of its batch's parity, not on the mutex; the leader bumps the word of the batch it ran and
// the next batch's, then wakes, after letting go of the mutex, every caller of its batch (one
// call) and one caller of the next (who leads it). A caller whose batch has run returns without
// taking the mutex again, so the woken callers do not queue on it one after another.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <utility>
#include <vector>

namespace mcp::detail {

/// Counts of a `group_commit`, for tests and benchmarks.
struct group_commit_counts {
  std::uint64_t batches = 0;  ///< batches run
  std::uint64_t writes = 0;   ///< writes in them
  std::uint64_t waiting = 0;  ///< writes submitted whose batch has not finished
};

/// Batches of writes of type `Op` (the callers' objects: each lives until its `submit`
/// returns). Thread-safe; `submit` must not be called from the batch runner.
template <class Op>
class group_commit {
 public:
  /// Runs the batch, on the thread of one of its callers, with every write taken at once,
  /// oldest first; never two at a time. Must not throw (a write's outcome, error included,
  /// goes into its `Op`).
  using batch_runner = std::function<void(std::span<Op* const>)>;

  explicit group_commit(batch_runner run_batch) : run_batch_(std::move(run_batch)) {}
  group_commit(const group_commit&) = delete;
  group_commit& operator=(const group_commit&) = delete;

  /// Queues `op` and returns once the batch it went into has run.
  void submit(Op& op) {
    std::unique_lock lock(mu_);
    queue_.push_back(&op);
    ++submitted_;
    // Whatever is queued now goes into the batch after the ones already taken.
    const std::uint64_t mine = taken_ + 1;
    auto& word = turn_[mine % 2];
    for (;;) {
      if (!leading_) {
        lead(lock);  // batch `mine`: nothing took it since (returns without the lock)
        return;
      }
      const std::uint32_t seen = word.load(std::memory_order_relaxed);
      lock.unlock();
      word.wait(seen, std::memory_order_relaxed);
      // What the batch wrote into `op` is visible once its end is (acquire).
      if (finished_.load(std::memory_order_acquire) >= mine) return;
      lock.lock();  // woken to lead the batch (or spuriously)
      if (finished_.load(std::memory_order_relaxed) >= mine) return;
    }
  }

  /// Runs `f` on the caller's thread at once if no batch is running, holding batches off
  /// meanwhile, and returns true; returns false without running it when a batch is running.
  template <class F>
  bool try_alone(F&& f) {
    std::unique_lock lock(mu_);
    if (leading_) return false;
    leading_ = true;
    lock.unlock();
    struct release {
      group_commit& g;
      ~release() {
        std::unique_lock relock(g.mu_);
        g.leading_ = false;
        if (g.queue_.empty()) return;
        // Someone queued meanwhile: one of them leads.
        auto& next = g.turn_[(g.taken_ + 1) % 2];
        next.fetch_add(1, std::memory_order_relaxed);
        relock.unlock();
        next.notify_one();
      }
    } done{*this};
    f();
    return true;
  }

  [[nodiscard]] group_commit_counts counts() const {
    const std::lock_guard lock(mu_);
    return {finished_.load(std::memory_order_relaxed), writes_, submitted_ - writes_};
  }

 private:
  /// Runs the queue as the next batch (with `lock` held on entry; released on return).
  void lead(std::unique_lock<std::mutex>& lock) {
    leading_ = true;
    batch_.swap(queue_);
    const std::uint64_t n = ++taken_;
    lock.unlock();
    run_batch_(std::span<Op* const>(batch_));
    lock.lock();
    writes_ += batch_.size();
    batch_.clear();
    leading_ = false;
    finished_.store(n, std::memory_order_release);
    // This batch's callers may return; one caller of the next batch (they wait on the other
    // word) leads it. A caller arriving meanwhile may lead it first: then the one woken
    // finds it led and sleeps again.
    auto& mine = turn_[n % 2];
    auto& next = turn_[(n + 1) % 2];
    mine.fetch_add(1, std::memory_order_relaxed);
    const bool more = !queue_.empty();
    if (more) next.fetch_add(1, std::memory_order_relaxed);
    lock.unlock();
    mine.notify_all();
    if (more) next.notify_one();
  }

  batch_runner run_batch_;
  mutable std::mutex mu_;
  // Bumped when batch n has run and when batch n is to be led; its callers wait on [n % 2]
  // (4 bytes: the futex word itself).
  std::atomic<std::uint32_t> turn_[2]{};
  std::vector<Op*> queue_;
  std::vector<Op*> batch_;                  // the batch running (kept: its storage is reused)
  std::uint64_t taken_ = 0;                 // batches taken from the queue
  std::atomic<std::uint64_t> finished_{0};  // batches run (written with mu_ held)
  std::uint64_t submitted_ = 0;
  std::uint64_t writes_ = 0;
  bool leading_ = false;  // a batch is running
};

}  // namespace mcp::detail
