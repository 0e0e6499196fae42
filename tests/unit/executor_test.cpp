// mcp/executor.hpp: the thread pools' try_post (work posted only when a thread starts it at once).
#include <mcp/executor.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

namespace {

using namespace std::chrono_literals;

/// A gate that work waits at until it is opened. Held by shared_ptr and captured by value: an
/// elastic pool's extra threads are detached, so a waiting thread may still read the gate after
/// the pool and the test are gone. An `open_at_end` declared after the pool opens it.
struct gate {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  void wait() {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return open; });
  }
  void let_go() {
    {
      const std::lock_guard lock(mu);
      open = true;
    }
    cv.notify_all();
  }
};

/// Opens `g` when it goes: declared after the pool, it opens the gate before the pool joins its
/// threads, whatever assertion ended the test.
struct open_at_end {
  std::shared_ptr<gate> g;
  explicit open_at_end(std::shared_ptr<gate> to_open) : g(std::move(to_open)) {}
  open_at_end(const open_at_end&) = delete;
  open_at_end& operator=(const open_at_end&) = delete;
  ~open_at_end() { g->let_go(); }
};

/// try_post of `work`, retried for up to 5 s (a worker is idle only once it waits for work).
bool try_post_soon(mcp::executor& ex, mcp::unique_function<void()>& work) {
  const auto give_up = std::chrono::steady_clock::now() + 5s;
  while (!ex.try_post(work)) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

TEST(executor, a_fixed_pool_takes_work_at_once_only_with_a_thread_free) {
  const auto g = std::make_shared<gate>();
  const auto ran = std::make_shared<std::atomic<int>>(0);
  auto pool = mcp::make_thread_pool(1);
  const open_at_end opener{g};
  mcp::unique_function<void()> hold = [g, ran] {
    g->wait();
    ++*ran;
  };
  ASSERT_TRUE(try_post_soon(*pool, hold));
  EXPECT_FALSE(hold);  // taken
  mcp::unique_function<void()> next = [ran] { ++*ran; };
  EXPECT_FALSE(pool->try_post(next));  // its one thread waits at the gate
  EXPECT_TRUE(next);                   // left with the caller
  g->let_go();
  ASSERT_TRUE(try_post_soon(*pool, next));
  const auto give_up = std::chrono::steady_clock::now() + 5s;
  while (ran->load() < 2 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_EQ(ran->load(), 2);
}

/// Waits (up to 5 s) until `n` is at least `want`.
bool reaches(const std::atomic<int>& n, int want) {
  const auto give_up = std::chrono::steady_clock::now() + 5s;
  while (n.load() < want) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

TEST(executor, an_elastic_pool_starts_a_thread_for_work_it_takes_at_once) {
  // Threads 2 and 3 are detached extras: what they touch is shared, not on this frame.
  const auto g = std::make_shared<gate>();
  const auto waiting = std::make_shared<std::atomic<int>>(0);
  auto pool = mcp::make_thread_pool(mcp::thread_pool_options{.threads = 1, .max_threads = 3});
  const open_at_end opener{g};
  auto work = [g, waiting] {
    ++*waiting;
    g->wait();
  };
  pool->post(work);
  ASSERT_TRUE(reaches(*waiting, 1));
  // One or two threads so far, every one busy or about to be: one more starts for it.
  mcp::unique_function<void()> second = work;
  EXPECT_TRUE(pool->try_post(second));
  ASSERT_TRUE(reaches(*waiting, 2));
  pool->post(work);
  ASSERT_TRUE(reaches(*waiting, 3));
  mcp::unique_function<void()> fourth = work;
  EXPECT_FALSE(pool->try_post(fourth));  // all three busy, and the pool is at its most
  EXPECT_TRUE(fourth);
  g->let_go();
}

TEST(executor, the_default_try_post_leaves_the_work_to_the_caller) {
  struct inline_free final : mcp::executor {
    void post(mcp::unique_function<void()> work) override { std::thread(std::move(work)).detach(); }
  } ex;
  bool ran = false;
  mcp::unique_function<void()> work = [&] { ran = true; };
  EXPECT_FALSE(ex.try_post(work));
  ASSERT_TRUE(work);
  work();
  EXPECT_TRUE(ran);
}

}  // namespace
