// The contract every task store keeps (include/mcp/task_store.hpp): the status machine, owner
// isolation, payloads, pagination, expiry, fail_unfinished and racing updates. A test file
// includes it and instantiates `task_store_contract` with its stores (`store_maker`):
// task_store_test.cpp with the memory and SQLite stores, tests/redis with the Redis store.
#pragma once

#include <mcp/task_store.hpp>

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <latch>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "unit/task_store_fixture.hpp"

namespace mcp::test::contract {

using namespace std::chrono_literals;
using mcp::task_record;
using mcp::task_status;
using mcp::task_update;
using sys_clock = std::chrono::system_clock;
using mcp::test::expect_same;
using mcp::test::make_task;
using mcp::test::now_ms;
using mcp::test::result_payload;
using mcp::test::temp_db;

constexpr std::array<task_status, 5> all_statuses = {
    task_status::working, task_status::input_required, task_status::completed, task_status::failed,
    task_status::cancelled};

/// A kind of store the contract runs against: its name and how to open a fresh one (`db` is a
/// temporary path it may use; a failure is reported with ADD_FAILURE and nullptr).
struct store_maker {
  std::string name;
  std::function<std::shared_ptr<mcp::task_store>(const temp_db& db)> make;
};

/// Shown by gtest as the parameter: the store's name.
inline void PrintTo(const store_maker& m, std::ostream* os) { *os << m.name; }

inline std::string maker_name(const ::testing::TestParamInfo<store_maker>& p) {
  return p.param.name;
}

class task_store_contract : public ::testing::TestWithParam<store_maker> {
 protected:
  void SetUp() override {
    store_ = GetParam().make(db_);
    ASSERT_NE(store_, nullptr);
  }

  /// Stores `t` and expects success.
  void put(const task_record& t) {
    const auto r = store_->create(t);
    ASSERT_TRUE(r) << r.error().message;
  }

  temp_db db_;
  std::shared_ptr<mcp::task_store> store_;
};

TEST_P(task_store_contract, create_then_get_returns_the_record) {
  auto t = make_task("t1");
  t.ttl = 10min;
  t.poll_interval = 250ms;
  t.status_message = "starting";
  put(t);
  const auto got = store_->get("t1", "alice");
  ASSERT_TRUE(got);
  ASSERT_TRUE(got->has_value());
  expect_same(**got, t);
  EXPECT_FALSE(store_->get("nope", "alice").value().has_value());
}

TEST_P(task_store_contract, another_owner_sees_nothing) {
  put(make_task("t1", "alice"));
  EXPECT_FALSE(store_->get("t1", "bob").value().has_value());
  EXPECT_TRUE(store_->list("bob", "", 10).value().tasks.empty());
  const auto u = store_->update("t1", "bob", {.status = task_status::cancelled});
  ASSERT_TRUE(u);
  EXPECT_FALSE(u->has_value());
  const auto still = store_->get("t1", "alice").value();
  ASSERT_TRUE(still.has_value());
  EXPECT_EQ(still->status, task_status::working);
  ASSERT_EQ(store_->list("alice", "", 10).value().tasks.size(), 1U);
}

TEST_P(task_store_contract, a_duplicate_id_is_refused_whoever_the_owner) {
  put(make_task("t1", "alice"));
  for (const char* owner : {"alice", "bob"}) {
    auto dup = make_task("t1", owner);
    dup.status_message = "second";
    const auto r = store_->create(dup);
    ASSERT_FALSE(r);
    EXPECT_TRUE(r.error().is(mcp::errc::invalid_params)) << r.error().message;
  }
  const auto got = store_->get("t1", "alice").value();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->status_message, "");
  EXPECT_FALSE(store_->get("t1", "bob").value().has_value());
}

TEST_P(task_store_contract, status_names_round_trip) {
  for (const auto s : all_statuses) EXPECT_EQ(mcp::task_status_from_string(mcp::to_string(s)), s);
  EXPECT_EQ(mcp::to_string(task_status::input_required), "input_required");
  EXPECT_EQ(mcp::to_string(task_status::cancelled), "cancelled");
  EXPECT_FALSE(mcp::task_status_from_string("Working").has_value());
  EXPECT_FALSE(mcp::task_status_from_string("").has_value());
}

