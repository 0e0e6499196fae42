// The engine's numbered attribute sets (`operation::attribute_set`): which operations share a
// number, and that the metrics and span shapes found by the number are those of the operation's
// own attributes when the tool, the outcome or the session (its protocol version) changes from
// one call to the next; an observer that starts its spans by the number alone
// (`spans_by_attribute_set`, the metrics) is asked once per set, and every call is still counted.
#include <mcp/client.hpp>
#include <mcp/observe/metrics.hpp>
#include <mcp/observe/tracing.hpp>
#include <mcp/server.hpp>
#include <mcp/transport/memory.hpp>

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

namespace {

using mcp::observe::kind;

/// What each operation was numbered, in order.
struct numbers_seen final : mcp::observe::observer {
  struct seen {
    kind side;
    std::string method;
    std::string target;
    std::uint64_t number;
    std::string request_id;
  };
  explicit numbers_seen(bool reads_id = true) : wants_id(reads_id) {}
  const bool wants_id;
  std::mutex mu;
  std::vector<seen> all;

  mcp::observe::span on_start(const mcp::observe::operation& op) override {
    std::lock_guard lock(mu);
    all.push_back({op.side, std::string(op.method), std::string(op.target), op.attribute_set,
                   std::string(op.request_id)});
    return {};
  }
  void on_end(mcp::observe::span&, const mcp::observe::outcome&) override {}
  [[nodiscard]] bool reads_request_id() const noexcept override { return wants_id; }

