// The built-in call interceptors of mcp/pipeline.hpp, at the wire.
#include <mcp/pipeline.hpp>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "support/wire.hpp"

namespace {

using mcp::json::object;
using mcp::test::wire;
using namespace std::chrono_literals;

mcp::call_tool_result ok_result(mcp::tool_context&, const object&) {
  mcp::call_tool_result r;
  r.content.push_back(mcp::text_content("ok"));
  return r;
}

std::string first_text(const mcp::json::value& response) {
  return std::string(response.at("result").at("content").at(0).at("text").as_string());
}

bool is_tool_error(const mcp::json::value& response) {
  const auto* e = response.at("result").as_object().if_contains("isError");
  return e && e->as_bool();
}

TEST(pipeline, rate_limit_denies_beyond_the_burst_per_principal) {
  mcp::server s;
  s.use(mcp::rate_limit({.per_second = 0.001, .burst = 2}));
  s.add_tool({.name = "t", .description = "d", .run_inline = true}, ok_result);
  wire alice(s, {.who = {.subject = "alice"}});
  wire bob(s, {.who = {.subject = "bob"}});
  alice.initialize();
  bob.initialize();
  EXPECT_FALSE(is_tool_error(alice.call("tools/call", object{{"name", "t"}}, 1)));
  EXPECT_FALSE(is_tool_error(alice.call("tools/call", object{{"name", "t"}}, 2)));
  auto denied = alice.call("tools/call", object{{"name", "t"}}, 3);
  EXPECT_TRUE(is_tool_error(denied));
  EXPECT_NE(first_text(denied).find("Rate limit exceeded"), std::string::npos);
  EXPECT_NE(first_text(denied).find("retry in"), std::string::npos);
  EXPECT_FALSE(is_tool_error(bob.call("tools/call", object{{"name", "t"}}, 1)));
}

TEST(pipeline, rate_limit_per_tool_and_refill) {
  mcp::server s;
  // 1/s: the second call of "a" comes well within the second that refills its token.
  s.use(mcp::rate_limit({.per_second = 1, .burst = 1, .per_tool = true, .tools = {"a", "b"}}));
  for (const char* n : {"a", "b", "c"}) {
    s.add_tool({.name = n, .description = "d", .run_inline = true}, ok_result);
  }
  wire w(s);
  w.initialize();
  EXPECT_FALSE(is_tool_error(w.call("tools/call", object{{"name", "a"}})));
  EXPECT_TRUE(is_tool_error(w.call("tools/call", object{{"name", "a"}})));
  EXPECT_FALSE(is_tool_error(w.call("tools/call", object{{"name", "b"}})));
  for (int i = 0; i < 5; ++i)
    EXPECT_FALSE(is_tool_error(w.call("tools/call", object{{"name", "c"}})));
  std::this_thread::sleep_for(1100ms);  // 1/s refills one token in a second
  EXPECT_FALSE(is_tool_error(w.call("tools/call", object{{"name", "a"}})));
}

TEST(pipeline, concurrency_limit_denies_at_once_and_releases_slots) {
  mcp::server s;
  s.use(mcp::concurrency_limit(1));
  std::atomic<bool> release{false};
  std::atomic<int> running{0};
  s.add_tool({.name = "block", .description = "d"}, [&](mcp::tool_context&, const object&) {
    ++running;
    for (int i = 0; i < 1000 && !release; ++i) std::this_thread::sleep_for(2ms);
    return mcp::call_tool_result{};
  });
  wire w(s);
  w.initialize();
  w.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block"}})");
  for (int i = 0; i < 500 && running == 0; ++i) std::this_thread::sleep_for(1ms);
  auto denied = w.call("tools/call", object{{"name", "block"}}, 2);
  EXPECT_EQ(denied.at("id"), 2);
  EXPECT_TRUE(is_tool_error(denied));
  EXPECT_NE(first_text(denied).find("Too many concurrent"), std::string::npos);
  release = true;
  EXPECT_EQ(w.next_response()->at("id"), 1);
  std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(is_tool_error(w.call("tools/call", object{{"name", "block"}}, 3)));
}

