// The metrics observer and the Prometheus text (mcp/observe/metrics.hpp): buckets at their
// boundaries, error variants, derived counters, the cardinality limit, concurrent recording,
// and the exposition against a golden file.
#include <mcp/observe/metrics.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <thread>

#include "observe/exposition_check.hpp"

namespace {

using namespace mcp::observe;

const metric_data* find(const metrics_snapshot& s, std::string_view name) {
  for (const auto& m : s.metrics) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

const operation call{.side = kind::server,
                     .method = "tools/call",
                     .target = "get-weather",
                     .protocol_version = "2025-11-25",
                     .transport = network_transport::pipe};

TEST(Metrics, BucketsIncludeTheirUpperBound) {
  auto m = make_metrics();
  // Exactly on a boundary goes into that bucket (le is "less or equal").
  m->record(call, {}, 0.01);
  m->record(call, {}, 0.010000001);
  m->record(call, {}, 0.5);
  m->record(call, {}, 300);
  m->record(call, {}, 301);
  m->record(call, {}, 0);
  const auto snap = m->snapshot();
  const auto* h = find(snap, "mcp.server.operation.duration");
  ASSERT_NE(h, nullptr);
  ASSERT_EQ(h->histogram_points.size(), 1U);
  const auto& p = h->histogram_points[0];
  EXPECT_EQ(p.count, 6U);
  const std::array<std::uint64_t, 15> expected = {2, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1};
  EXPECT_EQ(p.bucket_counts, expected);
  EXPECT_NEAR(p.sum, 0.01 + 0.010000001 + 0.5 + 300 + 301, 1e-6);
  EXPECT_EQ(h->unit, "s");
}

TEST(Metrics, OutcomesAreSeriesOfTheirOwnAndCountersAreDerived) {
  auto m = make_metrics();
  m->record(call, {}, 0.001);
  m->record(call, {}, 0.001);
  m->record(call, {.status = status::tool_error}, 0.001);
  m->record(call, {.status = status::rpc_error, .code = -32602}, 0.001);  // caller's mistake
  m->record(call, {.status = status::rpc_error, .code = -32603}, 0.001);
  m->record(call, {.status = status::rpc_error, .code = -32603}, 0.001);
  const auto snap = m->snapshot();
  const auto* h = find(snap, "mcp.server.operation.duration");
  ASSERT_NE(h, nullptr);
  ASSERT_EQ(h->histogram_points.size(), 4U);
  EXPECT_EQ(h->histogram_points[0].count, 2U);  // ok
  const auto* ops = find(snap, "mcp.server.operations");
  ASSERT_NE(ops, nullptr);
  ASSERT_EQ(ops->number_points.size(), 1U);
  EXPECT_EQ(ops->number_points[0].value, 6);
  const auto* errs = find(snap, "mcp.server.errors");
  ASSERT_NE(errs, nullptr);
  ASSERT_EQ(errs->number_points.size(), 2U);  // tool_error and -32603; -32602 is not an error
  EXPECT_EQ(errs->number_points[0].value, 1);
  EXPECT_EQ(errs->number_points[1].value, 2);
  EXPECT_EQ(std::get<std::string>(errs->number_points[1].attributes.back().value), "-32603");
  EXPECT_EQ(find(snap, "mcp.client.operation.duration"), nullptr);  // nothing recorded
}

TEST(Metrics, ObserverEventsRecordDurationsAndGauges) {
  auto m = make_metrics();
  auto s = m->on_start({.side = kind::client, .method = "ping"});
  ASSERT_TRUE(s);
  std::this_thread::sleep_for(std::chrono::milliseconds(12));
  m->on_end(s, {.status = status::failed, .error_type = "timeout"});
  auto session = m->on_session_start({.side = kind::server, .transport = network_transport::tcp});
  m->on_stream(kind::server, 1);
  m->on_stream(kind::server, 1);
  m->on_stream(kind::server, -1);
  m->on_denial({.method = "tools/call", .target = "rm", .reason = "deny"});
  m->on_denial({.method = "tools/call", .target = "rm", .reason = "deny"});
  m->on_task_status("slow", "completed");
  auto snap = m->snapshot();
  const auto* h = find(snap, "mcp.client.operation.duration");
  ASSERT_NE(h, nullptr);
  ASSERT_EQ(h->histogram_points.size(), 1U);
  EXPECT_EQ(h->histogram_points[0].bucket_counts[0], 0U);  // slept past 10 ms
  EXPECT_GE(h->histogram_points[0].sum, 0.012);
  EXPECT_EQ(std::get<std::string>(h->histogram_points[0].attributes.back().value), "timeout");
  EXPECT_EQ(find(snap, "mcp.server.active_sessions")->number_points[0].value, 1);
  EXPECT_EQ(find(snap, "mcp.server.active_streams")->number_points[0].value, 1);
  EXPECT_EQ(find(snap, "mcp.server.denials")->number_points[0].value, 2);
  EXPECT_EQ(find(snap, "mcp.server.tasks")->number_points[0].value, 1);
  EXPECT_EQ(find(snap, "mcp.server.session.duration"), nullptr);  // not ended yet
  m->on_session_end(session, "");
  snap = m->snapshot();
  EXPECT_EQ(find(snap, "mcp.server.active_sessions")->number_points[0].value, 0);
  ASSERT_NE(find(snap, "mcp.server.session.duration"), nullptr);
  EXPECT_EQ(find(snap, "mcp.server.session.duration")->histogram_points[0].count, 1U);
}

// The thread's cache compares an operation's attributes member by member: each attribute of a
// series (texts of equal length and equal first and last words, too) keeps its own series, also
// right after the set it differs from, and a repeated set finds its own again.
TEST(Metrics, EveryAttributeOfASeriesSeparatesSeries) {
  auto m = make_metrics({.resource_uri_attribute = true});
  const operation base{.side = kind::client,
                       .method = "tools/call",
                       .target = "weather-in-paris-today",
                       .protocol_version = "2025-11-25",
                       .transport = network_transport::tcp,
                       .network_protocol_name = "http",
                       .network_protocol_version = "1.1",
                       .peer_address = "127.0.0.1",
                       .peer_port = 8080};
  std::vector<operation> sets(11, base);
  sets[1].method = "tools/list";  // no target: the tool's name is not part of its series
  sets[2].target = "weather-in-pXris-today";  // the same length, first and last eight bytes
  sets[3].target = "echo";
  sets[4].target = "ecno";  // a four-byte text differing inside
  sets[5].protocol_version = "2025-06-18";
  sets[6].transport = network_transport::pipe;
  sets[7].network_protocol_version = "2";
  sets[8].peer_address = "127.0.0.2";
  sets[9].peer_port = 8081;
  sets[10].method = "resources/read";
  sets[10].resource_uri = "file:///a";
  auto other = sets[10];
  other.resource_uri = "file:///b";
  sets.push_back(other);
  auto untargeted = sets[1];
  untargeted.target = "ignored";  // the same series as sets[1]
  const auto observe = [&m](const operation& op) {
    auto s = m->on_start(op);
    m->on_end(s, {});
  };
  for (int round = 0; round < 3; ++round) {
    for (std::size_t i = 1; i < sets.size(); ++i) {  // each right after the set it differs from
      observe(sets[0]);
      observe(sets[i]);
    }
    observe(untargeted);
  }
  const auto snap = m->snapshot();
  const auto* h = find(snap, "mcp.client.operation.duration");
  ASSERT_NE(h, nullptr);
  ASSERT_EQ(h->histogram_points.size(), sets.size());
  EXPECT_EQ(h->histogram_points[0].count, 3 * (sets.size() - 1));
  for (std::size_t i = 1; i < sets.size(); ++i) {
    EXPECT_EQ(h->histogram_points[i].count, i == 1 ? 6U : 3U) << "set " << i;
  }
}

TEST(Metrics, NewAttributeSetsPastTheLimitGoToTheOverflowSeries) {
  auto m = make_metrics({.max_series = 3});
  for (int i = 0; i < 10; ++i) {
    const std::string name = "tool" + std::to_string(i);
    m->record({.method = "tools/call", .target = name}, {}, 0.001);
  }
  const auto snap = m->snapshot();
  const auto* h = find(snap, "mcp.server.operation.duration");
  ASSERT_EQ(h->histogram_points.size(), 4U);
  const auto& overflow = h->histogram_points[3];
  EXPECT_EQ(overflow.count, 7U);
  ASSERT_EQ(overflow.attributes.size(), 1U);
  EXPECT_EQ(overflow.attributes[0].key, attr::overflow);
  EXPECT_TRUE(std::get<bool>(overflow.attributes[0].value));
}

TEST(Metrics, ErrorVariantsOfOneSetAreBounded) {
  auto m = make_metrics();
  for (int code = 1; code <= 100; ++code) {
    m->record({.side = kind::client, .method = "tools/call", .target = "t"},
              {.status = status::rpc_error, .code = -code}, 0.001);
  }
  const auto snap = m->snapshot();
  const auto* h = find(snap, "mcp.client.operation.duration");
  ASSERT_NE(h, nullptr);
  std::uint64_t total = 0;
  for (const auto& p : h->histogram_points) total += p.count;
  EXPECT_EQ(total, 100U);
  EXPECT_LE(h->histogram_points.size(), 34U);
}

TEST(Metrics, ConcurrentRecordingLosesNothing) {
  auto m = make_metrics();
  constexpr int threads = 4;
  constexpr int per_thread = 20000;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&m, t] {
      const std::string tool = "tool" + std::to_string(t % 2);
      for (int i = 0; i < per_thread; ++i) {
        auto s = m->on_start({.method = "tools/call", .target = tool});
        m->on_end(s, i % 10 == 0 ? outcome{.status = status::tool_error} : outcome{});
      }
    });
  }
  for (auto& t : pool) t.join();
  const auto snap = m->snapshot();
  const auto* ops = find(snap, "mcp.server.operations");
  ASSERT_NE(ops, nullptr);
  std::int64_t total = 0;
  for (const auto& p : ops->number_points) total += p.value;
  EXPECT_EQ(total, threads * per_thread);
  const auto* errs = find(snap, "mcp.server.errors");
  std::int64_t errors = 0;
  for (const auto& p : errs->number_points) errors += p.value;
  EXPECT_EQ(errors, threads * per_thread / 10);
}