  /// The numbers of `method` `target` on `side`, in order.
  std::vector<std::uint64_t> of(kind side, std::string_view method, std::string_view target) {
    std::lock_guard lock(mu);
    std::vector<std::uint64_t> out;
    for (const auto& s : all) {
      if (s.side == side && s.method == method && s.target == target) out.push_back(s.number);
    }
    return out;
  }
};

void add_tools(mcp::server& s) {
  s.add_tool({.name = "add"}, [](mcp::tool_context&) { return std::string("3"); });
  s.add_tool({.name = "fail"}, [](mcp::tool_context&) -> mcp::call_tool_result {
    return mcp::call_tool_result{.content = {mcp::text_content("no")}, .is_error = true};
  });
}

/// The text of attribute `key` of a series, or "(none)".
std::string text_of(const std::vector<mcp::observe::attribute>& attrs, std::string_view key) {
  for (const auto& a : attrs) {
    if (a.key != key) continue;
    if (const auto* t = std::get_if<std::string>(&a.value)) return *t;
    if (const auto* n = std::get_if<std::int64_t>(&a.value)) return std::to_string(*n);
    return std::get<bool>(a.value) ? "true" : "false";
  }
  return "(none)";
}

/// Counts of histogram `name` by (protocol version, tool, error.type, status code).
using series_key = std::tuple<std::string, std::string, std::string, std::string>;
std::map<series_key, std::uint64_t> counts(const mcp::observe::metrics& m, std::string_view name) {
  std::map<series_key, std::uint64_t> out;
  for (const auto& md : m.snapshot().metrics) {
    if (md.name != name) continue;
    for (const auto& p : md.histogram_points) {
      if (text_of(p.attributes, "mcp.method.name") != "tools/call") continue;
      out[{text_of(p.attributes, "mcp.protocol.version"), text_of(p.attributes, "gen_ai.tool.name"),
           text_of(p.attributes, "error.type"),
           text_of(p.attributes, "rpc.response.status_code")}] += p.count;
    }
  }
  return out;
}

TEST(engine_series, a_session_numbers_each_method_and_tool_once_from_its_second_operation) {
  auto numbers = std::make_shared<numbers_seen>();
  mcp::server s({.observer = numbers});
  add_tools(s);
  auto a = mcp::connect_in_process(s, {.observer = numbers});
  auto b = mcp::connect_in_process(s, {.observer = numbers});
  ASSERT_TRUE(a && b);
  for (auto* c : {&*a, &*b}) {
    ASSERT_TRUE(c->client->call_tool("add"));
    ASSERT_TRUE(c->client->call_tool("fail"));
    ASSERT_TRUE(c->client->call_tool("add"));
  }
  for (const auto side : {kind::server, kind::client}) {
    const auto init = numbers->of(side, "initialize", "");
    ASSERT_EQ(init.size(), 2U);
    EXPECT_EQ(init[0], 0U);  // a session's first operation is not numbered
    EXPECT_EQ(init[1], 0U);
    const auto add = numbers->of(side, "tools/call", "add");
    const auto fail = numbers->of(side, "tools/call", "fail");
    ASSERT_EQ(add.size(), 4U);
    ASSERT_EQ(fail.size(), 2U);
    // Session a's calls, then b's: one number per (session, tool), none shared.
    EXPECT_NE(add[0], 0U);
    EXPECT_EQ(add[0], add[1]);
    EXPECT_EQ(add[2], add[3]);
    EXPECT_NE(add[0], add[2]);
    EXPECT_NE(fail[0], 0U);
    EXPECT_NE(fail[0], fail[1]);
    for (const auto f : fail) {
      for (const auto n : add) EXPECT_NE(f, n);
    }
  }
  // The server's and the client's numbers of the same call differ (they are other sides).
  EXPECT_NE(numbers->of(kind::server, "tools/call", "add")[0],
            numbers->of(kind::client, "tools/call", "add")[0]);
  for (auto* c : {&*a, &*b}) {
    c->client->close();
    c->session->close();
  }
}

TEST(engine_series, an_observer_that_reads_no_request_id_is_given_none) {
  const auto ids_of = [](const std::shared_ptr<mcp::observe::observer>& o, numbers_seen& seen) {
    mcp::server s({.observer = o});
    add_tools(s);
    auto c = mcp::connect_in_process(s, {.observer = o});
    ASSERT_TRUE(c);
    ASSERT_TRUE(c->client->call_tool("add"));
    c->client->close();
    c->session->close();
    std::lock_guard lock(seen.mu);
    std::size_t calls = 0;
    for (const auto& op : seen.all) {
      if (op.method != "tools/call") continue;
      ++calls;
      EXPECT_EQ(op.request_id.empty(), !o->reads_request_id()) << op.request_id;
    }
    EXPECT_EQ(calls, 2U);  // received and sent
  };
  auto reads = std::make_shared<numbers_seen>();
  ids_of(reads, *reads);
  auto blind = std::make_shared<numbers_seen>(false);
  ids_of(blind, *blind);
  // Combined with one that reads it, every part is given the id.
  auto blind_part = std::make_shared<numbers_seen>(false);
  auto both = mcp::observe::combine({blind_part, std::make_shared<numbers_seen>()});
  ASSERT_TRUE(both->reads_request_id());
  ids_of(both, *blind_part);
  EXPECT_FALSE(mcp::observe::make_metrics()->reads_request_id());
}

TEST(engine_series, calls_alternating_tools_outcomes_and_versions_land_in_their_own_series) {
  auto metrics = mcp::observe::make_metrics();
  mcp::server s({.observer = metrics});
  add_tools(s);
  auto older = mcp::connect_in_process(s, {.protocol_version = "2025-06-18", .observer = metrics});
  auto newer = mcp::connect_in_process(s, {.observer = metrics});
  ASSERT_TRUE(older && newer);
  const std::string newer_version = newer->client->protocol_version();
  ASSERT_NE(newer_version, "2025-06-18");
  for (int i = 0; i < 3; ++i) {
    for (auto* c : {&*older, &*newer}) {
      ASSERT_TRUE(c->client->call_tool("add"));
      ASSERT_TRUE(c->client->call_tool("fail"));
      ASSERT_FALSE(c->client->call_tool("nope"));  // -32602
    }
    ASSERT_TRUE(older->client->call_tool("add"));
  }
  for (auto* c : {&*older, &*newer}) {
    c->client->close();
    c->session->close();
  }
  for (const auto* name : {"mcp.server.operation.duration", "mcp.client.operation.duration"}) {
    const bool server = std::string_view(name).find("server") != std::string_view::npos;
    const std::map<series_key, std::uint64_t> expected = {
        {{"2025-06-18", "add", "(none)", "(none)"}, 6},
        {{"2025-06-18", "fail", "tool_error", "(none)"}, 3},
        // -32602 is the caller's mistake: an error type on the client side only.
        {{"2025-06-18", "nope", server ? "(none)" : "-32602", "-32602"}, 3},
        {{newer_version, "add", "(none)", "(none)"}, 3},
        {{newer_version, "fail", "tool_error", "(none)"}, 3},
        {{newer_version, "nope", server ? "(none)" : "-32602", "-32602"}, 3},
    };
    EXPECT_EQ(counts(*metrics, name), expected) << name;
  }
}

TEST(engine_series, spans_of_alternating_tools_and_versions_have_their_own_shapes) {
  std::mutex mu;
  std::vector<std::pair<std::string, std::string>> spans;  // name, protocol version
  auto tracer =
      mcp::observe::make_tracer({.sink = [&](std::unique_ptr<mcp::observe::span_record> r) {
        std::string version;
        r->for_each_attribute([&](std::string_view k, const mcp::observe::attribute_value& v) {
          if (k == "mcp.protocol.version") version = std::get<std::string>(v);
        });
        if (r->side() != kind::server || !r->name().starts_with("tools/call")) return;
        std::lock_guard lock(mu);
        spans.emplace_back(std::string(r->name()), version);
      }});
  mcp::server s({.observer = tracer});
  add_tools(s);
  auto older = mcp::connect_in_process(s, {.protocol_version = "2025-06-18"});
  auto newer = mcp::connect_in_process(s);
  ASSERT_TRUE(older && newer);
  const std::string v = newer->client->protocol_version();
  ASSERT_TRUE(older->client->call_tool("add"));
  ASSERT_TRUE(newer->client->call_tool("add"));
  ASSERT_TRUE(older->client->call_tool("fail"));
  ASSERT_TRUE(older->client->call_tool("add"));
  ASSERT_TRUE(newer->client->call_tool("fail"));
  ASSERT_TRUE(newer->client->call_tool("add"));
  for (auto* c : {&*older, &*newer}) {
    c->client->close();
    c->session->close();
  }
  // Each span is ended (and sunk) before its call returns to the client.
  std::lock_guard lock(mu);
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"tools/call add", "2025-06-18"}, {"tools/call add", v},  {"tools/call fail", "2025-06-18"},
      {"tools/call add", "2025-06-18"}, {"tools/call fail", v}, {"tools/call add", v},
  };
  EXPECT_EQ(spans, expected);
}

