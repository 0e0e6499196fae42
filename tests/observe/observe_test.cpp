// The observation seam (mcp/observe.hpp): W3C trace context parsing and formatting, reading the
// carrier from `_meta`, propagation into `_meta`, and the fan-out to several observers.
#include <mcp/observe.hpp>

#include <gtest/gtest.h>

#include <array>
#include <set>

#include "support/forked_child.hpp"

namespace {

using namespace mcp::observe;

constexpr std::string_view good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

TEST(Traceparent, ParsesVersion00AndFormatsItBack) {
  auto c = parse_traceparent(good);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_TRUE(c->valid());
  EXPECT_TRUE(c->sampled());
  EXPECT_EQ(c->trace_id_hex(), "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_EQ(c->span_id_hex(), "00f067aa0ba902b7");
  EXPECT_EQ(c->trace_id[0], 0x4B);
  EXPECT_EQ(c->span_id[7], 0xB7);
  EXPECT_EQ(c->traceparent(), good);
  auto unsampled = parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00");
  ASSERT_TRUE(unsampled);
  EXPECT_FALSE(unsampled->sampled());
}

TEST(Traceparent, HigherVersionsReadTheirFirstFourFields) {
  auto longer = parse_traceparent(
      "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-the-future-holds");
  ASSERT_TRUE(longer) << longer.error().message;
  EXPECT_EQ(longer->traceparent(), good);  // we speak version 00
  EXPECT_TRUE(parse_traceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));
  // A higher version still needs the dash after the flags when there is more.
  EXPECT_FALSE(parse_traceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x"));
}

TEST(Traceparent, RefusesWhatTheSpecificationRefuses) {
  const std::vector<std::string_view> bad = {
      "",
      "00",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0",    // short flags
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",  // 00 with more
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-011",  // 00 with more
      "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",   // version ff
      "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",   // uppercase
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00F067AA0BA902B7-01",   // uppercase
      "00-00000000000000000000000000000000-00f067aa0ba902b7-01",   // zero trace id
      "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",   // zero parent id
      "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",   // not hex
      "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",   // separator
      "00-4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7-01",   // separator
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7_01",   // separator
      " 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // padding
      "0g-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",   // version not hex
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-zz",   // flags not hex
  };
  for (const auto t : bad) {
    auto r = parse_traceparent(t);
    EXPECT_FALSE(r) << "accepted: '" << t << "'";
    if (!r) {
      EXPECT_EQ(r.error().code, static_cast<int>(mcp::errc::invalid_params));
    }
  }
}

TEST(Tracestate, AcceptsTheW3CForms) {
  for (const std::string_view t :
       {"rojo=00f067aa0ba902b7", "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE", "  a=1 ,\tb=2  ",
        "a=1,,b=2", "tenant@vendor=x", "0tenant@v_1-*/=value with spaces", "k/*_-9=v!"}) {
    auto r = parse_tracestate(t);
    EXPECT_TRUE(r) << t << ": " << (r ? "" : r.error().message);
  }
  EXPECT_EQ(*parse_tracestate("  a=1 ,\tb=2  "), "a=1 ,\tb=2");
}

TEST(Tracestate, RefusesBadMembersDuplicatesAndTheLimits) {
  for (const std::string_view t :
       {"A=1", "1a=1", "a", "a=", "=1", "a=1,a=2", "a=b=c", "a=x,y", "tenant@=1", "@v=1",
        "tenant@Vendor=1", "tenant@toolongvendorname=1", "a=\x01", "a=caf\xC3\xA9"}) {
    EXPECT_FALSE(parse_tracestate(t)) << "accepted: " << t;
  }
  std::string members;
  for (int i = 0; i < 32; ++i) members += (i ? ",k" : "k") + std::to_string(i) + "=v";
  EXPECT_TRUE(parse_tracestate(members));
  EXPECT_FALSE(parse_tracestate(members + ",k32=v"));            // 33 members
  EXPECT_TRUE(parse_tracestate(members + ",,, ,"));              // empty ones do not count
  EXPECT_FALSE(parse_tracestate("a=" + std::string(511, 'x')));  // 513 characters
  EXPECT_FALSE(parse_tracestate("a=" + std::string(257, 'x')));  // a value over 256
}

TEST(Baggage, PassesValidValuesAndRefusesTheRest) {
  EXPECT_EQ(*parse_baggage("userId=alice,serverNode=DF%2028,isProduction=false"),
            "userId=alice,serverNode=DF%2028,isProduction=false");
  EXPECT_TRUE(parse_baggage("k=v;prop=1, k2 = v2"));
  EXPECT_FALSE(parse_baggage("novalue"));
  EXPECT_FALSE(parse_baggage("=v"));
  EXPECT_FALSE(parse_baggage("k=\x7F"));
  EXPECT_FALSE(parse_baggage("k=\n"));
  EXPECT_FALSE(parse_baggage(std::string(8193, 'k') + "=v"));
  std::string many;
  for (int i = 0; i < 65; ++i) many += "k" + std::to_string(i) + "=v,";
  EXPECT_FALSE(parse_baggage(many));
}

TEST(Carrier, ReadsStringMembersOfMetaOnly) {
  auto meta = mcp::parse_json(R"({"traceparent":")" + std::string(good) +
                              R"(","tracestate":"a=1","baggage":7,"progressToken":1})");
  ASSERT_TRUE(meta);
  const auto c = extract(&meta->as_object());
  EXPECT_EQ(c.traceparent, good);
  EXPECT_EQ(c.tracestate, "a=1");
  EXPECT_TRUE(c.baggage.empty());  // not a string
  EXPECT_TRUE(extract(nullptr).traceparent.empty());
}