// Successes are recorded in each thread's own cell of its series (at most 32 threads a series,
// the rest share one): the sum of them all is exact, also for threads that have ended, and a
// snapshot taken while threads record never goes back.
TEST(Metrics, SuccessesOfManyThreadsAreExactInEveryBucket) {
  auto m = make_metrics();
  constexpr int threads = 40;
  constexpr int per_thread = 3000;
  const auto fast = std::chrono::milliseconds(5);   // bucket 0 (<= 10 ms)
  const auto slow = std::chrono::milliseconds(25);  // bucket 2 (<= 50 ms)
  std::atomic<bool> done{false};
  std::uint64_t seen = 0;
  std::thread reader([&] {
    while (!done.load()) {
      const auto snap = m->snapshot();
      const auto* h = find(snap, "mcp.server.operation.duration");
      const auto n = h == nullptr ? 0 : h->histogram_points.at(0).count;
      EXPECT_GE(n, seen);
      seen = n;
    }
  });
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&m, fast, slow] {
      for (int i = 0; i < per_thread; ++i) {
        auto s = m->on_start({.method = "tools/call", .target = "one"});
        m->on_end(s, {.end = s.start + (i % 3 == 0 ? slow : fast)});
      }
    });
  }
  for (auto& t : pool) t.join();
  done = true;
  reader.join();
  const auto snap = m->snapshot();
  const auto* h = find(snap, "mcp.server.operation.duration");
  ASSERT_NE(h, nullptr);
  ASSERT_EQ(h->histogram_points.size(), 1U);
  const auto& p = h->histogram_points[0];
  constexpr std::uint64_t total = std::uint64_t{threads} * per_thread;
  EXPECT_EQ(p.count, total);
  EXPECT_EQ(p.bucket_counts[0], total - total / 3);
  EXPECT_EQ(p.bucket_counts[2], total / 3);
  EXPECT_DOUBLE_EQ(
      p.sum, static_cast<double>((total / 3) * 25'000'000 + (total - total / 3) * 5'000'000) / 1e9);
}

