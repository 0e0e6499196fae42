// src/http/stream.hpp: what a session produces for one HTTP response, taken by its writer.
#include "http/stream.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace {

using mcp::http_detail::response_stream;
using mode = response_stream::mode;

/// A stream's configuration, not resumable.
response_stream::config config(std::size_t expected_finals, bool batch, bool force_sse) {
  response_stream::config c;
  c.expected_finals = expected_finals;
  c.batch = batch;
  c.force_sse = force_sse;
  return c;
}

/// The `data:` lines of SSE bytes, in order.
std::vector<std::string> data_lines(const std::string& sse) {
  std::vector<std::string> out;
  for (std::size_t at = sse.find("data: "); at != std::string::npos;
       at = sse.find("data: ", at + 1)) {
    out.push_back(sse.substr(at + 6, sse.find('\n', at) - at - 6));
  }
  return out;
}

TEST(response_stream, a_single_answer_is_the_json_body_as_pushed) {
  response_stream s(config(1, false, false));
  const auto gen = s.attach([] {});
  EXPECT_EQ(s.take(gen).kind, mode::undecided);
  s.push(R"({"jsonrpc":"2.0","id":1,"result":{}})", true);
  auto t = s.take(gen);
  EXPECT_EQ(t.kind, mode::json);
  EXPECT_EQ(t.bytes, R"({"jsonrpc":"2.0","id":1,"result":{}})");
  EXPECT_TRUE(t.finished);
  EXPECT_TRUE(s.finished());
}

// The JSON answer's status comes from `json_status`, which reads the body, unless the answer
// was pushed as a result (its sender knew): then 200 without reading it.
TEST(response_stream, a_json_answers_status_is_read_unless_it_is_known_a_result) {
  auto with_status = [] {
    auto c = config(1, false, false);
    c.json_status = [](std::string_view body) {
      return body.find("error") != body.npos ? 404U : 201U;
    };
    return c;
  };
  const std::string error = R"({"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}})";
  response_stream read(with_status());
  read.push(error, true);
  EXPECT_EQ(read.json_status(), 404U);
  response_stream result(with_status());
  result.push(R"({"jsonrpc":"2.0","id":1,"result":{}})", true);
  EXPECT_EQ(result.json_status(), 201U);  // read: not said to be a result
  response_stream known(with_status());
  known.push(R"({"jsonrpc":"2.0","id":1,"result":{"error":1}})", true, true);
  EXPECT_EQ(known.json_status(), 200U);  // not read
  const auto gen = known.attach([] {});
  auto t = known.take(gen);
  EXPECT_EQ(t.kind, mode::json);
  EXPECT_EQ(t.status, 200U);
}

TEST(response_stream, an_answer_that_came_before_any_writer_is_taken_without_one) {
  response_stream s(config(1, false, false));
  EXPECT_FALSE(s.take_json_answer());  // not answered yet
  s.push(R"({"id":1})", true);
  EXPECT_EQ(s.take_json_answer(), R"({"id":1})");
  EXPECT_FALSE(s.take_json_answer());  // taken once

  response_stream late(config(1, false, false));
  const auto gen = late.attach([] {});
  late.push(R"({"id":2})", true);
  EXPECT_FALSE(late.take_json_answer());  // its writer takes it
  EXPECT_EQ(late.take(gen).bytes, R"({"id":2})");

  response_stream sse(config(1, false, true));
  sse.push(R"({"id":3})", true);
  EXPECT_FALSE(sse.take_json_answer());
}

TEST(response_stream, a_batch_answer_is_an_array_once_every_answer_came) {
  response_stream s(config(2, true, false));
  const auto gen = s.attach([] {});
  s.push(R"({"id":1})", true);
  EXPECT_EQ(s.take(gen).kind, mode::undecided);
  s.push(R"({"id":2})", true);
  auto t = s.take(gen);
  EXPECT_EQ(t.kind, mode::json);
  EXPECT_EQ(t.bytes, R"([{"id":1},{"id":2}])");
  EXPECT_TRUE(t.finished);
}