TEST(engine_series, a_tracer_and_the_metrics_combined_see_every_numbered_call) {
  // From a set's second call on, `combine` starts the metrics' span from the set's word and the
  // tracer's span by itself: each call must still have a span of its own and be counted once.
  struct seen {
    std::mutex mu;
    std::map<std::tuple<kind, std::string, std::string>, int> spans;  // side, name, error.type
    std::set<std::array<std::uint8_t, 8>> span_ids;
  };
  auto got = std::make_shared<seen>();
  auto tracer =
      mcp::observe::make_tracer({.sink = [got](std::unique_ptr<mcp::observe::span_record> r) {
        if (!r->name().starts_with("tools/call")) return;
        std::string error = "(none)";
        r->for_each_attribute([&](std::string_view k, const mcp::observe::attribute_value& v) {
          if (k == "error.type") error = std::get<std::string>(v);
        });
        std::lock_guard lock(got->mu);
        ++got->spans[{r->side(), std::string(r->name()), error}];
        got->span_ids.insert(r->context.span_id);
      }});
  auto metrics = mcp::observe::make_metrics();
  auto both = mcp::observe::combine({tracer, metrics});
  mcp::server s({.observer = both});
  add_tools(s);
  auto a = mcp::connect_in_process(s, {.observer = both});
  auto b = mcp::connect_in_process(s, {.observer = both});
  ASSERT_TRUE(a && b);
  const std::string v = a->client->protocol_version();
  for (int i = 0; i < 4; ++i) {
    for (auto* c : {&*a, &*b}) {
      ASSERT_TRUE(c->client->call_tool("add"));
      ASSERT_TRUE(c->client->call_tool("fail"));
    }
  }
  for (auto* c : {&*a, &*b}) {
    c->client->close();
    c->session->close();
  }
  std::lock_guard lock(got->mu);
  const std::map<std::tuple<kind, std::string, std::string>, int> expected = {
      {{kind::server, "tools/call add", "(none)"}, 8},
      {{kind::server, "tools/call fail", "tool_error"}, 8},
      {{kind::client, "tools/call add", "(none)"}, 8},
      {{kind::client, "tools/call fail", "tool_error"}, 8},
  };
  EXPECT_EQ(got->spans, expected);
  EXPECT_EQ(got->span_ids.size(), 32U);  // no span id given twice
  for (const auto* name : {"mcp.server.operation.duration", "mcp.client.operation.duration"}) {
    const std::map<series_key, std::uint64_t> counted = {
        {{v, "add", "(none)", "(none)"}, 8},
        {{v, "fail", "tool_error", "(none)"}, 8},
    };
    EXPECT_EQ(counts(*metrics, name), counted) << name;
  }
}