TEST(Carrier, RemoteParentDropsWhatIsInvalid) {
  std::string baggage;
  auto p = remote_parent({good, "a=1", "k=v"}, &baggage);
  EXPECT_TRUE(p.valid());
  EXPECT_EQ(p.trace_state, "a=1");
  EXPECT_EQ(baggage, "k=v");
  p = remote_parent({good, "A=1", "k"}, &baggage);
  EXPECT_TRUE(p.valid());
  EXPECT_TRUE(p.trace_state.empty());  // an invalid tracestate is dropped, not the parent
  EXPECT_TRUE(baggage.empty());
  p = remote_parent({"00-bad", "a=1", ""}, nullptr);
  EXPECT_FALSE(p.valid());
  EXPECT_TRUE(p.trace_state.empty());
}

TEST(Ids, AreRandomAndNeverZero) {
  std::set<std::array<std::uint8_t, 16>> traces;
  std::set<std::array<std::uint8_t, 8>> spans;
  for (int i = 0; i < 2000; ++i) {
    traces.insert(new_trace_id());
    spans.insert(new_span_id());
  }
  EXPECT_EQ(traces.size(), 2000U);
  EXPECT_EQ(spans.size(), 2000U);
  EXPECT_EQ(traces.count({}), 0U);
}

TEST(Ids, AForkedChildDoesNotRepeatItsParentsNextIds) {
  (void)new_trace_id();  // this thread's buffer of random bytes is filled
  const auto child_id = mcp::test::bytes_made_in_forked_child([] { return new_trace_id(); });
  ASSERT_TRUE(child_id);
  EXPECT_NE(*child_id, new_trace_id());  // the inherited buffer would give the same id
}

