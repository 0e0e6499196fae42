// SSE framing and the in-memory event store, without sockets.
#include "http/sse.hpp"

#include <mcp/http_server.hpp>

#include <gtest/gtest.h>

#include "http/stream.hpp"

namespace {

using mcp::http_detail::append_sse_event;
using mcp::http_detail::sse_event;
using mcp::http_detail::sse_parser;

std::vector<sse_event> parse(std::string_view text, sse_parser& p) {
  std::vector<sse_event> out;
  p.feed(text, [&](const sse_event& e) { out.push_back(e); });
  return out;
}

TEST(Sse, EncodesIdRetryAndMultiLineData) {
  std::string out;
  append_sse_event(out, "3-1", "a\nb\r\nc", std::chrono::milliseconds(500));
  EXPECT_EQ(out, "id: 3-1\nretry: 500\ndata: a\ndata: b\ndata: c\n\n");
  sse_parser p;
  auto ev = parse(out, p);
  ASSERT_EQ(ev.size(), 1U);
  EXPECT_EQ(ev[0].data, "a\nb\nc");
  EXPECT_EQ(ev[0].id, "3-1");
  EXPECT_EQ(p.retry(), std::chrono::milliseconds(500));
}

TEST(Sse, ParsesAcrossChunksWithCrLfCommentsAndPriming) {
  const std::string text =
      ": comment\r\nid: 1-0\r\nretry: 2000\r\ndata: \r\n\r\n"
      "event: message\r\nid: 1-1\r\ndata: {\"x\":1}\r\n\r\n"
      "data:no-space\n\n";
  sse_parser p;
  std::vector<sse_event> all;
  for (char c : text) {  // byte by byte: every split point
    p.feed(std::string_view(&c, 1), [&](const sse_event& e) { all.push_back(e); });
  }
  ASSERT_EQ(all.size(), 2U);  // the priming event has empty data and is not reported
  EXPECT_EQ(all[0].data, "{\"x\":1}");
  EXPECT_EQ(all[0].id, "1-1");
  EXPECT_EQ(all[1].data, "no-space");
  EXPECT_EQ(all[1].id, "1-1");  // the last id persists
  EXPECT_EQ(p.last_event_id(), "1-1");
  EXPECT_EQ(p.retry(), std::chrono::milliseconds(2000));
}

TEST(EventStore, ReplaysAfterAnIdAndReportsEvictedEvents) {
  auto store = mcp::make_memory_event_store({.max_bytes = 1 << 20, .max_events_per_stream = 3});
  for (std::uint64_t i = 1; i <= 5; ++i) store->append("s", 1, i, "m" + std::to_string(i));
  auto after4 = store->events_after("s", 1, 4);
  ASSERT_TRUE(after4);
  ASSERT_EQ(after4->size(), 1U);
  EXPECT_EQ(after4->front().data, "m5");
  EXPECT_FALSE(store->events_after("s", 1, 1));  // 2 was evicted: replay would lose it
  EXPECT_FALSE(store->events_after("other", 1, 4));
  store->erase_session("s");
  EXPECT_FALSE(store->events_after("s", 1, 4));
}

TEST(EventStore, ByteBudgetEvictsOldestStreams) {
  auto store = mcp::make_memory_event_store({.max_bytes = 100, .max_events_per_stream = 100});
  store->append("s", 1, 1, std::string(60, 'a'));
  store->append("s", 2, 1, std::string(60, 'b'));
  EXPECT_FALSE(store->events_after("s", 1, 0));
  EXPECT_TRUE(store->events_after("s", 2, 0));
}

TEST(ResponseStream, JsonWhenTheAnswerComesFirstSseOtherwise) {
  using mcp::http_detail::response_stream;
  response_stream json_stream({});
  json_stream.push(R"({"id":1})", true);
  auto t = json_stream.take(json_stream.attach([] {}));
  EXPECT_EQ(t.kind, response_stream::mode::json);
  EXPECT_EQ(t.bytes, R"({"id":1})");
  EXPECT_TRUE(t.finished);

  auto store = mcp::make_memory_event_store();
  response_stream sse({.session = "s", .number = 4, .store = store, .priming = true});
  const auto gen = sse.attach([] {});
  sse.push("progress", false);
  sse.push("answer", true);
  t = sse.take(gen);
  EXPECT_EQ(t.kind, response_stream::mode::sse);
  EXPECT_EQ(t.bytes,
            "id: 4-0\nretry: 1000\ndata: \n\nid: 4-1\ndata: progress\n\nid: 4-2\ndata: "
            "answer\n\n");
  EXPECT_EQ(t.messages, 2U);
  EXPECT_TRUE(t.finished);
  ASSERT_TRUE(sse.rewind(1));
  t = sse.take(sse.attach([] {}));
  EXPECT_EQ(t.bytes, "id: 4-2\ndata: answer\n\n");
  EXPECT_EQ(sse.take(gen).superseded, true);
}

TEST(ResponseStream, ARequestCancelledCountsAsAnsweredWithoutAnAnswer) {
  using mcp::http_detail::response_stream;
  // One request, cancelled before anything came: an SSE stream that ends with no event.
  response_stream alone({});
  alone.settle_unanswered();
  auto t = alone.take(alone.attach([] {}));
  EXPECT_EQ(t.kind, response_stream::mode::sse);
  EXPECT_EQ(t.messages, 0U);
  EXPECT_TRUE(t.finished);
  // A batch of two, one answered and one cancelled: the JSON array of the one answer.
  response_stream::config two;
  two.expected_finals = 2;
  two.batch = true;
  response_stream batch(two);
  batch.push(R"({"id":1})", true);
  EXPECT_FALSE(batch.finished());
  batch.settle_unanswered();
  t = batch.take(batch.attach([] {}));
  EXPECT_EQ(t.kind, response_stream::mode::json);
  EXPECT_EQ(t.bytes, R"([{"id":1}])");
  EXPECT_TRUE(t.finished);
  // Already streaming: the stream ends after what it carried.
  response_stream sse({});
  const auto gen = sse.attach([] {});
  sse.push("progress", false);
  sse.settle_unanswered();
  t = sse.take(gen);
  EXPECT_EQ(t.messages, 1U);
  EXPECT_TRUE(t.finished);
}

TEST(ResponseStream, AWriterThatFallsBehindIsCutOff) {
  using mcp::http_detail::response_stream;
  response_stream s({.session = "s",
                     .number = 1,
                     .store = mcp::make_memory_event_store(),
                     .standalone = true,
                     .max_pending_bytes = 200});
  int wakes = 0;
  const auto gen = s.attach([&] { ++wakes; });
  for (int i = 0; i < 10; ++i) s.push(std::string(50, 'x'), false);
  EXPECT_GT(wakes, 0);
  EXPECT_TRUE(s.take(gen).superseded);
  ASSERT_TRUE(s.rewind(0));  // everything is still in the store
  auto t = s.take(s.attach([] {}));
  EXPECT_EQ(t.messages, 10U);
}

}  // namespace