TEST(pipeline, deadline_answers_with_a_tool_error_and_stops_the_handler) {
  mcp::server s;
  s.use(mcp::deadline(50ms));
  std::atomic<bool> saw_stop{false};
  s.add_tool({.name = "slow", .description = "d"}, [&](mcp::tool_context& ctx, const object&) {
    for (int i = 0; i < 300 && !ctx.cancelled(); ++i) std::this_thread::sleep_for(5ms);
    saw_stop = ctx.cancelled();
    return mcp::call_tool_result{};
  });
  wire w(s);
  w.initialize();
  const auto start = std::chrono::steady_clock::now();
  auto r = w.call("tools/call", object{{"name", "slow"}});
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  EXPECT_TRUE(is_tool_error(r));
  EXPECT_NE(first_text(r).find("did not finish within 50 ms"), std::string::npos);
  for (int i = 0; i < 200 && !saw_stop; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_TRUE(saw_stop);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(w.pending(), 0U) << "the late result is dropped";
}

TEST(pipeline, a_handler_answered_by_its_deadline_keeps_its_concurrency_slot_until_it_returns) {
  mcp::server s;
  s.use(mcp::concurrency_limit(1));
  s.use(mcp::deadline(30ms));
  std::atomic<bool> release{false};
  std::atomic<bool> returned{false};
  s.add_tool({.name = "stubborn", .description = "d"}, [&](mcp::tool_context&, const object&) {
    // Ignores its stop token: it runs past the deadline until the test lets it go.
    for (int i = 0; i < 1000 && !release; ++i) std::this_thread::sleep_for(2ms);
    returned = true;
    return mcp::call_tool_result{};
  });
  wire w(s);
  w.initialize();
  auto late = w.call("tools/call", object{{"name", "stubborn"}}, 1);
  EXPECT_NE(first_text(late).find("did not finish within 30 ms"), std::string::npos);
  auto denied = w.call("tools/call", object{{"name", "stubborn"}}, 2);
  EXPECT_NE(first_text(denied).find("Too many concurrent"), std::string::npos)
      << "the first handler still runs";
  release = true;
  for (int i = 0; i < 500 && !returned; ++i) std::this_thread::sleep_for(2ms);
  EXPECT_TRUE(returned);
  release = false;
  returned = false;
  // The slot is released just after the handler returns: asked again until it is (up to 5 s).
  mcp::json::value again;
  const auto give_up = std::chrono::steady_clock::now() + 5s;
  for (int id = 3;; ++id) {
    again = w.call("tools/call", object{{"name", "stubborn"}}, id);
    if (first_text(again).find("Too many concurrent") == std::string::npos) break;
    if (std::chrono::steady_clock::now() > give_up) break;
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_NE(first_text(again).find("did not finish within 30 ms"), std::string::npos)
      << "admitted once the first handler returned";
  release = true;
  // The handler reads this test's variables: it must be done before they go.
  for (int i = 0; i < 1000 && !returned; ++i) std::this_thread::sleep_for(2ms);
  ASSERT_TRUE(returned);
}

TEST(pipeline, output_limits_sanitise_and_reject) {
  mcp::server s;  // output_limits() is installed by default
  s.add_tool({.name = "bad_utf8", .description = "d"}, [](mcp::tool_context&, const object&) {
    mcp::call_tool_result r;
    r.content.push_back(mcp::text_content("ok \xff\xfe end \xe2\x82"));
    return r;
  });
  s.add_tool({.name = "bad_base64", .description = "d"}, [](mcp::tool_context&, const object&) {
    mcp::call_tool_result r;
    r.content.push_back(
        object{{"type", "image"}, {"data", "not base64!"}, {"mimeType", "image/png"}});
    return r;
  });
  s.add_tool({.name = "bad_mime", .description = "d"}, [](mcp::tool_context&, const object&) {
    mcp::call_tool_result r;
    r.content.push_back(object{{"type", "audio"}, {"data", "AAAA"}, {"mimeType", "wav"}});
    return r;
  });
  wire w(s);
  w.initialize();
  auto fixed = w.call("tools/call", object{{"name", "bad_utf8"}});
  EXPECT_FALSE(is_tool_error(fixed));
  EXPECT_EQ(first_text(fixed), "ok \xEF\xBF\xBD\xEF\xBF\xBD end \xEF\xBF\xBD\xEF\xBF\xBD");
  auto b64 = w.call("tools/call", object{{"name", "bad_base64"}});
  EXPECT_TRUE(is_tool_error(b64));
  EXPECT_NE(first_text(b64).find("base64"), std::string::npos);
  auto mime = w.call("tools/call", object{{"name", "bad_mime"}});
  EXPECT_TRUE(is_tool_error(mime));
  EXPECT_NE(first_text(mime).find("mimeType"), std::string::npos);
}

TEST(pipeline, output_limits_strip_terminal_control_sequences_from_text) {
  using namespace std::string_literals;  // the text holds a NUL
  const std::string hostile =
      "red \x1b[31mALERT\x1b[0m title\x1b]0;pwned\x07 link\x1b]8;;http://x\x1b\\ bell\x07 "
      "nul\x00 del\x7f c1\xc2\x9b"
      "2J reset\x1b"
      "c tab\tnewline\nend"s;
  const std::string clean = "red ALERT title link bell nul del c12J reset tab\tnewline\nend";
  for (const bool strip : {true, false}) {
    mcp::server s({.output = {.strip_control_sequences = strip}});
    s.add_tool({.name = "t", .description = "d"}, [&](mcp::tool_context&, const object&) {
      mcp::call_tool_result r;
      r.content.push_back(mcp::text_content(hostile));
      r.content.push_back(object{{"type", "resource"},
                                 {"resource", object{{"uri", "mem://x"}, {"text", hostile}}}});
      r.structured_content = object{{"raw", hostile}};  // data: left as it is
      return r;
    });
    wire w(s);
    w.initialize();
    auto r = w.call("tools/call", object{{"name", "t"}});
    EXPECT_FALSE(is_tool_error(r));
    EXPECT_EQ(first_text(r), strip ? clean : hostile);
    EXPECT_EQ(std::string(r.at("result").at("content").at(1).at("resource").at("text").as_string()),
              strip ? clean : hostile);
    EXPECT_EQ(std::string(r.at("result").at("structuredContent").at("raw").as_string()), hostile);
  }
}

TEST(pipeline, output_size_limit) {
  mcp::server s;
  s.use(mcp::output_limits({.max_bytes = 100}));
  s.add_tool({.name = "big", .description = "d"}, [](mcp::tool_context&, const object& a) {
    mcp::call_tool_result r;
    r.content.push_back(mcp::text_content(std::string(a.at("n").to_number<std::size_t>(), 'x')));
    return r;
  });
  wire w(s);
  w.initialize();
  EXPECT_FALSE(is_tool_error(
      w.call("tools/call", object{{"name", "big"}, {"arguments", object{{"n", 10}}}})));
  auto r = w.call("tools/call", object{{"name", "big"}, {"arguments", object{{"n", 500}}}});
  EXPECT_TRUE(is_tool_error(r));
  EXPECT_NE(first_text(r).find("exceeds the limit of 100 bytes"), std::string::npos);
}

TEST(pipeline, access_control_by_principal) {
  mcp::server s;
  s.use(mcp::access_control([](const mcp::principal& p, std::string_view tool) {
    return tool != "admin" || p.subject == "ops";
  }));
  s.add_tool({.name = "admin", .description = "d", .run_inline = true}, ok_result);
  wire guest(s, {.who = {.subject = "guest"}});
  wire ops(s, {.who = {.subject = "ops"}});
  guest.initialize();
  ops.initialize();
  auto denied = guest.call("tools/call", object{{"name", "admin"}});
  EXPECT_TRUE(is_tool_error(denied));
  EXPECT_NE(first_text(denied).find("Access denied"), std::string::npos);
  EXPECT_FALSE(is_tool_error(ops.call("tools/call", object{{"name", "admin"}})));
  // A caller sees only what it may call.
  EXPECT_EQ(guest.call("tools/list").at("result").at("tools").as_array().size(), 0U);
  EXPECT_EQ(ops.call("tools/list").at("result").at("tools").at(0).at("name"), "admin");
}

TEST(pipeline, custom_interceptors_run_in_order_and_filter_results) {
  mcp::server s;
  std::vector<std::string> order;
  std::mutex mu;
  struct tagger : mcp::call_interceptor {
    std::string tag;
    std::vector<std::string>* order;
    std::mutex* mu;
    void intercept(const mcp::tool_call& call, const std::function<void()>& next) override {
      {
        std::lock_guard lock(*mu);
        order->push_back("in:" + tag);
      }
      call.on_result([t = tag](mcp::call_tool_result& r) {
        r.content.push_back(mcp::text_content("filtered by " + t));
      });
      next();
    }
  };
  auto a = std::make_shared<tagger>();
  a->tag = "a";
  a->order = &order;
  a->mu = &mu;
  auto b = std::make_shared<tagger>();
  b->tag = "b";
  b->order = &order;
  b->mu = &mu;
  s.use(a);
  s.use(b);
  s.add_tool({.name = "t", .description = "d", .run_inline = true}, ok_result);
  wire w(s);
  w.initialize();
  auto r = w.call("tools/call", object{{"name", "t"}});
  EXPECT_EQ(order, (std::vector<std::string>{"in:a", "in:b"}));
  const auto& content = r.at("result").at("content").as_array();
  ASSERT_EQ(content.size(), 3U);
  EXPECT_EQ(content[1].at("text"), "filtered by b");
  EXPECT_EQ(content[2].at("text"), "filtered by a");
}

// A chain of built-in interceptors only takes the straight path (each interceptor called
// directly); one more interceptor of the user's makes every call take the general path. Both
// must answer every call alike: passes, refusals, filtered results.
TEST(pipeline, built_in_chains_answer_alike_on_the_straight_and_the_general_path) {
  std::atomic<int> passed_through{0};
  struct pass_through : mcp::call_interceptor {
    std::atomic<int>* count = nullptr;
    void intercept(const mcp::tool_call&, const std::function<void()>& next) override {
      ++*count;
      next();
    }
  };
  auto make = [&](bool general) {
    auto s = std::make_unique<mcp::server>();
    s->use(mcp::rate_limit({.per_second = 0.001, .burst = 3}));
    s->use(mcp::access_control(
        [](const mcp::principal& p, std::string_view) { return p.subject != "mallory"; }));
    s->use(mcp::concurrency_limit(4));
    s->use(mcp::deadline(30s));
    if (general) {
      auto p = std::make_shared<pass_through>();
      p->count = &passed_through;
      s->use(p);
    }
    s->add_tool({.name = "t", .description = "d", .run_inline = true}, ok_result);
    s->add_tool({.name = "bad_utf8", .description = "d", .run_inline = true},
                [](mcp::tool_context&, const object&) {
                  mcp::call_tool_result r;
                  r.content.push_back(mcp::text_content("ok \xff end"));
                  return r;
                });
    return s;
  };
  auto straight = make(false);
  auto general = make(true);
  std::vector<std::string> answers[2];
  for (int k = 0; k < 2; ++k) {
    auto& s = k == 0 ? *straight : *general;
    wire alice(s, {.who = {.subject = "alice"}});
    wire mallory(s, {.who = {.subject = "mallory"}});
    alice.initialize();
    mallory.initialize();
    for (int i = 1; i <= 3; ++i) {  // the burst: the next one is refused
      const char* tool = i == 2 ? "bad_utf8" : "t";
      answers[k].push_back(
          mcp::json::serialize(alice.call("tools/call", object{{"name", tool}}, i + 1)));
    }
    answers[k].push_back(mcp::json::serialize(alice.call("tools/call", object{{"name", "t"}}, 9)));
    answers[k].push_back(
        mcp::json::serialize(mallory.call("tools/call", object{{"name", "t"}}, 2)));
  }
  // The refusal's retry time is read from the clock when each server refuses: the same rule
  // gives 1000000 ms on one and 999999 ms on a slower run of the other.
  for (auto& list : answers) {
    for (auto& a : list) {
      const auto at = a.find("retry in ");
      if (at == std::string::npos) continue;
      const auto from = at + 9;
      auto to = from;
      while (to < a.size() && a[to] >= '0' && a[to] <= '9') ++to;
      ASSERT_GT(to, from) << a;
      EXPECT_GE(std::stoll(a.substr(from, to - from)), 990000) << a;  // about 1 / 0.001 s
      a.replace(from, to - from, "N");
    }
  }
  EXPECT_EQ(answers[0], answers[1]);
  EXPECT_EQ(passed_through.load(), 3);  // the general server's calls that passed the rest
  ASSERT_EQ(answers[0].size(), 5U);
  EXPECT_NE(answers[0][1].find("ok \xEF\xBF\xBD end"), std::string::npos) << answers[0][1];
  EXPECT_NE(answers[0][3].find("Rate limit exceeded"), std::string::npos) << answers[0][3];
  EXPECT_NE(answers[0][4].find("Access denied"), std::string::npos) << answers[0][4];
}

TEST(pipeline, a_text_output_answers_as_the_result_built_of_it) {
  // A handler's std::string output goes to the answer as the text alone on the straight path
  // (call_state::complete_text): the same answers as a handler returning the result built of
  // that text, through the output limits' repairs and refusals, and on the general path.
  using namespace std::string_literals;  // a text holds a NUL
  const std::vector<std::string> texts = {
      "hello",
      "",
      "q\"uote\\ \n\ttab \xc3\xa9",
      "ok \xff end \xe2\x82",
      "red \x1b[31mALERT\x1b[0m nul\x00 c1\xc2\x9b"
      "2J"s,
      std::string(74, 'x'),  // {"type":"text","text":...} counts 26 + 74 = 100 bytes
      std::string(75, 'x')};
  struct pass_through : mcp::call_interceptor {
    void intercept(const mcp::tool_call&, const std::function<void()>& next) override { next(); }
  };
  const std::vector<mcp::output_limit_options> limits = {
      {}, {.max_bytes = 100}, {.repair_utf8 = false}, {.strip_control_sequences = false}};
  for (std::size_t l = 0; l < limits.size(); ++l) {
    for (const bool general : {false, true}) {
      mcp::server s({.output = limits[l]});
      if (general) s.use(std::make_shared<pass_through>());
      auto text = [&texts](const object& a) {
        return texts.at(a.at("n").to_number<std::size_t>());
      };
      s.add_tool({.name = "typed", .description = "d", .run_inline = true},
                 [text](const object& a) -> std::string { return text(a); });
      s.add_tool({.name = "typed_pool", .description = "d"},
                 [text](const object& a) -> std::string { return text(a); });
      s.add_tool({.name = "built", .description = "d", .run_inline = true},
                 [text](mcp::tool_context&, const object& a) {
                   mcp::call_tool_result r;
                   r.content.push_back(mcp::text_content(text(a)));
                   return r;
                 });
      wire w(s);
      w.initialize();
      for (std::size_t n = 0; n < texts.size(); ++n) {
        const auto args = object{{"n", n}};
        const auto built = w.call("tools/call", object{{"name", "built"}, {"arguments", args}});
        const auto typed = w.call("tools/call", object{{"name", "typed"}, {"arguments", args}});
        const auto pool = w.call("tools/call", object{{"name", "typed_pool"}, {"arguments", args}});
        SCOPED_TRACE("limits " + std::to_string(l) + (general ? " general" : " straight") +
                     ", text " + std::to_string(n));
        ASSERT_TRUE(built.is_object() && built.as_object().contains("result"));
        // A refusal names its tool: compared as if each were "built".
        auto as_built = [](const mcp::json::value& v, const std::string& name) {
          auto answer = mcp::json::serialize(v);
          const auto quoted = "\\\"" + name + "\\\"";
          if (auto at = answer.find(quoted); at != std::string::npos) {
            answer.replace(at, quoted.size(), "\\\"built\\\"");
          }
          return answer;
        };
        EXPECT_EQ(as_built(typed, "typed"), mcp::json::serialize(built));
        EXPECT_EQ(as_built(pool, "typed_pool"), mcp::json::serialize(built));
        // What the limits did: 75 x's over 100 bytes, bad UTF-8 kept unrepaired, refused.
        const bool refused = (l == 1 && n == 6) || (l == 2 && n == 3);
        EXPECT_EQ(is_tool_error(typed), refused) << mcp::json::serialize(typed);
        if (n == 4 && !refused) {
          EXPECT_EQ(first_text(typed).find('\x1b') == std::string::npos, l != 3);
        }
      }
    }
  }
}

TEST(pipeline, bad_policy_parameters_throw) {
  EXPECT_THROW((void)mcp::rate_limit({.per_second = 0}), std::invalid_argument);
  EXPECT_THROW((void)mcp::concurrency_limit(0), std::invalid_argument);
  EXPECT_THROW((void)mcp::deadline(0ms), std::invalid_argument);
  EXPECT_THROW((void)mcp::access_control({}), std::invalid_argument);
}

}  // namespace