TEST_P(task_store_contract, every_transition_is_allowed_or_refused_as_the_spec_says) {
  const auto expected = [](task_status from, task_status to) {
    if (mcp::is_terminal(from)) return false;
    if (mcp::is_terminal(to)) return true;
    // input_required -> input_required: the questions a task waits on change.
    return (from == task_status::working && to == task_status::input_required) ||
           (from == task_status::input_required && to == task_status::working) ||
           (from == task_status::input_required && to == task_status::input_required);
  };
  int n = 0;
  for (const auto from : all_statuses) {
    for (const auto to : all_statuses) {
      const bool allowed = expected(from, to);
      EXPECT_EQ(mcp::is_allowed_transition(from, to), allowed)
          << mcp::to_string(from) << " -> " << mcp::to_string(to);
      auto t = make_task("t" + std::to_string(n++));
      t.status = from;
      t.status_message = "before";
      t.created_at -= 1s;
      t.last_updated_at = t.created_at;
      put(t);
      const auto before = sys_clock::now();
      const auto r = store_->update(
          t.id, "alice",
          {.status = to, .status_message = "after", .payload = result_payload("done")});
      ASSERT_TRUE(r) << r.error().message;
      ASSERT_TRUE(r->has_value());
      const auto stored = store_->get(t.id, "alice").value();
      ASSERT_TRUE(stored.has_value());
      expect_same(**r, *stored);
      if (allowed) {
        EXPECT_EQ((*r)->status, to);
        EXPECT_EQ((*r)->status_message, "after");
        EXPECT_EQ((*r)->payload, result_payload("done"));
        EXPECT_GE((*r)->last_updated_at, std::chrono::floor<std::chrono::milliseconds>(before));
      } else {
        expect_same(**r, t);  // unchanged, last_updated_at included
      }
    }
  }
}

TEST_P(task_store_contract, a_terminal_task_never_changes_and_update_returns_the_winner) {
  put(make_task("t1"));
  const auto first = store_
                         ->update("t1", "alice",
                                  {.status = task_status::completed,
                                   .status_message = "done",
                                   .payload = result_payload("42")})
                         .value();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->status, task_status::completed);
  for (const auto to : all_statuses) {
    const auto late =
        store_->update("t1", "alice", {.status = to, .status_message = "late"}).value();
    ASSERT_TRUE(late.has_value());
    expect_same(*late, *first);
  }
  EXPECT_FALSE(store_->update("missing", "alice", {.status = task_status::failed}).value());
}

TEST_P(task_store_contract, input_required_and_back_to_working_keep_the_request_and_answer) {
  put(make_task("t1"));
  const mcp::json::object asked{{"method", "elicitation/create"},
                                {"params", mcp::json::object{{"message", "Name?"}}}};
  const mcp::json::object answer{
      {"result",
       mcp::json::object{{"action", "accept"}, {"content", mcp::json::object{{"name", "Ada"}}}}}};
  auto r = store_
               ->update("t1", "alice",
                        {.status = task_status::input_required,
                         .status_message = "need a name",
                         .input_request = asked})
               .value();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, task_status::input_required);
  EXPECT_EQ(r->status_message, "need a name");
  EXPECT_EQ(store_->get("t1", "alice").value()->input_request, asked);
  r = store_
          ->update(
              "t1", "alice",
              {.status = task_status::working, .input_request = asked, .input_response = answer})
          .value();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, task_status::working);
  EXPECT_EQ(r->status_message, "");
  const auto got = store_->get("t1", "alice").value().value();
  EXPECT_EQ(got.input_request, asked);
  EXPECT_EQ(got.input_response, answer);
  // The next change of status clears them; fail_unfinished too.
  r = store_->update("t1", "alice", {.status = task_status::completed}).value();
  EXPECT_TRUE(r->input_request.empty());
  EXPECT_TRUE(store_->get("t1", "alice").value()->input_response.empty());
  put(make_task("t2"));
  ASSERT_TRUE(store_->update("t2", "alice",
                             {.status = task_status::input_required, .input_request = asked}));
  EXPECT_EQ(store_->fail_unfinished("restarted").value(), 1U);
  EXPECT_TRUE(store_->get("t2", "alice").value()->input_request.empty());
}

