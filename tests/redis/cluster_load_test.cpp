// The cluster under load, through the round-robin HAProxy (cluster_util.hpp): one caller
// flooding slow calls does not stop another caller's calls; kill -9 of one node under plain-call
// load fails no call that was not in flight when it died (HAProxy's health checks take the
// node out, and a request whose connection to it could not be made is sent to another node),
// and 2025-11-25 sessions and 2026-07-28 requests go on through the other nodes.
#include <mcp/json.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "redis/cluster_util.hpp"

namespace {

using namespace mcp_test;
using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

/// HAProxy as scripts/cluster.sh configures it: a node is checked every 100 ms and taken out
/// after one failed check; a request whose connection to a node fails is sent to another (never
/// one that reached a node: a POST is not sent twice).
const std::string health = "check inter 100ms fall 1 rise 2";
const std::string retries = "  retries 3\n  option redispatch 1\n  retry-on conn-failure\n";

TEST_F(Cluster, OneCallerFloodingSlowCallsDoesNotStopAnother) {
  start(3);
  proxy lb(ports(), health, retries);
  ASSERT_TRUE(lb.ready());
  const auto flooder = open_on(lb.port());
  const auto other = open_on(lb.port());
  // 150 slow calls from one session at once, 50 a node: more than its share of each node's
  // 64 slots (half of them while it is alone), so some are refused.
  constexpr int flood = 150;
  std::vector<std::unique_ptr<raw_client>> calls;
  for (int i = 0; i < flood; ++i) {
    calls.push_back(std::make_unique<raw_client>(lb.port()));
    calls.back()->send_raw(make_request(
        "POST", lb.port(),
        call_body(std::to_string(1000 + i), "slow_count", R"({"steps":30,"step_ms":100})"),
        post_headers(flooder)));
  }
  std::this_thread::sleep_for(200ms);  // the flood is running on every node
  // The other session's calls are served at once (well before the flood's 3 s calls end), on
  // every node in turn.
  for (int i = 0; i < 6; ++i) {
    const auto t0 = steady::now();
    auto r = call_on(lb.port(), other, std::to_string(2000 + i), "echo", R"({"text":"me too"})");
    const auto took = steady::now() - t0;
    ASSERT_EQ(r.status, 200U) << r.body;
    EXPECT_EQ(text_of(r), "me too") << r.body;
    EXPECT_LT(took, 2s) << "call " << i;
  }
  // The flood was real: calls beyond the flooder's share were refused, the others finished.
  int refused = 0;
  int finished = 0;
  for (auto& c : calls) {
    response r;
    ASSERT_TRUE(c->read_response(r, 30s));
    if (r.body.find("Too many concurrent") != std::string::npos) {
      ++refused;
    } else if (r.body.find("\"completed\":30") != std::string::npos) {
      ++finished;
    }
  }
  EXPECT_GT(refused, 0);
  EXPECT_GT(finished, 0);
  EXPECT_EQ(refused + finished, flood);
}

/// One call's outcome, with when it started and ended.
struct outcome {
  steady::time_point start;
  steady::time_point end;
  bool ok = false;
  std::string what;
};

TEST_F(Cluster, KillingANodeUnderLoadFailsOnlyTheCallsInFlightOnIt) {
  start(3, {"--no-rate-limit"});  // thousands of calls a second from few callers
  proxy lb(ports(), health, retries);
  ASSERT_TRUE(lb.ready());
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::vector<outcome> all;
  const auto record = [&](outcome o) {
    const std::lock_guard lock(mu);
    all.push_back(std::move(o));
  };
  std::vector<std::thread> callers;
  // Four 2025-11-25 sessions and two 2026-07-28 callers, each sending echo after echo, and one
  // caller of slow calls (1 s each), some of which the kill cuts off.
  for (int t = 0; t < 6; ++t) {
    callers.emplace_back([&, t] {
      const bool modern = t >= 4;
      const auto sid = modern ? std::string() : open_on(lb.port());
      for (int i = 0; !stop.load(); ++i) {
        outcome o;
        o.start = steady::now();
        const auto text = "c" + std::to_string(t) + "-" + std::to_string(i);
        response r;
        try {
          r = modern
                  ? request(lb.port(), "POST",
                            modern_call(std::to_string(i), "echo", R"({"text":")" + text + R"("})"),
                            modern_headers("tools/call", "echo"))
                  : call_on(lb.port(), sid, std::to_string(i), "echo",
                            R"({"text":")" + text + R"("})");
          o.ok = r.status == 200U && r.body.find(text) != std::string::npos &&
                 r.body.find("isError\":true") == std::string::npos;
          o.what = std::to_string(r.status) + " " + r.body;
        } catch (const std::exception& e) {
          o.what = e.what();
        }
        o.end = steady::now();
        record(std::move(o));
      }
    });
  }
  callers.emplace_back([&] {
    const auto sid = open_on(lb.port());
    for (int i = 0; !stop.load(); ++i) {
      outcome o;
      o.start = steady::now();
      try {
        auto r = call_on(lb.port(), sid, std::to_string(i), "slow_count",
                         R"({"steps":10,"step_ms":100})");
        o.ok = r.status == 200U && r.body.find("\"completed\":10") != std::string::npos;
        o.what = std::to_string(r.status) + " " + r.body;
      } catch (const std::exception& e) {
        o.what = e.what();
      }
      o.end = steady::now();
      record(std::move(o));
    }
  });
  std::this_thread::sleep_for(1500ms);
  const auto killed_at = steady::now();
  nodes_[1]->kill();
  const auto killed_done = steady::now();
  std::this_thread::sleep_for(3s);
  stop.store(true);
  for (auto& c : callers) c.join();

  std::size_t before = 0;
  std::size_t after = 0;
  std::size_t cut = 0;
  for (const auto& o : all) {
    if (o.end < killed_at) ++before;
    if (o.start > killed_done) ++after;
    if (o.ok) continue;
    // A failed call was in flight when the node died: started before, ended after.
    EXPECT_LT(o.start, killed_done) << o.what;
    EXPECT_GT(o.end, killed_at) << o.what;
    ++cut;
  }
  EXPECT_GT(before, 50U);
  EXPECT_GT(after, 50U);
  // At most one call per caller was in flight at the kill.
  EXPECT_LE(cut, 7U);
  std::cout << "[          ] " << all.size() << " calls (" << before << " before the kill, "
            << after << " after), " << cut << " cut off on the killed node\n";
}

}  // namespace
