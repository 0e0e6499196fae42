// The exporter's connection to the collector, kept between requests (src/http/fetch.hpp's
// fetch_connection), against the receiver otlp-sink.mjs: one connection for every POST; a
// connection the collector closed while idle, or idle longer than the limit, replaced before use
// with no request lost or retried; interim (103) answers passed over, each final answer counted
// for its own POST; a POST written whole and then left unanswered retried as a failed attempt
// (counted), not sent again silently.
#include <mcp/observe/otlp.hpp>

#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "observe/otlp_sink.hpp"

namespace {

using namespace otlp_test;

/// Requests, each of one span, made one after the other (`pause` apart) until all were received.
/// `idle_limit`: the exporter's `connection_idle_limit`.
std::vector<mcp::json::object> posts_apart(const sink& s, int n, std::chrono::milliseconds pause,
                                           std::chrono::milliseconds idle_limit = 30s) {
  auto opts = fast(s);
  opts.connection_idle_limit = idle_limit;
  auto e = make_otlp_exporter(opts);
  if (!e) return {};
  for (int i = 0; i < n; ++i) {
    (*e)->export_span(one_span());
    EXPECT_TRUE((*e)->flush(20s));
    std::this_thread::sleep_for(pause);
  }
  const auto st = (*e)->stats();
  EXPECT_EQ(st.spans_exported, static_cast<std::uint64_t>(n));
  EXPECT_EQ(st.requests, static_cast<std::uint64_t>(n));
  EXPECT_EQ(st.spans_failed + st.retries, 0U);
  return s.lines();
}

TEST(OtlpExporter, OneConnectionCarriesEveryPost) {
  sink s({});
  ASSERT_TRUE(s.ok()) << s.log();
  const auto lines = posts_apart(s, 4, 10ms);
  ASSERT_EQ(lines.size(), 4U);
  for (const auto& line : lines) EXPECT_EQ(line.at("conn").to_number<int>(), 1);
}

TEST(OtlpExporter, ACollectorClosingIdleConnectionsStillGetsEverySpan) {
  sink s({"CLOSE_IDLE=1"});  // closed 20 ms after each answer, without a word
  ASSERT_TRUE(s.ok()) << s.log();
  // Seen closed before reuse: nothing sent on the closed connection, no retry (posts_apart
  // counts them). The pause leaves the exporter ample time to notice the close.
  const auto lines = posts_apart(s, 4, 500ms);
  ASSERT_EQ(lines.size(), 4U);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(text(lines[i], "ok"), "true");
    EXPECT_EQ(lines[i].at("conn").to_number<std::size_t>(), i + 1);
  }
}

TEST(OtlpExporter, AConnectionIdleLongerThanTheLimitIsOpenedAgain) {
  sink s({});
  ASSERT_TRUE(s.ok()) << s.log();
  const auto lines = posts_apart(s, 3, 150ms, 50ms);
  ASSERT_EQ(lines.size(), 3U);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(text(lines[i], "ok"), "true");
    EXPECT_EQ(lines[i].at("conn").to_number<std::size_t>(), i + 1);
  }
}

TEST(OtlpExporter, InterimAnswersArePassedOverAndEachFinalAnswerCountsForItsPost) {
  sink s({"EARLY_HINTS=1", "PARTIAL=1"});  // 103, then 200 with one span of the POST rejected
  ASSERT_TRUE(s.ok()) << s.log();
  auto e = make_otlp_exporter(fast(s));
  ASSERT_TRUE(e);
  for (std::uint64_t i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) (*e)->export_span(one_span());
    ASSERT_TRUE((*e)->flush(20s));
    const auto st = (*e)->stats();
    EXPECT_EQ(st.spans_exported, 2 * (i + 1));
    EXPECT_EQ(st.spans_failed, i + 1);
  }
  const auto st = (*e)->stats();
  EXPECT_EQ(st.requests, 3U);
  EXPECT_EQ(st.retries, 0U);
  const auto lines = s.lines();
  ASSERT_EQ(lines.size(), 3U);
  for (const auto& line : lines) {
    EXPECT_EQ(text(line, "ok"), "true");
    EXPECT_EQ(line.at("conn").to_number<int>(), 1);  // the connection stayed in step
  }
}

TEST(OtlpExporter, MoreThanEightInterimAnswersFailTheRequest) {
  for (const int hints : {8, 9}) {
    sink s({"EARLY_HINTS=" + std::to_string(hints)});
    ASSERT_TRUE(s.ok()) << s.log();
    auto opts = fast(s);
    opts.max_attempts = 1;
    auto e = make_otlp_exporter(opts);
    ASSERT_TRUE(e);
    (*e)->export_span(one_span());
    ASSERT_TRUE((*e)->flush(20s));
    const auto st = (*e)->stats();
    EXPECT_EQ(st.spans_exported, hints <= 8 ? 1U : 0U) << hints << " interim answers";
    EXPECT_EQ(st.spans_failed, hints <= 8 ? 0U : 1U) << hints << " interim answers";
  }
}

TEST(OtlpExporter, APostWrittenWholeAndLeftUnansweredIsACountedRetry) {
  sink s({"ANSWERLESS=2"});  // the second POST received, its connection closed unanswered
  ASSERT_TRUE(s.ok()) << s.log();
  auto e = make_otlp_exporter(fast(s));
  ASSERT_TRUE(e);
  for (int i = 0; i < 3; ++i) {
    (*e)->export_span(one_span());
    ASSERT_TRUE((*e)->flush(20s));
  }
  const auto st = (*e)->stats();
  EXPECT_EQ(st.spans_exported, 3U);
  EXPECT_EQ(st.spans_failed, 0U);
  EXPECT_EQ(st.requests, 4U);  // the collector may have acted on it: a retry, at least once
  EXPECT_EQ(st.retries, 1U);
  const auto lines = s.lines();
  ASSERT_EQ(lines.size(), 4U);
  EXPECT_EQ(text(lines[1], "status"), "none");
  EXPECT_EQ(lines[2].at("conn").to_number<int>(), 2);
}

}  // namespace