TEST(engine_series, an_unsampled_tracer_combined_with_the_metrics_leaves_true_durations) {
  // In process the engine reads no start for an operation: `combine` reads it once for both
  // parts. A set's second call on, the metrics' span comes from the set's word with the
  // tracer's start, which an unsampled tracer never reads itself: the durations must be true.
  auto metrics = mcp::observe::make_metrics();
  auto tracer = mcp::observe::make_tracer(
      {.sink = [](std::unique_ptr<mcp::observe::span_record>) {}, .root_sample_ratio = 0});
  auto both = mcp::observe::combine({tracer, metrics});
  mcp::server s({.observer = both});
  add_tools(s);
  auto c = mcp::connect_in_process(s, {.observer = both});
  ASSERT_TRUE(c);
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(c->client->call_tool("add"));
  c->client->close();
  c->session->close();
  for (const auto* name : {"mcp.server.operation.duration", "mcp.client.operation.duration"}) {
    std::uint64_t calls = 0;
    for (const auto& md : metrics->snapshot().metrics) {
      if (md.name != name) continue;
      for (const auto& p : md.histogram_points) {
        if (text_of(p.attributes, "gen_ai.tool.name") != "add") continue;
        calls += p.count;
        EXPECT_GE(p.sum, 0.0) << name;
        EXPECT_LT(p.sum, 60.0) << name << ": a duration measured from no start";
      }
    }
    EXPECT_EQ(calls, 6U) << name;
  }
}

/// Starts every span of a set alike (`spans_by_attribute_set`): one word per (side, method,
/// target), counted at the end by that word; `on_start` calls counted.
struct by_set final : mcp::observe::observer {
  explicit by_set(bool alike = true, bool with_state = false)
      : alike_(alike), with_state_(with_state) {}
  std::mutex mu;
  std::map<std::string, std::uintptr_t> words;  // "side method target" -> word
  std::map<std::uintptr_t, std::string> names;
  std::map<std::string, int> started, ended;

  mcp::observe::span on_start(const mcp::observe::operation& op) override {
    const std::string name = std::string(op.side == kind::server ? "server " : "client ") +
                             std::string(op.method) + " " + std::string(op.target);
    std::lock_guard lock(mu);
    ++started[name];
    auto [it, fresh] = words.try_emplace(name, 8 * (words.size() + 1));
    names[it->second] = name;
    mcp::observe::span s;
    s.active = true;
    s.word = it->second;
    s.start = mcp::observe::now_if_unset(op.start);
    if (with_state_) s.state = std::make_unique<mcp::observe::span_state>();
    return s;
  }
  void on_end(mcp::observe::span& s, const mcp::observe::outcome&) override {
    std::lock_guard lock(mu);
    ++ended[names.at(s.word)];
    s.active = false;
  }
  [[nodiscard]] bool spans_by_attribute_set() const noexcept override { return alike_; }

 private:
  const bool alike_;
  const bool with_state_;
};