TEST_P(task_store_contract, unfinished_lists_every_owners_running_tasks_oldest_first) {
  auto a = make_task("a");
  a.rerun = mcp::json::object{{"params", mcp::json::object{{"name", "tool"}}}};
  put(a);
  put(make_task("b", "bob"));
  put(make_task("c"));
  auto gone = make_task("d");
  gone.ttl = 1ms;
  gone.created_at -= 1h;
  put(gone);
  ASSERT_TRUE(store_->update("c", "alice", {.status = task_status::completed}));
  ASSERT_TRUE(store_->update("b", "bob", {.status = task_status::input_required}));
  const auto left = store_->unfinished().value();
  ASSERT_EQ(left.size(), 2U);
  EXPECT_EQ(left[0].id, "a");
  EXPECT_EQ(left[0].rerun, a.rerun);
  EXPECT_TRUE(store_->get("a", "alice").value()->rerun.empty());  // unfinished() only
  EXPECT_EQ(left[1].id, "b");
  EXPECT_EQ(left[1].owner, "bob");
}

TEST_P(task_store_contract, payloads_round_trip_exactly) {
  const auto payload =
      mcp::parse_json(
          R"({"result":{"content":[{"type":"text","text":"h\u00e9llo \u4e16\u754c \ud83d\ude80 \"q\" \\ \n"}],)"
          R"("structuredContent":{"n":-1.5e300,"i":9007199254740993,"u":18446744073709551615,)"
          R"("b":[true,false,null,[],{}],"deep":{"a":{"b":{"c":[1,[2,[3]]]}}}},"isError":false}})")
          .value()
          .as_object();
  put(make_task("t1"));
  const auto u =
      store_->update("t1", "alice", {.status = task_status::completed, .payload = payload}).value();
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->payload, payload);
  const auto got = store_->get("t1", "alice").value();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->payload, payload);
  EXPECT_EQ(got->payload.at("result").at("structuredContent").at("u").kind(),
            boost::json::kind::uint64);
  auto t = make_task("t2");
  t.status = task_status::failed;
  t.payload = mcp::parse_json(R"({"error":{"code":-32603,"message":"Ωmega"}})").value().as_object();
  t.status_message = "f\u00e4iled \U0001F4A5";
  put(t);
  const auto got2 = store_->get("t2", "alice").value();
  ASSERT_TRUE(got2.has_value());
  expect_same(*got2, t);
}

TEST_P(task_store_contract, list_pages_through_in_creation_order) {
  std::vector<std::string> ids;
  for (int i = 0; i < 25; ++i) {
    // Ids in descending order, so creation order is not id order.
    ids.push_back("task-" + std::to_string(99 - i));
    put(make_task(ids.back(), "alice"));
    put(make_task("other-" + std::to_string(i), "bob"));
  }
  std::vector<std::string> seen;
  std::set<std::string> cursors;
  std::string cursor;
  std::vector<std::size_t> sizes;
  for (int page = 0; page < 10; ++page) {
    const auto p = store_->list("alice", cursor, 10);
    ASSERT_TRUE(p) << p.error().message;
    sizes.push_back(p->tasks.size());
    for (const auto& t : p->tasks) {
      EXPECT_EQ(t.owner, "alice");
      seen.push_back(t.id);
    }
    if (p->next_cursor.empty()) break;
    EXPECT_TRUE(cursors.insert(p->next_cursor).second);
    cursor = p->next_cursor;
  }
  EXPECT_EQ(sizes, (std::vector<std::size_t>{10, 10, 5}));
  EXPECT_EQ(seen, ids);
  // A page that ends at the last task has no next cursor.
  const auto two = store_->list("alice", cursor, 5);
  ASSERT_TRUE(two);
  EXPECT_EQ(two->tasks.size(), 5U);
  EXPECT_TRUE(two->next_cursor.empty());
  for (const std::string& bad : std::vector<std::string>{
           "garbage", "t", "t0000000000000000", "tzzzzzzzzzzzzzzzz", "tffffffffffffffff",
           "T0000000000000001", std::string(cursor) + "0"}) {
    const auto r = store_->list("alice", bad, 10);
    ASSERT_FALSE(r) << bad;
    EXPECT_TRUE(r.error().is(mcp::errc::invalid_params)) << bad;
  }
}

