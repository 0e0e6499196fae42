#include <mcp/executor.hpp>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace mcp {
namespace {

/// A fixed pool. The queue lives in a shared state that every worker also holds, because the
/// pool may be destroyed by one of its own workers (when a handler drops the last reference to
/// the server): that worker is detached instead of joined and finishes on the shared state.
class thread_pool final : public executor {
 public:
  explicit thread_pool(std::size_t n) : state_(std::make_shared<state>()) {
    workers_.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      workers_.emplace_back([s = state_] { run(*s); });
    }
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

  void post(std::function<void()> work) override {
    {
      std::lock_guard lock(state_->mu);
      state_->queue.push_back(std::move(work));
    }
    state_->cv.notify_one();
  }

 private:
  struct state {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<std::function<void()>> queue;
    bool stopping = false;
  };

  static void run(state& s) {
    for (;;) {
      std::function<void()> work;
      {
        std::unique_lock lock(s.mu);
        s.cv.wait(lock, [&] { return s.stopping || !s.queue.empty(); });
        if (s.queue.empty()) return;  // stopping and drained
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
  return std::make_shared<thread_pool>(threads == 0 ? 1 : threads);
}

}  // namespace mcp