TEST(Inject, WritesThePropagationFieldsAndReplacesOldOnes) {
  struct null_observer final : observer {
    span on_start(const operation&) override { return {}; }
    void on_end(span&, const outcome&) override {}
  } o;
  span s;
  s.context = *parse_traceparent(good);
  s.context.trace_state = "a=1";
  s.baggage = "k=v";
  mcp::json::object meta{{"tracestate", "old=1"}, {"progressToken", 3}};
  o.inject(s, meta);
  EXPECT_EQ(meta.at("traceparent").as_string(), good);
  EXPECT_EQ(meta.at("tracestate").as_string(), "a=1");
  EXPECT_EQ(meta.at("baggage").as_string(), "k=v");
  EXPECT_EQ(meta.at("progressToken").as_int64(), 3);
  s.context.trace_state.clear();
  s.baggage.clear();
  o.inject(s, meta);
  EXPECT_FALSE(meta.contains("tracestate"));
  EXPECT_FALSE(meta.contains("baggage"));
  mcp::json::object untouched;
  o.inject(span{}, untouched);  // no context: nothing
  EXPECT_TRUE(untouched.empty());
}

/// Records the order of the calls it gets.
struct recorder final : observer {
  explicit recorder(std::string n, bool gives_context, std::uintptr_t w = 42)
      : name(std::move(n)), context(gives_context), word(w) {}
  span on_start(const operation& op) override {
    calls.push_back("start " + std::string(op.method));
    span s;
    s.active = true;
    if (context) {
      s.context = *parse_traceparent(good);
      s.context.trace_state = "a=1";
      s.baggage = "k=v";
    }
    s.word = word;
    return s;
  }
  void on_end(span& s, const outcome& o) override {
    calls.push_back("end " + std::to_string(s.word) + " " + std::to_string(o.code));
    ended_with_more = s.context.valid() || !s.context.trace_state.empty() || !s.baggage.empty();
  }
  span on_session_start(const session_info&) override {
    calls.push_back("session");
    span s;
    s.active = true;
    return s;
  }
  void on_session_end(span&, std::string_view e) override {
    calls.push_back("session end " + std::string(e));
  }
  void on_denial(const denial& d) override { calls.push_back("denial " + std::string(d.reason)); }
  void on_task_status(std::string_view, std::string_view st) override {
    calls.push_back("task " + std::string(st));
  }
  void on_stream(kind, int delta) override { calls.push_back("stream " + std::to_string(delta)); }
  std::string name;
  bool context;
  std::uintptr_t word;
  std::vector<std::string> calls;
  bool ended_with_more = false;  ///< the last span ended had ids, a tracestate or baggage
};

TEST(Combine, ForwardsEveryReportToEachPart) {
  auto a = std::make_shared<recorder>("a", false);
  auto b = std::make_shared<recorder>("b", true);
  auto both = combine({a, nullptr, b});
  ASSERT_NE(both, nullptr);
  auto s = both->on_start({.method = "tools/call"});
  ASSERT_TRUE(s);
  EXPECT_EQ(s.context.traceparent(), good);  // from the first part that had one
  both->on_end(s, {.status = status::rpc_error, .code = -32603});
  auto session = both->on_session_start({});
  both->on_session_end(session, "x");
  both->on_denial({.reason = "rate_limit"});
  both->on_task_status("t", "completed");
  both->on_stream(kind::server, 1);
  const std::vector<std::string> expected = {
      "start tools/call",  "end 42 -32603",  "session", "session end x",
      "denial rate_limit", "task completed", "stream 1"};
  EXPECT_EQ(a->calls, expected);
  EXPECT_EQ(b->calls, expected);
}

TEST(Combine, APartPastTheTwoInlineGetsItsSpanBack) {
  auto a = std::make_shared<recorder>("a", false);
  auto b = std::make_shared<recorder>("b", false);
  auto c = std::make_shared<recorder>("c", true);
  auto all = combine({a, b, c});
  auto s = all->on_start({.method = "ping"});
  ASSERT_TRUE(s);
  EXPECT_EQ(s.context.traceparent(), good);  // the third part's
  all->on_end(s, {.status = status::rpc_error, .code = -32601});
  const std::vector<std::string> expected = {"start ping", "end 42 -32601"};
  EXPECT_EQ(a->calls, expected);
  EXPECT_EQ(c->calls, expected);
}