/// `calls` calls of tool "t<i % tools>" (every one answered), on one session.
void call_round(mcp::server& s, const std::shared_ptr<mcp::observe::observer>& o,
                const std::vector<std::string>& tools, int calls) {
  auto c = mcp::connect_in_process(s, {.observer = o});
  ASSERT_TRUE(c);
  for (int i = 0; i < calls; ++i) {
    ASSERT_TRUE(c->client->call_tool(tools[static_cast<std::size_t>(i) % tools.size()]));
  }
  c->client->close();
  c->session->close();
}

std::vector<std::string> numbered_tools(int n) {
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back("t" + std::to_string(i));
  return names;
}

void add_tools(mcp::server& s, const std::vector<std::string>& names) {
  for (const auto& name : names) {
    s.add_tool({.name = name}, [](mcp::tool_context&) { return std::string(); });
  }
}

/// Two sessions each call every tool of `names` in turn: each tool's spans are started by the
/// observer once a session (the call that numbers its set), then by the engine.
void expect_asked_once_per_set(const std::vector<std::string>& names) {
  auto alike = std::make_shared<by_set>();
  mcp::server s({.observer = alike});
  add_tools(s, names);
  const int calls = 4 * static_cast<int>(names.size());
  call_round(s, alike, names, calls);
  call_round(s, alike, names, calls);  // a second session: its own sets
  std::lock_guard lock(alike->mu);
  for (const auto* side : {"server ", "client "}) {
    for (const auto& tool : names) {
      const auto name = std::string(side) + "tools/call " + tool;
      EXPECT_EQ(alike->ended[name], 8) << name;    // every call ended
      EXPECT_EQ(alike->started[name], 2) << name;  // once a session
    }
  }
}

TEST(engine_series, an_observer_starting_spans_by_the_set_is_asked_once_per_set) {
  expect_asked_once_per_set(numbered_tools(3));
}

TEST(engine_series, tools_alike_in_length_and_first_and_last_letters_keep_their_own_sets) {
  expect_asked_once_per_set({"list_users", "list_roles", "list_teams", "list_items"});
}

TEST(engine_series, spans_not_alike_are_started_by_the_observer_every_time) {
  for (const auto& o : {std::make_shared<by_set>(false), std::make_shared<by_set>(true, true)}) {
    mcp::server s({.observer = o});
    add_tools(s, numbered_tools(2));
    call_round(s, o, numbered_tools(2), 6);
    std::lock_guard lock(o->mu);
    for (const auto* name : {"server tools/call t0", "client tools/call t1"}) {
      EXPECT_EQ(o->started[name], 3) << name;
      EXPECT_EQ(o->ended[name], 3) << name;
    }
  }
  EXPECT_TRUE(mcp::observe::make_metrics()->spans_by_attribute_set());
  EXPECT_FALSE(
      mcp::observe::make_metrics({.resource_uri_attribute = true})->spans_by_attribute_set());
  EXPECT_FALSE(mcp::observe::combine({mcp::observe::make_metrics(), mcp::observe::make_metrics()})
                   ->spans_by_attribute_set());
}

/// Answers handed to other threads, and the calls left open, of one test: joined and released
/// before the test returns.
/// The answering threads, joined by the test (`join`). One of them may hold the last reference
/// to this record (through its responder's call): a thread cannot join itself, so the
/// destructor leaves that one to end alone.
struct answers_elsewhere {
  std::mutex mu;
  std::vector<std::thread> threads;
  std::vector<mcp::responder> open;
  ~answers_elsewhere() {
    for (auto& t : threads) {
      if (t.get_id() == std::this_thread::get_id()) {
        t.detach();
      } else {
        t.join();
      }
    }
  }
  void join() {
    std::vector<std::thread> ending;
    {
      std::lock_guard lock(mu);
      ending.swap(threads);
    }
    for (auto& t : ending) t.join();
  }
};

