// A new trace begun without the operation (`observer::starts_roots`): a request received
// without a trace context in `_meta` gets its span from the tracer's ids (with the metrics' word of
// its set, seen before, when combined); the tracer's sampling decision made there is the one its
// recorded span keeps, and a request with `_meta` still follows its parent. A 2026-07-28 request
// that a legacy session hands to its twin is observed by the twin alone.
#include <mcp/client.hpp>
#include <mcp/observe/metrics.hpp>
#include <mcp/observe/tracing.hpp>
#include <mcp/server.hpp>
#include <mcp/transport/memory.hpp>

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "observe/series_count.hpp"
#include "support/wire.hpp"

namespace {

using mcp::observe::kind;
using mcp::observe::span_record;

/// The trace ids of the server's tools/call spans a tracer recorded, and those its tool saw.
struct traces {
  std::mutex mu;
  std::vector<std::string> recorded;
  std::vector<std::string> seen;

  std::shared_ptr<mcp::observe::observer> tracer(const std::shared_ptr<traces>& self,
                                                 double ratio) {
    return mcp::observe::make_tracer({.sink =
                                          [self](std::unique_ptr<span_record> r) {
                                            if (r->side() != kind::server ||
                                                r->name() != "tools/call add") {
                                              return;
                                            }
                                            std::lock_guard lock(self->mu);
                                            self->recorded.push_back(r->context.trace_id_hex());
                                          },
                                      .root_sample_ratio = ratio});
  }
};

/// Tool `add`, which notes the trace id it runs in.
void add_tool(mcp::server& s, const std::shared_ptr<traces>& t) {
  s.add_tool({.name = "add"}, [t](mcp::tool_context& ctx) {
    std::lock_guard lock(t->mu);
    t->seen.push_back(ctx.trace_id());
    return std::string("3");
  });
}

/// The operations of `method` counted by the server's duration histogram.
std::uint64_t server_calls(const mcp::observe::metrics& m,
                           const std::string& method_name = "tools/call") {
  return mcp_test::count_where(m, {{"mcp.method.name", method_name}});
}

TEST(engine_roots, a_tracer_and_the_metrics_combined_begin_new_traces_from_the_sets_word) {
  auto metrics = mcp::observe::make_metrics();
  const auto sink = [](std::unique_ptr<span_record>) {};
  EXPECT_TRUE(mcp::observe::make_tracer({.sink = sink})->starts_roots())
      << "every new trace sampled: begun from the set's shape";
  auto tracer = mcp::observe::make_tracer({.sink = sink, .root_sample_ratio = 0.999999});
  EXPECT_TRUE(tracer->starts_roots());
  EXPECT_FALSE(metrics->starts_roots());
  auto both = mcp::observe::combine({tracer, metrics});
  EXPECT_TRUE(both->starts_roots());
  EXPECT_FALSE(mcp::observe::combine({metrics, tracer})->starts_roots());
  const auto t = std::chrono::steady_clock::now();
  EXPECT_FALSE(both->start_root({.start = t}));  // no word: the operation is asked for
  // Nearly all sampled: a sampled new trace asks for the operation, with the ids it decided.
  int asked = 0;
  for (int i = 0; i < 10; ++i) {
    auto s = both->start_root({.word = 1, .start = t});
    EXPECT_TRUE(s.context.valid());
    EXPECT_EQ(!s, s.context.sampled());
    asked += s ? 0 : 1;
  }
  EXPECT_GT(asked, 0);
}

/// 400 calls from a client that does not trace (no trace context in `_meta`; in 2026-07-28 a
/// `_meta` of the revision and the client's) to a server whose tracer samples half the new
/// traces, alone or combined with the metrics: a decision taken twice (once without the
/// operation, once again with it) would record a quarter of them.
void expect_sampled_once(bool with_metrics, bool modern = false) {
  auto t = std::make_shared<traces>();
  auto metrics = mcp::observe::make_metrics();
  auto tracer = t->tracer(t, 0.5);
  auto observer = with_metrics ? mcp::observe::combine({tracer, metrics}) : tracer;
  mcp::server s({.observer = observer});
  add_tool(s, t);
  mcp::client_options o;
  if (modern) o.negotiate = mcp::negotiation::automatic;
  auto c = mcp::connect_in_process(s, std::move(o));
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->client->era(), modern ? mcp::protocol_era::modern : mcp::protocol_era::legacy);
  constexpr int calls = 400;
  for (int i = 0; i < calls; ++i) ASSERT_TRUE(c->client->call_tool("add"));
  c->client->close();
  c->session->close();
  if (with_metrics) {
    EXPECT_EQ(server_calls(*metrics), static_cast<std::uint64_t>(calls));
  }
  std::lock_guard lock(t->mu);
  ASSERT_EQ(t->seen.size(), static_cast<std::size_t>(calls));
  const std::set<std::string> seen(t->seen.begin(), t->seen.end());
  EXPECT_EQ(seen.size(), t->seen.size()) << "every call begins a trace of its own";
  EXPECT_EQ(seen.count(""), 0U) << "an unsampled call has ids to propagate too";
  for (const auto& id : t->recorded) EXPECT_EQ(seen.count(id), 1U) << id;
  // 200 expected (standard deviation 10).
  EXPECT_GT(t->recorded.size(), 140U);
  EXPECT_LT(t->recorded.size(), 260U);
}

