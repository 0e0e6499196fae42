// src/detail/round_state.hpp: the sealed `requestState` of a 2026-07-28 input round. A state
// opens only for the caller, method and params it was made for, before it expires, under the
// key that sealed it, unaltered, and (when single use is asked) once; the params digest ignores
// what a retry adds.
#include "detail/round_state.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>

namespace {

using mcp::detail::params_digest;
using mcp::detail::round_contents;
using mcp::detail::round_sealer;
using mcp::json::object;
using namespace std::chrono_literals;

const std::string key_a(32, 'a');
const std::string key_b(32, 'b');

round_contents contents(const object& params) {
  round_contents c;
  c.principal = "alice";
  c.method = "tools/call";
  c.digest = params_digest(params);
  c.asked = {"user_name"};
  c.answers["user_name"] = object{{"action", "accept"}, {"content", object{{"name", "Ada"}}}};
  c.saved = mcp::json::value("step 2");
  return c;
}

const object params{{"name", "greet"}, {"arguments", object{{"x", 1}}}};

TEST(round_state, a_sealed_state_opens_with_what_it_carries) {
  round_sealer sealer({.key = key_a});
  const auto token = sealer.seal(contents(params));
  EXPECT_TRUE(token.starts_with("mrtr1."));
  EXPECT_EQ(token.find("Ada"), std::string::npos);  // encrypted, not only signed
  auto opened = sealer.open(token, "alice", "tools/call", params_digest(params));
  ASSERT_TRUE(opened) << opened.error().message;
  EXPECT_EQ(opened->answers.at("user_name").at("content").at("name"), "Ada");
  EXPECT_TRUE(opened->asked.contains("user_name"));
  ASSERT_TRUE(opened->saved);
  EXPECT_EQ(*opened->saved, "step 2");
}

TEST(round_state, every_altered_character_is_refused) {
  round_sealer sealer({.key = key_a});
  const auto token = sealer.seal(contents(params));
  const auto digest = params_digest(params);
  // The last character may carry base64 padding bits a decoder ignores: all but it.
  for (std::size_t i = std::string_view("mrtr1.").size(); i + 1 < token.size(); ++i) {
    auto tampered = token;
    tampered[i] = tampered[i] == 'A' ? 'B' : 'A';
    auto opened = sealer.open(tampered, "alice", "tools/call", digest);
    ASSERT_FALSE(opened) << "accepted with character " << i << " changed";
    EXPECT_EQ(opened.error().code, -32602);
  }
  for (const auto* bad : {"", "mrtr1.", "mrtr1.!!!", "mrtr2.AAAA", "not a state"}) {
    EXPECT_FALSE(sealer.open(bad, "alice", "tools/call", digest)) << bad;
  }
  EXPECT_FALSE(sealer.open(token.substr(0, token.size() - 4), "alice", "tools/call", digest));
}

TEST(round_state, a_state_of_another_key_caller_method_or_request_is_refused) {
  round_sealer a({.key = key_a});
  round_sealer b({.key = key_b});
  const auto token = a.seal(contents(params));
  const auto digest = params_digest(params);
  EXPECT_FALSE(b.open(token, "alice", "tools/call", digest));    // another server's key
  EXPECT_FALSE(a.open(token, "mallory", "tools/call", digest));  // another caller
  EXPECT_FALSE(a.open(token, "alice", "prompts/get", digest));   // another method
  const object other{{"name", "greet"}, {"arguments", object{{"x", 2}}}};
  auto foreign = a.open(token, "alice", "tools/call", params_digest(other));  // another request
  ASSERT_FALSE(foreign);
  EXPECT_EQ(foreign.error().code, -32602);
  EXPECT_TRUE(a.open(token, "alice", "tools/call", digest));  // and the right one still opens
}

TEST(round_state, an_expired_state_is_refused) {
  round_sealer sealer({.key = key_a, .expiry = 30ms});
  const auto token = sealer.seal(contents(params));
  std::this_thread::sleep_for(60ms);
  auto opened = sealer.open(token, "alice", "tools/call", params_digest(params));
  ASSERT_FALSE(opened);
  EXPECT_NE(opened.error().message.find("expired"), std::string::npos) << opened.error().message;
}

TEST(round_state, single_use_refuses_a_replay_and_retries_are_allowed_without_it) {
  const auto digest = params_digest(params);
  round_sealer once({.key = key_a, .single_use = true});
  const auto token = once.seal(contents(params));
  ASSERT_TRUE(once.open(token, "alice", "tools/call", digest));
  auto replay = once.open(token, "alice", "tools/call", digest);
  ASSERT_FALSE(replay);
  EXPECT_EQ(replay.error().code, -32602);

  round_sealer many({.key = key_a});
  const auto again = many.seal(contents(params));
  EXPECT_TRUE(many.open(again, "alice", "tools/call", digest));
  EXPECT_TRUE(many.open(again, "alice", "tools/call", digest));
}

TEST(round_state, the_digest_ignores_what_a_retry_adds_and_the_order_of_keys) {
  const object retry{{"arguments", object{{"x", 1}}},
                     {"name", "greet"},
                     {"_meta", object{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"}}},
                     {"inputResponses", object{{"user_name", object{{"action", "accept"}}}}},
                     {"requestState", "mrtr1.xyz"}};
  EXPECT_EQ(params_digest(retry), params_digest(params));
  const object changed{{"name", "greet"}, {"arguments", object{{"x", 1}, {"y", 2}}}};
  EXPECT_NE(params_digest(changed), params_digest(params));
}

TEST(round_state, a_key_that_is_not_32_bytes_is_refused) {
  EXPECT_THROW(round_sealer({.key = "short"}), std::invalid_argument);
  EXPECT_THROW(round_sealer({.key_file = "/nonexistent/mcp-key"}), std::invalid_argument);
  EXPECT_NO_THROW(round_sealer({}));  // a random key of its own
}

}  // namespace