TEST(response_stream, takes_at_most_the_budget_in_order_and_keeps_the_rest) {
  response_stream s(config(1, false, true));
  int wakes = 0;
  const auto gen = s.attach([&] { ++wakes; });
  s.push("n1", false);
  s.push("n2", false);
  s.push("n3", false);
  EXPECT_EQ(wakes, 3);

  auto t = s.take(gen, 2);
  EXPECT_EQ(t.kind, mode::sse);
  EXPECT_EQ(t.messages, 2U);
  EXPECT_EQ(data_lines(t.bytes), (std::vector<std::string>{"n1", "n2"}));
  EXPECT_FALSE(t.finished);

  s.push("final", true);  // lands after what was left
  t = s.take(gen, 1);
  EXPECT_EQ(data_lines(t.bytes), (std::vector<std::string>{"n3"}));
  EXPECT_FALSE(t.finished);
  t = s.take(gen, 1);
  EXPECT_EQ(data_lines(t.bytes), (std::vector<std::string>{"final"}));
  EXPECT_TRUE(t.finished);
  t = s.take(gen);
  EXPECT_TRUE(t.bytes.empty());
  EXPECT_EQ(t.messages, 0U);
  EXPECT_TRUE(t.finished);
}

TEST(response_stream, a_writer_that_went_away_leaves_nothing_for_the_next) {
  response_stream s(config(1, false, true));
  const auto first = s.attach([] {});
  s.push("n1", false);
  s.push("n2", false);
  EXPECT_EQ(s.take(first, 1).messages, 1U);
  s.detach(first);
  auto gone = s.take(first);  // nothing was kept for it (the stream is not resumable)
  EXPECT_FALSE(gone.superseded);
  EXPECT_TRUE(gone.bytes.empty());
  const auto second = s.attach([] {});
  EXPECT_TRUE(s.take(first).superseded);
  s.push("n3", false);
  auto t = s.take(second);
  EXPECT_EQ(data_lines(t.bytes), (std::vector<std::string>{"n3"}));
}

TEST(response_stream, a_writer_that_falls_behind_is_cut_off_counting_only_what_is_pending) {
  auto c = config(1, false, true);
  c.max_pending_bytes = 64;
  response_stream s(std::move(c));
  int wakes = 0;
  const auto gen = s.attach([&] { ++wakes; });
  s.push("n1", false);  // each event "data: nN\n\n": 10 bytes
  s.push("n2", false);
  EXPECT_EQ(data_lines(s.take(gen, 1).bytes), (std::vector<std::string>{"n1"}));
  const std::string fits(40, 'f');  // 48 bytes: with n2 pending, 58 (n1 was taken)
  s.push(fits, false);
  auto t = s.take(gen);
  ASSERT_FALSE(t.superseded);
  EXPECT_EQ(data_lines(t.bytes), (std::vector<std::string>{"n2", fits}));
  s.push(std::string(100, 'x'), false);  // 108 bytes: over the bound, cut off
  EXPECT_EQ(wakes, 4);                   // woken to notice
  EXPECT_TRUE(s.take(gen).superseded);
  const auto next = s.attach([] {});
  s.push("n3", false);
  EXPECT_EQ(data_lines(s.take(next).bytes), (std::vector<std::string>{"n3"}));
}

TEST(response_stream, what_its_callbacks_use_lives_as_long_as_the_stream) {
  // The callbacks hold a plain pointer to a record the stream keeps: they run (ended, or the
  // writer gone first) while it is alive, and the stream lets it go only when it ends itself.
  struct record {
    int finished = 0;
    int abandoned = 0;
  };
  auto kept = std::make_shared<record>();
  const std::weak_ptr<record> seen = kept;
  {
    auto c = config(1, false, false);
    auto* const r = kept.get();
    c.on_finished = [r] { ++r->finished; };
    c.on_abandoned = [r] { ++r->abandoned; };
    c.keep = std::move(kept);
    auto s = std::make_shared<response_stream>(std::move(c));
    const auto gen = s->attach([] {});
    s->detach(gen);  // the writer went away before the answer
    s->push(R"({"jsonrpc":"2.0","id":1,"result":{}})", true);
    const auto held = seen.lock();
    ASSERT_NE(held, nullptr);
    EXPECT_EQ(held->abandoned, 1);
    EXPECT_EQ(held->finished, 1);
    EXPECT_EQ(seen.use_count(), 2);  // the stream's and this one
  }
  EXPECT_TRUE(seen.expired());
}

}  // namespace