// The tracer-and-metrics shape (ids and no word, then a word alone): one span, no state aside.
TEST(Combine, ASpanWithIdsAndAWordAloneAreFoldedAndEachGetsItsOwnBack) {
  auto ids = std::make_shared<recorder>("ids", true, 0);
  auto word = std::make_shared<recorder>("word", false, 7);
  auto both = combine({ids, word});
  auto s = both->on_start({.method = "tools/call"});
  ASSERT_TRUE(s);
  EXPECT_EQ(s.context.traceparent(), good);
  EXPECT_EQ(s.state, nullptr);  // folded
  both->on_end(s, {.status = status::ok});
  EXPECT_FALSE(s);
  EXPECT_EQ(ids->calls, (std::vector<std::string>{"start tools/call", "end 0 0"}));
  EXPECT_EQ(word->calls, (std::vector<std::string>{"start tools/call", "end 7 0"}));
  EXPECT_TRUE(ids->ended_with_more);     // its own span: ids, tracestate, baggage
  EXPECT_FALSE(word->ended_with_more);   // its own span too: the word alone
  auto reversed = combine({word, ids});  // the word first: kept aside, as any other
  auto r = reversed->on_start({.method = "ping"});
  EXPECT_NE(r.state, nullptr);
  reversed->on_end(r, {.status = status::ok});
  EXPECT_EQ(word->calls.back(), "end 7 0");
  EXPECT_EQ(ids->calls.back(), "end 0 0");
}

/// A first part with ids and no word, started at the operation's start (as the tracer).
struct ids_at_start final : observer {
  span on_start(const operation& op) override {
    span s;
    s.active = true;
    s.context = *parse_traceparent(good);
    s.start = op.start;
    return s;
  }
  void on_end(span& s, const outcome&) override {
    ++ends;
    s.active = false;
  }
  int ends = 0;
};

/// A second part whose spans depend on the attribute set alone (as the metrics'): counts its
/// starts, keeps the words it is given back.
struct by_set final : observer {
  span on_start(const operation& op) override {
    ++starts;
    span s;
    s.active = true;
    s.start = op.start;
    s.word = 100 + op.attribute_set;
    return s;
  }
  void on_end(span& s, const outcome&) override {
    ends.push_back(s.word);
    s.active = false;
  }
  [[nodiscard]] bool spans_by_attribute_set() const noexcept override { return true; }
  int starts = 0;
  std::vector<std::uintptr_t> ends;
};

// A numbered set's later operations start the second part's span from the word it gave the
// first time (as the engine does for a lone observer of that kind); every end reaches it.
TEST(Combine, ASecondPartBySetIsStartedOncePerSetAndEndedEveryTime) {
  auto ids = std::make_shared<ids_at_start>();
  auto set = std::make_shared<by_set>();
  auto both = combine({ids, set});
  for (int i = 0; i < 3; ++i) {
    auto s = both->on_start({.method = "tools/call", .attribute_set = 9});
    ASSERT_TRUE(s);
    EXPECT_EQ(s.context.traceparent(), good);
    EXPECT_EQ(s.state, nullptr);  // folded
    both->on_end(s, {});
    EXPECT_FALSE(s);
  }
  auto plain = both->on_start({.method = "ping"});  // not numbered: the part is asked
  both->on_end(plain, {});
  EXPECT_EQ(set->starts, 2);
  EXPECT_EQ(set->ends, (std::vector<std::uintptr_t>{109, 109, 109, 100}));
  EXPECT_EQ(ids->ends, 4);
  auto other = combine({ids, set});  // another combination learns the set anew
  auto o = other->on_start({.method = "tools/call", .attribute_set = 9});
  other->on_end(o, {});
  EXPECT_EQ(set->starts, 3);
  EXPECT_EQ(set->ends.back(), 109U);
}

TEST(Combine, OfNothingIsNullAndOfOneIsThatOne) {
  EXPECT_EQ(combine({}), nullptr);
  EXPECT_EQ(combine({nullptr}), nullptr);
  auto a = std::make_shared<recorder>("a", false);
  EXPECT_EQ(combine({a}), a);
}

}  // namespace