TEST(engine_roots, calls_without_meta_are_sampled_once_by_the_ratio_and_all_counted) {
  expect_sampled_once(true);
}

TEST(engine_roots, a_lone_tracer_samples_calls_without_meta_once_by_the_ratio) {
  expect_sampled_once(false);
}

TEST(engine_roots, calls_of_2026_07_28_without_trace_context_are_sampled_once_by_the_ratio) {
  expect_sampled_once(true, true);
  expect_sampled_once(false, true);
}

/// `calls` tools/call of a 2026-07-28 client on a connection that serves both eras (the
/// in-process pair, as stdio): the legacy session hands each request to its 2026-07-28 twin,
/// and only the twin observes it.
void call_modern_on_a_legacy_connection(mcp::server& s, int calls) {
  mcp::client_options o;
  o.negotiate = mcp::negotiation::automatic;
  auto c = mcp::connect_in_process(s, std::move(o));
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->client->era(), mcp::protocol_era::modern);
  for (int i = 0; i < calls; ++i) ASSERT_TRUE(c->client->call_tool("add"));
  c->client->close();
  c->session->close();
}

TEST(engine_roots, a_2026_07_28_call_on_a_legacy_connection_is_counted_once) {
  auto metrics = mcp::observe::make_metrics();
  auto t = std::make_shared<traces>();
  mcp::server s({.observer = metrics});
  add_tool(s, t);
  call_modern_on_a_legacy_connection(s, 10);
  EXPECT_EQ(server_calls(*metrics), 10U);
}

TEST(engine_roots, a_2026_07_28_call_on_a_legacy_connection_is_traced_once) {
  auto t = std::make_shared<traces>();
  mcp::server s({.observer = t->tracer(t, 1)});
  add_tool(s, t);
  call_modern_on_a_legacy_connection(s, 10);
  std::lock_guard lock(t->mu);
  EXPECT_EQ(t->recorded.size(), 10U);
  EXPECT_EQ(std::set<std::string>(t->recorded.begin(), t->recorded.end()),
            std::set<std::string>(t->seen.begin(), t->seen.end()));
}

TEST(engine_roots, both_eras_on_one_legacy_connection_are_each_counted_once) {
  // Metrics alone: the 2025-11-25 calls make the legacy session keep its set's word, so the
  // 2026-07-28 calls that follow start there as a word, dropped when the twin takes them.
  auto metrics = mcp::observe::make_metrics();
  auto t = std::make_shared<traces>();
  mcp::server s({.observer = metrics});
  add_tool(s, t);
  {
    mcp::test::wire w(s);
    w.initialize();
    const mcp::json::object call{{"name", "add"}, {"arguments", mcp::json::object{}}};
    for (int i = 1; i <= 3; ++i) {
      EXPECT_TRUE(w.call("tools/call", call, i).as_object().contains("result"));
    }
    auto modern = call;
    modern["_meta"] =
        mcp::json::object{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                          {"io.modelcontextprotocol/clientCapabilities", mcp::json::object{}},
                          {"io.modelcontextprotocol/clientInfo",
                           mcp::json::object{{"name", "test"}, {"version", "1"}}}};
    for (int i = 11; i <= 13; ++i) {
      const auto r = w.call("tools/call", modern, i);
      EXPECT_TRUE(r.as_object().contains("result")) << r;
    }
    // A cancellation, which the legacy session also hands to the twin: observed once.
    w.send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}})");
    EXPECT_EQ(w.call("ping", {}, 20).as_object().count("result"), 1U);
  }
  EXPECT_EQ(server_calls(*metrics), 6U);
  EXPECT_EQ(server_calls(*metrics, "notifications/cancelled"), 1U);
}