TEST(engine_series, spans_kept_as_their_sets_word_end_once_answered_elsewhere_or_at_the_close) {
  // A numbered set's span waits as its word on the dispatching thread, then in the request's
  // record: answers sent later from other threads, and a call still open when the session
  // closes, end it once each, with their outcomes.
  auto metrics = mcp::observe::make_metrics();
  auto elsewhere = std::make_shared<answers_elsewhere>();
  mcp::server s({.observer = metrics});
  for (const auto* name : {"later", "later_fail"}) {
    const bool fail = std::string_view(name) == "later_fail";
    s.add_async_tool({.name = name}, [elsewhere, fail](mcp::tool_context&, const mcp::json::object&,
                                                       const mcp::responder& done) {
      std::lock_guard lock(elsewhere->mu);
      elsewhere->threads.emplace_back([done, fail] {
        if (fail) return done.fail(mcp::error{mcp::errc::internal_error, "backend down"});
        done.finish(mcp::call_tool_result{});
      });
    });
  }
  s.add_async_tool({.name = "never"}, [elsewhere](mcp::tool_context&, const mcp::json::object&,
                                                  const mcp::responder& done) {
    std::lock_guard lock(elsewhere->mu);
    elsewhere->open.push_back(done);
  });
  auto c = mcp::connect_in_process(s, {});
  ASSERT_TRUE(c);
  const std::string version = c->client->protocol_version();
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(c->client->call_tool("later"));
    ASSERT_FALSE(c->client->call_tool("later_fail"));
  }
  auto left = std::make_shared<std::atomic<int>>(0);
  c->client->call_tool_async("never", {}, [left](mcp::result<mcp::json::object>) { ++*left; });
  for (int i = 0; i < 2000; ++i) {  // the call reached the tool (10 s at most)
    {
      std::lock_guard lock(elsewhere->mu);
      if (!elsewhere->open.empty()) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  c->session->close();
  c->client->close();
  elsewhere->join();
  {
    std::lock_guard lock(elsewhere->mu);
    ASSERT_EQ(elsewhere->open.size(), 1U);
    elsewhere->open.clear();
  }
  EXPECT_EQ(left->load(), 1);
  const std::map<series_key, std::uint64_t> expected = {
      {{version, "later", "(none)", "(none)"}, 3},
      {{version, "later_fail", "-32603", "-32603"}, 3},
      {{version, "never", "connection_closed", "(none)"}, 1},
  };
  EXPECT_EQ(counts(*metrics, "mcp.server.operation.duration"), expected);
}

TEST(engine_series, calls_past_a_sessions_table_and_past_the_series_cap_are_all_counted) {
  // 150 tools: more than a session numbers (128 sets); with 100 series at most per metric, the
  // rest land in the overflow series. Each tool called twice, alternating, on one session.
  constexpr int tools = 150;
  auto metrics = mcp::observe::make_metrics({.max_series = 100});
  mcp::server s({.observer = metrics});
  add_tools(s, numbered_tools(tools));
  call_round(s, metrics, numbered_tools(tools), 2 * tools);
  for (const auto* name : {"mcp.server.operation.duration", "mcp.client.operation.duration"}) {
    std::uint64_t total = 0;
    std::uint64_t overflow = 0;
    std::map<std::string, std::uint64_t> per_tool;
    for (const auto& md : metrics->snapshot().metrics) {
      if (md.name != name) continue;
      for (const auto& p : md.histogram_points) {
        if (text_of(p.attributes, "otel.metric.overflow") == "true") {
          overflow += p.count;
          continue;
        }
        if (text_of(p.attributes, "mcp.method.name") != "tools/call") continue;
        total += p.count;
        per_tool[text_of(p.attributes, "gen_ai.tool.name")] += p.count;
      }
    }
    // The session's first operations (initialize, notifications/initialized) took series
    // first; every tool with a series of its own has its two calls there, the others' calls are
    // all in the overflow series.
    for (const auto& [tool, n] : per_tool) EXPECT_EQ(n, 2U) << name << " " << tool;
    EXPECT_GE(per_tool.size(), 90U) << name;
    EXPECT_LT(per_tool.size(), std::size_t{tools}) << name;
    EXPECT_EQ(total, 2U * per_tool.size()) << name;
    EXPECT_EQ(overflow, 2U * (tools - per_tool.size())) << name;
  }
}

}  // namespace