// A thread records into a new observer's series from zero, never into a gone one's cell.
TEST(Metrics, ANewObserverOnTheSameThreadStartsFromZero) {
  for (int round = 1; round <= 3; ++round) {
    auto m = make_metrics();
    for (int i = 0; i < round; ++i) {
      auto s = m->on_start({.method = "tools/call", .target = "one"});
      m->on_end(s, {.end = s.start});
    }
    const auto snap = m->snapshot();
    const auto* h = find(snap, "mcp.server.operation.duration");
    ASSERT_NE(h, nullptr);
    EXPECT_EQ(h->histogram_points.at(0).count, static_cast<std::uint64_t>(round));
  }
}

/// A fixed mix of operations whose exposition is the golden file.
std::shared_ptr<metrics> golden_mix() {
  auto m = make_metrics({.resource = {{"service.name", "weather"}, {"service.version", "1.2"}}});
  m->record(call, {}, 0.004);
  m->record(call, {}, 0.3);
  m->record(call, {.status = status::tool_error}, 0.015);
  m->record({.side = kind::server,
             .method = "prompts/get",
             .target = "say \"hi\"\\\n",  // a name that needs escaping
             .transport = network_transport::pipe},
            {.status = status::rpc_error, .code = -32602, .message = "no such prompt"}, 0.002);
  m->record({.side = kind::client,
             .method = "sampling/createMessage",
             .protocol_version = "2025-06-18",
             .transport = network_transport::tcp,
             .network_protocol_name = "http",
             .network_protocol_version = "1.1",
             .peer_address = "127.0.0.1",
             .peer_port = 8080},
            {.status = status::rpc_error, .code = -32603}, 1.5);
  m->on_denial({.method = "tools/call", .target = "rm", .reason = "deny"});
  m->on_task_status("slow", "completed");
  auto session = m->on_session_start({.side = kind::server, .transport = network_transport::pipe});
  m->on_stream(kind::server, 1);
  (void)session;  // left open: the gauge says 1
  return m;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Prometheus, GoldenExposition) {
  // The SDK's version is written as @VERSION@ in the golden file.
  auto text = golden_mix()->prometheus_text();
  const std::string version = "otel_scope_version=\"" + std::string(scope_version()) + "\"";
  for (auto at = text.find(version); at != std::string::npos; at = text.find(version, at)) {
    text.replace(at, version.size(), "otel_scope_version=\"@VERSION@\"");
  }
  const std::string golden_path = MCP_SOURCE_DIR "/tests/observe/golden/metrics.prom";
  if (std::getenv("MCP_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(golden_path) << text;
  }
  EXPECT_EQ(text, read_file(golden_path)) << text;
}

TEST(Prometheus, HistogramsAreConsistent) {
  const auto problems = mcp::observe_test::check_histograms(golden_mix()->prometheus_text());
  EXPECT_TRUE(problems.empty()) << problems;
}

TEST(Prometheus, NamesLabelsAndEscaping) {
  metrics_snapshot snap;
  snap.metrics.push_back({.name = "my.dotted..metric-x",
                          .description = "a \"help\" with \\ and\nnewline",
                          .unit = "By",
                          .type = metric_type::counter,
                          .number_points = {{{{attr::tool_name, std::string("a\"b\\c\nd\xFF")},
                                              {attr::server_port, std::int64_t{80}},
                                              {attr::overflow, true}},
                                             3,
                                             0}}});
  std::string out;
  write_prometheus(snap, {{"service.name", "s"}, {"service_name", "t"}, {"9lives", "x"}}, out);
  EXPECT_EQ(out,
            "# HELP target_info Target metadata\n"
            "# TYPE target_info gauge\n"
            "target_info{_9lives=\"x\",service_name=\"s;t\"} 1\n"
            "# HELP my_dotted_metric_x_bytes_total a \"help\" with \\\\ and\\nnewline\n"
            "# TYPE my_dotted_metric_x_bytes_total counter\n"
            "my_dotted_metric_x_bytes_total{gen_ai_tool_name=\"a\\\"b\\\\c\\nd\xEF\xBF\xBD\","
            "server_port=\"80\",otel_metric_overflow=\"true\",otel_scope_name=\"mcp-cpp\","
            "otel_scope_version=\"" +
                std::string(scope_version()) + "\"} 3\n");
}

}  // namespace