TEST(engine_roots, calls_of_both_eras_and_with_meta_on_a_legacy_connection_are_sampled_once) {
  // A tracer at a ratio begins new traces before the operation: a request's `_meta` is looked
  // up once there, to hand a 2026-07-28 request to the twin and to find a trace context. Calls
  // without `_meta`, with a `_meta` of no trace context and of the 2026-07-28 revision: each is
  // counted once, begins a trace of its own, and is recorded at most once.
  auto t = std::make_shared<traces>();
  auto metrics = mcp::observe::make_metrics();
  mcp::server s({.observer = mcp::observe::combine({t->tracer(t, 0.5), metrics})});
  add_tool(s, t);
  constexpr int each = 40;
  {
    mcp::test::wire w(s);
    w.initialize();
    const mcp::json::object call{{"name", "add"}, {"arguments", mcp::json::object{}}};
    auto with_token = call;
    with_token["_meta"] = mcp::json::object{{"progressToken", "p"}};
    auto modern = call;
    modern["_meta"] =
        mcp::json::object{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                          {"io.modelcontextprotocol/clientCapabilities", mcp::json::object{}},
                          {"io.modelcontextprotocol/clientInfo",
                           mcp::json::object{{"name", "test"}, {"version", "1"}}}};
    int id = 0;
    for (const auto* params :
         std::array<const mcp::json::object*, 3>{&call, &with_token, &modern}) {
      for (int i = 0; i < each; ++i) {
        const auto r = w.call("tools/call", *params, ++id);
        EXPECT_TRUE(r.as_object().contains("result")) << r;
      }
    }
  }
  EXPECT_EQ(server_calls(*metrics), 3U * each);
  std::lock_guard lock(t->mu);
  ASSERT_EQ(t->seen.size(), 3U * each);
  const std::set<std::string> seen(t->seen.begin(), t->seen.end());
  EXPECT_EQ(seen.size(), t->seen.size()) << "every call begins a trace of its own";
  EXPECT_EQ(seen.count(""), 0U);
  const std::set<std::string> recorded(t->recorded.begin(), t->recorded.end());
  EXPECT_EQ(recorded.size(), t->recorded.size()) << "no span recorded twice";
  for (const auto& id : recorded) EXPECT_EQ(seen.count(id), 1U) << id;
  // 60 expected (standard deviation 5.5).
  EXPECT_GT(recorded.size(), 30U);
  EXPECT_LT(recorded.size(), 90U);
}

TEST(engine_roots, calls_with_a_sampled_parent_in_meta_are_recorded_in_its_trace) {
  // The server samples no new trace; the client's tracer samples every call and sends its
  // context in `_meta`: every server span follows it.
  auto server_t = std::make_shared<traces>();
  auto client_t = std::make_shared<traces>();
  auto metrics = mcp::observe::make_metrics();
  auto both = mcp::observe::combine({server_t->tracer(server_t, 0), metrics});
  mcp::server s({.observer = both});
  add_tool(s, server_t);
  auto c = mcp::connect_in_process(s, {.observer = client_t->tracer(client_t, 1)});
  ASSERT_TRUE(c) << c.error().message;
  constexpr int calls = 20;
  for (int i = 0; i < calls; ++i) ASSERT_TRUE(c->client->call_tool("add"));
  c->client->close();
  c->session->close();
  EXPECT_EQ(server_calls(*metrics), static_cast<std::uint64_t>(calls));
  std::lock_guard lock(server_t->mu);
  EXPECT_EQ(server_t->recorded.size(), static_cast<std::size_t>(calls));
  EXPECT_EQ(std::set<std::string>(server_t->recorded.begin(), server_t->recorded.end()),
            std::set<std::string>(server_t->seen.begin(), server_t->seen.end()));
}

}  // namespace