TEST_P(task_store_contract, expired_tasks_are_hidden_and_purged) {
  auto old = make_task("old");
  old.created_at -= 10s;
  old.ttl = 1s;
  put(old);
  auto fresh = make_task("fresh");
  fresh.ttl = 1h;
  put(fresh);
  auto forever = make_task("forever");
  put(forever);
  auto old2 = make_task("old2");
  old2.created_at -= 10s;
  old2.ttl = 5s;
  put(old2);

  EXPECT_FALSE(store_->get("old", "alice").value().has_value());
  EXPECT_FALSE(store_->update("old", "alice", {.status = task_status::completed}).value());
  const auto page = store_->list("alice", "", 10).value();
  std::vector<std::string> ids;
  for (const auto& t : page.tasks) ids.push_back(t.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"fresh", "forever"}));
  // "old" was deleted by get; "old2" is hidden from the list, and gone after the sweep at the
  // latest (a list need not delete: that would cost a scan of the owner's tasks). An hour later
  // only the one-hour task expires, and the task without a ttl never does.
  EXPECT_LE(store_->purge_expired(sys_clock::now()).value(), 1U);
  EXPECT_EQ(store_->purge_expired(sys_clock::now()).value(), 0U);
  EXPECT_EQ(store_->purge_expired(sys_clock::now() + 2h).value(), 1U);
  EXPECT_FALSE(store_->get("fresh", "alice").value().has_value());
  EXPECT_TRUE(store_->get("forever", "alice").value().has_value());
  auto later = make_task("later");
  later.created_at -= 10s;
  later.ttl = 1s;
  put(later);
  EXPECT_EQ(store_->purge_expired(sys_clock::now()).value(), 1U);
  EXPECT_EQ(store_->purge_expired(sys_clock::now() + 1000h).value(), 0U);
}

TEST_P(task_store_contract, fail_unfinished_fails_only_unfinished_tasks) {
  put(make_task("w"));
  auto ir = make_task("ir", "bob");
  ir.status = task_status::input_required;
  put(ir);
  auto done = make_task("done");
  done.status = task_status::completed;
  done.payload = result_payload("ok");
  put(done);
  auto cancelled = make_task("c");
  cancelled.status = task_status::cancelled;
  put(cancelled);

  EXPECT_EQ(store_->fail_unfinished("server restarted").value(), 2U);
  for (const auto& [id, owner] : {std::pair{"w", "alice"}, std::pair{"ir", "bob"}}) {
    const auto t = store_->get(id, owner).value();
    ASSERT_TRUE(t.has_value()) << id;
    EXPECT_EQ(t->status, task_status::failed);
    EXPECT_EQ(t->status_message, "server restarted");
    ASSERT_TRUE(t->payload.contains("error"));
    EXPECT_EQ(t->payload.at("error").at("message"), "server restarted");
  }
  expect_same(store_->get("done", "alice").value().value(), done);
  expect_same(store_->get("c", "alice").value().value(), cancelled);
  EXPECT_EQ(store_->fail_unfinished("again").value(), 0U);
}

TEST_P(task_store_contract, racing_terminal_updates_have_exactly_one_winner) {
  for (int round = 0; round < 5; ++round) {
    const std::string id = "race" + std::to_string(round);
    put(make_task(id));
    constexpr int threads = 8;
    std::latch start(threads);
    std::vector<task_record> seen(threads);
    std::vector<std::string> errors(threads);
    std::vector<std::thread> pool;
    for (int i = 0; i < threads; ++i) {
      pool.emplace_back([&, i] {
        const task_status to = all_statuses[2 + static_cast<std::size_t>(i) % 3];
        start.arrive_and_wait();
        const auto r = store_->update(id, "alice",
                                      {.status = to,
                                       .status_message = "thread " + std::to_string(i),
                                       .payload = result_payload(std::to_string(i))});
        if (!r) {
          errors[static_cast<std::size_t>(i)] = r.error().message;
        } else if (r->has_value()) {
          seen[static_cast<std::size_t>(i)] = **r;
        }
      });
    }
    for (auto& t : pool) t.join();
    int winners = 0;
    for (int i = 0; i < threads; ++i) {
      const auto& s = seen[static_cast<std::size_t>(i)];
      EXPECT_EQ(errors[static_cast<std::size_t>(i)], "");
      EXPECT_EQ(s.id, id);
      if (s.status_message == "thread " + std::to_string(i)) ++winners;
      expect_same(s, seen[0]);
    }
    EXPECT_EQ(winners, 1);
    const auto final_state = store_->get(id, "alice").value();
    ASSERT_TRUE(final_state.has_value());
    EXPECT_TRUE(mcp::is_terminal(final_state->status));
    expect_same(*final_state, seen[0]);
  }
}

}  // namespace mcp::test::contract
