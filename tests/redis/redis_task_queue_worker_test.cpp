// The queue's workers (mcp/task_queue.hpp) in one process: two servers stand for two processes on
// one Redis queue, each over its own `make_redis_task_queue`, seen through a store that can hide
// its pushes, keep its process from taking tasks, or throw from `take`. A task accepted by a
// process that takes none runs on the other; its tasks/result answers where it was accepted even
// without the store's pushes; a worker whose `take` threw goes on taking.
#include <mcp/client.hpp>
#include <mcp/redis.hpp>
#include <mcp/redis_task_queue.hpp>
#include <mcp/server.hpp>
#include <mcp/task_queue.hpp>
#include <mcp/transport/memory.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "redis/redis_server.hpp"
#include "support/forwarding_task_store.hpp"

namespace {

using namespace std::chrono_literals;
using mcp::json::object;

/// A Redis task queue seen through what a test changes of it.
class seen_queue final : public mcp::test::forwarding_task_store, public mcp::task_queue {
 public:
  struct options {
    bool pushes = true;      ///< false: `watch` gives nothing (the server polls)
    bool takes = true;       ///< false: `take` never gives a task (this process runs none)
    int throwing_takes = 0;  ///< how many `take` calls throw first
  };
  seen_queue(const std::shared_ptr<mcp::task_store>& inner, options o)
      : forwarding_task_store(inner),
        queue_(std::dynamic_pointer_cast<mcp::task_queue>(inner)),
        opts_(o),
        throws_left_(o.throwing_takes) {}

  std::shared_ptr<void> watch(std::function<void(std::string_view)> on_change) override {
    return opts_.pushes ? forwarding_task_store::watch(std::move(on_change)) : nullptr;
  }

  [[nodiscard]] std::size_t workers() const noexcept override { return queue_->workers(); }
  [[nodiscard]] std::chrono::milliseconds lease() const noexcept override {
    return queue_->lease();
  }
  mcp::result<void> push(std::string_view id) override { return queue_->push(id); }
  mcp::result<std::optional<mcp::queued_task>> take(std::chrono::milliseconds wait) override {
    if (!opts_.takes) {
      std::this_thread::sleep_for(std::min(wait, std::chrono::milliseconds(20)));
      return std::optional<mcp::queued_task>{};
    }
    if (throws_left_.fetch_sub(1) > 0) throw std::runtime_error("the store failed once");
    taken_.fetch_add(1);
    return queue_->take(wait);
  }
  mcp::result<void> renew(std::span<const std::string> ids) override { return queue_->renew(ids); }
  mcp::result<void> release(std::string_view id) override { return queue_->release(id); }
  void interrupt() override { queue_->interrupt(); }

  /// `take` calls that reached the queue.
  [[nodiscard]] int taken() const { return taken_.load(); }

 private:
  std::shared_ptr<mcp::task_queue> queue_;
  options opts_;
  std::atomic<int> throws_left_;
  std::atomic<int> taken_{0};
};

struct sleep_in {
  int ms = 0;
};
MCP_FIELDS(sleep_in, (ms, {.defaulted = true}))

/// One "process": a server with a task tool over `store`, and a client session on it (a session
/// opening starts the server's workers).
struct process {
  explicit process(std::shared_ptr<mcp::task_store> store)
      : server(mcp::server_options{.task_store = std::move(store), .task_poll_interval = 20ms}) {
    server.add_tool({.name = "sleeper",
                     .description = "Sleeps `ms` ms, then says so.",
                     .task_support_mode = mcp::task_support::optional},
                    [](mcp::tool_context& ctx, const sleep_in& in) -> std::string {
                      for (int i = 0; i < in.ms && !ctx.cancelled(); ++i) {
                        std::this_thread::sleep_for(1ms);
                      }
                      return "slept " + std::to_string(in.ms);
                    });
    auto [server_end, client_end] = mcp::make_memory_pair();
    session = server.open_session(server_end);
    server_end->on_receive([ss = session](std::string_view m) { ss->receive(m); });
    client = std::make_shared<mcp::client_session>(client_end);
    client_end->on_receive([weak = std::weak_ptr<mcp::client_session>(client)](std::string_view m) {
      if (auto c = weak.lock()) c->receive(m);
    });
    ok = client->initialize().has_value();
  }
  ~process() { session->close(); }
  process(const process&) = delete;
  process& operator=(const process&) = delete;

  mcp::server server;
  std::shared_ptr<mcp::server_session> session;
  std::shared_ptr<mcp::client_session> client;
  bool ok = false;
};

class redis_task_queue_worker : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(redis_.running()) << "redis-server did not start"; }
  std::shared_ptr<seen_queue> open(seen_queue::options o) {
    auto q = mcp::make_redis_task_queue({.url = redis_.url(), .key_prefix = prefix_},
                                        {.workers = 4, .lease = 2000ms});
    if (!q) {
      ADD_FAILURE() << q.error().message;
      return nullptr;
    }
    return std::make_shared<seen_queue>(*q, o);
  }
  /// Calls sleeper as a task on `accepting` and reads its result there.
  static std::string run_there(process& accepting) {
    auto t = accepting.client->call_tool_as_task("sleeper", object{{"ms", 50}});
    if (!t) return "not accepted: " + t.error().message;
    auto r = accepting.client->task_result(t->id, {.timeout = 10s});
    if (!r) return "no result: " + r.error().message;
    const auto& c = r->at("content").as_array();
    return c.empty() ? std::string() : std::string(c[0].at("text").as_string());
  }

  mcp::test::redis_server redis_;
  std::string prefix_ = mcp::test::unique_prefix();
};

TEST_F(redis_task_queue_worker, without_pushes_tasks_result_answers_where_the_task_was_accepted) {
  // A accepts and takes nothing, and its store does not push: B runs the task, and A's
  // tasks/result learns the end by reading the store.
  auto qa = open({.pushes = false, .takes = false});
  auto qb = open({.pushes = false});
  ASSERT_TRUE(qa && qb);
  process a(qa);
  process b(qb);
  ASSERT_TRUE(a.ok && b.ok);
  EXPECT_EQ(run_there(a), "slept 50");
}

TEST_F(redis_task_queue_worker, a_worker_whose_take_threw_goes_on_taking) {
  auto qa = open({.takes = false});
  auto qb = open({.throwing_takes = 1});
  ASSERT_TRUE(qa && qb);
  process a(qa);
  process b(qb);
  ASSERT_TRUE(a.ok && b.ok);
  EXPECT_EQ(run_there(a), "slept 50");
  EXPECT_GE(qb->taken(), 1);  // taken after the throw, by the same process
}

}  // namespace
