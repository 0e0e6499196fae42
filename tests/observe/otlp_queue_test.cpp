// The exporter's queue under several threads at once, against the receiver otlp-sink.mjs: every
// span queued is either sent or counted dropped (none lost, none twice), in both encodings; a
// queue held at `max_queue` (nothing sent until a flush) drops exactly what does not fit whatever
// thread queued it; blocks filled by several threads wake the exporter's thread with no flush
// and no batch time (a lost wake would leave a block waiting an hour); flushes called while spans
// keep coming all return and leave nothing behind.
#include <mcp/observe/otlp.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "observe/otlp_sink.hpp"

namespace {

using namespace otlp_test;

/// Spans received by the sink: the spans of every request.
std::size_t received(const sink& s) {
  std::size_t n = 0;
  for (const auto& line : s.lines()) {
    EXPECT_EQ(text(line, "ok"), "true");
    n += spans_of(line).size();
  }
  return n;
}

/// `threads` threads each queueing `each` spans on `e` (joined before it returns).
void queue_from_threads(const std::shared_ptr<otlp_exporter>& e, int threads, int each) {
  std::vector<std::thread> ts;
  auto go = std::make_shared<std::atomic<bool>>(false);
  for (int t = 0; t < threads; ++t) {
    ts.emplace_back([e, go, each] {
      while (!go->load()) std::this_thread::yield();
      const auto sink = e->span_sink();
      for (int i = 0; i < each; ++i) {
        if (i % 2 == 0) {
          e->export_span(one_span());
        } else {
          sink(one_span());
        }
      }
    });
  }
  go->store(true);
  for (auto& t : ts) t.join();
}

TEST(OtlpExporterQueue, ManyThreadsQueueingAtOnceLoseNoSpan) {
  for (const auto encoding : {otlp_encoding::json, otlp_encoding::protobuf}) {
    sink s({});
    ASSERT_TRUE(s.ok()) << s.log();
    auto opts = fast(s, encoding);
    opts.max_batch = 16;
    opts.max_queue = 256;
    auto e = make_otlp_exporter(opts);
    ASSERT_TRUE(e);
    constexpr int threads = 6, each = 400;
    queue_from_threads(*e, threads, each);
    ASSERT_TRUE((*e)->flush(30s));
    const auto st = (*e)->stats();
    EXPECT_EQ(st.spans_exported + st.spans_dropped, std::uint64_t{threads * each});
    EXPECT_EQ(st.spans_failed, 0U);
    EXPECT_GT(st.spans_exported, 0U);
    EXPECT_EQ(received(s), st.spans_exported);
  }
}

TEST(OtlpExporterQueue, AQueueAtItsBoundDropsExactlyWhatDoesNotFit) {
  sink s({});
  ASSERT_TRUE(s.ok()) << s.log();
  auto opts = fast(s);
  opts.max_queue = 24;
  opts.max_batch = 1000;  // never filled: nothing goes before the flush
  opts.batch_delay = std::chrono::hours(1);
  auto e = make_otlp_exporter(opts);
  ASSERT_TRUE(e);
  queue_from_threads(*e, 4, 50);
  EXPECT_EQ((*e)->stats().spans_dropped, 200U - 24U);
  EXPECT_EQ((*e)->stats().spans_exported, 0U);
  ASSERT_TRUE((*e)->flush(20s));
  EXPECT_EQ((*e)->stats().spans_exported, 24U);
  EXPECT_EQ(received(s), 24U);
}

TEST(OtlpExporterQueue, BlocksFilledByManyThreadsAreSentWithoutAFlush) {
  sink s({});
  ASSERT_TRUE(s.ok()) << s.log();
  auto opts = fast(s, otlp_encoding::protobuf);
  opts.max_batch = 8;
  opts.max_queue = 4096;
  opts.batch_delay = std::chrono::hours(1);  // only a full block wakes the thread
  auto e = make_otlp_exporter(opts);
  ASSERT_TRUE(e);
  constexpr int threads = 4, each = 64;  // 32 blocks' worth
  queue_from_threads(*e, threads, each);
  // The thread takes the whole queue when a block fills, a part-filled last block with it, so
  // the blocks' bounds shift: without a flush, all but fewer than one block's spans go out (a
  // lost wake would leave many blocks behind).
  constexpr std::uint64_t all = threads * each;
  const auto until = std::chrono::steady_clock::now() + 20s;
  while ((*e)->stats().spans_exported + (opts.max_batch - 1) < all &&
         std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_GE((*e)->stats().spans_exported + (opts.max_batch - 1), all);
  ASSERT_TRUE((*e)->flush(20s));  // the rest
  const auto st = (*e)->stats();
  EXPECT_EQ(st.spans_exported, all);
  EXPECT_EQ(st.spans_dropped + st.spans_failed, 0U);
  EXPECT_EQ(received(s), std::size_t{all});
}

TEST(OtlpExporterQueue, FlushesWhileSpansKeepComingAllReturnAndLeaveNothing) {
  sink s({});
  ASSERT_TRUE(s.ok()) << s.log();
  auto opts = fast(s, otlp_encoding::protobuf);
  opts.max_batch = 32;
  opts.max_queue = 512;
  opts.batch_delay = std::chrono::hours(1);
  auto e = make_otlp_exporter(opts);
  ASSERT_TRUE(e);
  auto done = std::make_shared<std::atomic<bool>>(false);
  std::thread flusher([e = *e, done] {
    while (!done->load()) EXPECT_TRUE(e->flush(30s));
  });
  constexpr int threads = 4, each = 300;
  queue_from_threads(*e, threads, each);
  done->store(true);
  flusher.join();
  ASSERT_TRUE((*e)->flush(30s));
  const auto st = (*e)->stats();
  EXPECT_EQ(st.spans_exported + st.spans_dropped, std::uint64_t{threads * each});
  EXPECT_EQ(st.spans_failed, 0U);
  EXPECT_EQ(received(s), st.spans_exported);
}

TEST(OtlpExporterQueue, SpansQueuedAfterShutdownAreCountedDropped) {
  sink s({});
  ASSERT_TRUE(s.ok()) << s.log();
  auto e = make_otlp_exporter(fast(s));
  ASSERT_TRUE(e);
  (*e)->export_span(one_span());
  (*e)->shutdown(20s);
  queue_from_threads(*e, 3, 10);
  const auto st = (*e)->stats();
  EXPECT_EQ(st.spans_exported, 1U);
  EXPECT_EQ(st.spans_dropped, 30U);
  EXPECT_TRUE((*e)->flush(1s));  // the thread is gone: nothing is left queued
  EXPECT_EQ(received(s), 1U);
}

}  // namespace
