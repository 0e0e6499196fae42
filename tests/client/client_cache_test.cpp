// mcp/client_cache.hpp at the wire: the negotiation verdict remembered per server command
// (the demo server, launched) and per endpoint (our server over HTTP on 127.0.0.1), probed
// again when wrong; results kept as the server's ttlMs and cacheScope say, shared between
// sessions only as far as their scope allows, dropped by the notifications that make them stale.
#include <mcp/client.hpp>
#include <mcp/client_cache.hpp>
#include <mcp/http_client.hpp>
#include <mcp/http_server.hpp>
#include <mcp/server.hpp>
#include <mcp/transport/memory.hpp>
#include <mcp/transport/process.hpp>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <thread>

#include "client_util.hpp"
#include <unistd.h>

namespace {

using mcp::json::object;
using namespace std::chrono_literals;

// ---- the verdict ----

TEST(ClientVerdict, RememberedPerServerCommand) {
  mcp::forget_all_eras();
  const std::string key = std::string("stdio: ") + MCP_DEMO_SERVER + " --task-store :memory:";
  auto first = client_test::launch_demo(client_test::automatic());
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->client->era(), mcp::protocol_era::modern);
  first->client->close();
  auto v = mcp::cached_era(key);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->era, mcp::protocol_era::modern);
  EXPECT_EQ(v->version, "2026-07-28");

  // The next session goes straight to the remembered era: told "legacy" (the application
  // persisted it, say), it initializes without probing, although the server speaks both.
  mcp::remember_era(key, {.era = mcp::protocol_era::legacy, .version = "2025-11-25"});
  auto second = client_test::launch_demo(client_test::automatic());
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(second->client->era(), mcp::protocol_era::legacy);
  EXPECT_EQ(client_test::text_of(second->client->call_tool("echo", {{"text", "x"}})), "x");
  second->client->close();

  mcp::forget_era(key);
  EXPECT_FALSE(mcp::cached_era(key));
  auto third = client_test::launch_demo(client_test::automatic());
  ASSERT_TRUE(third) << third.error().message;
  EXPECT_EQ(third->client->era(), mcp::protocol_era::modern);
  third->client->close();
}

TEST(ClientVerdict, AWrongVerdictIsProbedAgainOverHttp) {
  mcp::server server({.info = {.name = "verdict", .version = "1"}});
  server.add_tool({.name = "echo", .description = "echo", .run_inline = true},
                  [](const client_test::text_in& in) { return in.text; });
  mcp::http_server http(server, {});
  http.start().value();
  const std::string url = "http://127.0.0.1:" + std::to_string(http.port()) + "/mcp";
  // A revision the server never spoke: it answers -32022, the client probes and remembers.
  mcp::remember_era(url, {.era = mcp::protocol_era::modern, .version = "2099-01-01"});
  auto link = mcp::connect_http({.url = url + "?q=1"}, client_test::automatic());
  ASSERT_TRUE(link) << link.error().message;
  EXPECT_EQ(link->client->era(), mcp::protocol_era::modern);
  EXPECT_EQ(link->client->protocol_version(), "2026-07-28");
  auto v = mcp::cached_era(url);  // keyed without the query
  ASSERT_TRUE(v);
  EXPECT_EQ(v->version, "2026-07-28");
  EXPECT_EQ(client_test::text_of(link->client->call_tool("echo", {{"text", "ok"}})), "ok");
  link->client->close();
  http.stop();
}

TEST(ClientVerdict, AWrongVerdictIsProbedAgainOverStdio) {
  const auto ref = client_test::ts_ref_server();
  if (ref.empty()) GTEST_SKIP() << "needs node and ../shared/bench (setup.sh): skipped";
  const std::string key = "stdio: node " + ref + " stdio --sdk v1";
  mcp::remember_era(key, {.era = mcp::protocol_era::modern, .version = "2026-07-28"});
  auto o = client_test::automatic();
  o.probe_timeout = 3s;
  auto s = mcp::launch_server({.argv = {"node", ref, "stdio", "--sdk", "v1"}}, std::move(o));
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->client->era(), mcp::protocol_era::legacy);
  auto v = mcp::cached_era(key);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->era, mcp::protocol_era::legacy);
  s->client->close();
}

TEST(ClientVerdict, NoAnswerToTheRememberedEraMeansTheOldOne) {
  // A server of the old era that ignores whatever comes before initialize, as some do.
  const auto script =
      std::filesystem::temp_directory_path() / ("mcp-quiet-" + std::to_string(::getpid()) + ".sh");
  std::ofstream(script)
      << R"(while read -r line; do case "$line" in *'"initialize"'*) break;; esac; done
echo '{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"quiet","version":"1"}}}'
while read -r line; do case "$line" in *'"tools/list"'*) break;; esac; done
echo '{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}'
cat >/dev/null
)";
  const std::string key = "stdio: sh " + script.string();
  mcp::remember_era(key, {.era = mcp::protocol_era::modern, .version = "2026-07-28"});
  auto o = client_test::automatic();
  o.probe_timeout = 300ms;
  auto s = mcp::launch_server({.argv = {"sh", script.string()}}, std::move(o));
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->client->era(), mcp::protocol_era::legacy);
  auto v = mcp::cached_era(key);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->era, mcp::protocol_era::legacy);
  auto tools = s->client->list_tools();
  ASSERT_TRUE(tools) << tools.error().message;
  EXPECT_TRUE(tools->empty());
  s->client->close();
  std::filesystem::remove(script);
}

TEST(ClientVerdict, ARefusalLaterForgetsIt) {
  client_test::scripted_peer peer;
  peer.answer = [](const std::string& method, const object&) -> client_test::reply {
    if (method == "tools/list") {
      return client_test::reply::failure(-32022, "Unsupported protocol version",
                                         object{{"supported", mcp::json::array{"2025-11-25"}}});
    }
    return client_test::reply::success(object{});
  };
  auto o = client_test::automatic();
  o.origin = "scripted:refusal";
  auto c = peer.client(std::move(o));
  ASSERT_TRUE(c->initialize());
  ASSERT_TRUE(mcp::cached_era("scripted:refusal"));
  auto r = c->list_tools();
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(mcp::errc::unsupported_protocol_version));
  EXPECT_FALSE(mcp::cached_era("scripted:refusal"));  // the next session probes again
}

TEST(ClientVerdict, ARefusalLaterDropsTheDiscoverKeptWithIt) {
  client_test::scripted_peer peer;
  peer.discover_ttl_ms = 60000;  // a discover answer the cache keeps
  peer.answer = [](const std::string& method, const object&) -> client_test::reply {
    if (method == "tools/list") {
      return client_test::reply::failure(-32022, "Unsupported protocol version",
                                         object{{"supported", mcp::json::array{"2025-11-25"}}});
    }
    return client_test::reply::success(object{});
  };
  auto cache = mcp::make_result_cache();
  auto o = client_test::automatic();
  o.origin = "scripted:refusal-discover";
  o.cache = cache;
  auto c = peer.client(std::move(o));
  ASSERT_TRUE(c->initialize());
  const auto kept = [&] {
    return cache->lookup("scripted:refusal-discover", "", "server/discover 2026-07-28", {});
  };
  ASSERT_TRUE(kept());
  ASSERT_FALSE(c->list_tools());
  EXPECT_FALSE(mcp::cached_era("scripted:refusal-discover"));
  // The next session's probe must reach the server, not this answer.
  EXPECT_FALSE(kept());
}

// ---- cached results ----

/// Our server over HTTP with three resources whose reads are counted: test://pub (public, a
/// minute), test://priv (private, a minute), test://short (public, 1 s).
class ClientResultCache : public ::testing::Test {
 protected:
  void SetUp() override {
    auto counted = [this](const char* uri, mcp::cache_policy policy) {
      server_.add_resource({.uri = uri, .name = uri, .mime_type = "text/plain", .cache = policy},
                           [this, uri] {
                             std::lock_guard lock(mu_);
                             ++reads_[uri];
                             return std::string("contents of ") + uri;
                           });
    };
    counted("test://pub", {.ttl = 1min, .shared = true});
    counted("test://priv", {.ttl = 1min, .shared = false});
    counted("test://short", {.ttl = 1s, .shared = true});
    http_ = std::make_unique<mcp::http_server>(server_, mcp::http_server_options{});
    http_->start().value();
    url_ = "http://127.0.0.1:" + std::to_string(http_->port()) + "/mcp";
  }
  void TearDown() override { http_->stop(); }

  int reads(const std::string& uri) {
    std::lock_guard lock(mu_);
    return reads_[uri];
  }
  mcp::result<mcp::http_server_link> connect(mcp::client_options o) {
    return mcp::connect_http({.url = url_}, std::move(o));
  }

  mcp::server server_{mcp::server_options{.info = {.name = "cache", .version = "1"}}};
  std::unique_ptr<mcp::http_server> http_;
  std::string url_;
  std::mutex mu_;
  std::map<std::string, int> reads_;
};

TEST_F(ClientResultCache, KeepsWhatTheServerAllowsForAsLongAsItSays) {
  auto link = connect(client_test::automatic());
  ASSERT_TRUE(link) << link.error().message;
  auto& c = *link->client;
  ASSERT_EQ(c.era(), mcp::protocol_era::modern);
  for (int i = 0; i < 3; ++i) {
    auto r = c.read_resource_contents("test://pub");
    ASSERT_TRUE(r) << r.error().message;
    ASSERT_EQ(r->contents.size(), 1U);
    EXPECT_EQ(r->contents[0].text.value_or(""), "contents of test://pub");
  }
  EXPECT_EQ(reads("test://pub"), 1);
  ASSERT_TRUE(c.read_resource("test://short"));
  ASSERT_TRUE(c.read_resource("test://short"));
  EXPECT_EQ(reads("test://short"), 1);
  std::this_thread::sleep_for(1200ms);  // past its ttlMs: stale
  ASSERT_TRUE(c.read_resource("test://short"));
  EXPECT_EQ(reads("test://short"), 2);
  // The lists too (the server's default: a minute, private).
  ASSERT_TRUE(c.list_resources());
  const auto before = c.cache()->stats().hits;
  ASSERT_TRUE(c.list_resources());
  EXPECT_EQ(c.cache()->stats().hits, before + 1);
  c.close();

  // Turned off: every read goes out.
  auto o = client_test::automatic();
  o.cache_results = false;
  auto off = connect(std::move(o));
  ASSERT_TRUE(off) << off.error().message;
  EXPECT_EQ(off->client->cache(), nullptr);
  ASSERT_TRUE(off->client->read_resource("test://pub"));
  ASSERT_TRUE(off->client->read_resource("test://pub"));
  EXPECT_EQ(reads("test://pub"), 3);
  off->client->close();
}

TEST_F(ClientResultCache, PrivateResultsStayWithTheirAuthorizationContext) {
  auto cache = mcp::make_result_cache();
  auto as = [&](const char* who) {
    auto o = client_test::automatic();
    o.cache = cache;
    o.authorization_context = who;
    return connect(std::move(o));
  };
  auto alice = as("alice");
  auto bob = as("bob");
  auto alice2 = as("alice");
  ASSERT_TRUE(alice && bob && alice2);
  for (auto* link : {&*alice, &*bob, &*alice2}) {
    ASSERT_TRUE(link->client->read_resource("test://pub"));
    ASSERT_TRUE(link->client->read_resource("test://priv"));
  }
  EXPECT_EQ(reads("test://pub"), 1);   // public: shared by all three
  EXPECT_EQ(reads("test://priv"), 2);  // private: alice's two sessions share, bob reads his own
  // A session that says nothing of whom it acts for shares no private result.
  auto o = client_test::automatic();
  o.cache = cache;
  auto anonymous = connect(std::move(o));
  ASSERT_TRUE(anonymous);
  ASSERT_TRUE(anonymous->client->read_resource("test://priv"));
  EXPECT_EQ(reads("test://priv"), 3);
  cache->clear();
  EXPECT_EQ(cache->stats().entries, 0U);
  ASSERT_TRUE(alice->client->read_resource("test://pub"));
  EXPECT_EQ(reads("test://pub"), 2);
  for (auto* link : {&*alice, &*bob, &*alice2, &*anonymous}) link->client->close();
}

TEST_F(ClientResultCache, AResultKeptUnderOneRevisionIsNotServedUnderAnother) {
  auto cache = mcp::make_result_cache();
  const object planted{
      {"ttlMs", 60000},
      {"cacheScope", "public"},
      {"contents", mcp::json::array{object{{"uri", "test://pub"}, {"text", "kept elsewhere"}}}}};
  const object params{{"uri", "test://pub"}};
  // Kept under another revision, or under none: not this session's.
  ASSERT_TRUE(cache->store(url_, "", "resources/read 2099-01-01", params, planted));
  ASSERT_TRUE(cache->store(url_, "", "resources/read", params, planted));
  auto o = client_test::automatic();
  o.cache = cache;
  auto link = connect(std::move(o));
  ASSERT_TRUE(link) << link.error().message;
  auto& c = *link->client;
  ASSERT_EQ(c.era(), mcp::protocol_era::modern);
  auto r = c.read_resource_contents("test://pub");
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->contents.size(), 1U);
  EXPECT_EQ(r->contents[0].text.value_or(""), "contents of test://pub");
  EXPECT_EQ(reads("test://pub"), 1);
  // Under its own revision: served from the cache.
  cache->clear();
  ASSERT_TRUE(cache->store(url_, "", "resources/read " + c.protocol_version(), params, planted));
  auto again = c.read_resource_contents("test://pub");
  ASSERT_TRUE(again) << again.error().message;
  ASSERT_EQ(again->contents.size(), 1U);
  EXPECT_EQ(again->contents[0].text.value_or(""), "kept elsewhere");
  EXPECT_EQ(reads("test://pub"), 1);
  // Dropping a method drops it under every revision.
  ASSERT_TRUE(cache->store(url_, "", "resources/read 2099-01-01", params, planted));
  cache->invalidate(url_, "resources/read");
  EXPECT_EQ(cache->stats().entries, 0U);
  c.close();
}

/// Answers resources/read (text "v" and the count of reads) and tools/list with results that
/// may be kept a minute, counting them; `during_read(uri)` runs before a read is answered.
std::function<client_test::reply(const std::string&, const object&)> kept_answers(
    std::atomic<int>& reads, std::atomic<int>& lists,
    std::function<void(std::string_view)> during_read = {}) {
  return [&reads, &lists, during_read](const std::string& method, const object& params) {
    object cacheable{{"resultType", "complete"}, {"ttlMs", 60000}, {"cacheScope", "public"}};
    if (method == "resources/read") {
      ++reads;
      if (during_read) during_read(params.at("uri").as_string());
      cacheable["contents"] = mcp::json::array{
          object{{"uri", params.at("uri")}, {"text", "v" + std::to_string(reads.load())}}};
    } else if (method == "tools/list") {
      ++lists;
      cacheable["tools"] = mcp::json::array{};
    }
    return client_test::reply::success(std::move(cacheable));
  };
}

TEST(ClientResultCacheNotifications, DropWhatTheyMakeStale) {
  client_test::scripted_peer peer;
  std::atomic<int> reads{0}, lists{0};
  peer.answer = kept_answers(reads, lists);
  auto c = peer.client(client_test::automatic());
  ASSERT_TRUE(c->initialize());
  ASSERT_TRUE(c->read_resource("a://1"));
  ASSERT_TRUE(c->read_resource("a://2"));
  ASSERT_TRUE(c->read_resource("a://1"));
  EXPECT_EQ(reads.load(), 2);
  peer.notify("notifications/resources/updated", object{{"uri", "a://1"}});
  auto again = c->read_resource_contents("a://1");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->contents.at(0).text.value_or(""), "v3");
  ASSERT_TRUE(c->read_resource("a://2"));  // another resource: still fresh
  EXPECT_EQ(reads.load(), 3);

  ASSERT_TRUE(c->list_all_tools());
  ASSERT_TRUE(c->list_all_tools());
  EXPECT_EQ(lists.load(), 1);
  peer.notify("notifications/tools/list_changed", {});
  ASSERT_TRUE(c->list_all_tools());
  EXPECT_EQ(lists.load(), 2);
}

TEST(ClientResultCacheNotifications, OneArrivingDuringARequestKeepsOnlyItsOwnMethodOut) {
  client_test::scripted_peer peer;
  std::atomic<int> reads{0}, lists{0};
  // Sent before the answer, so the client reads it while the request is in flight.
  peer.answer = kept_answers(reads, lists, [&peer](std::string_view uri) {
    if (uri == "a://1") peer.notify("notifications/tools/list_changed", {});
    if (uri == "a://2") peer.notify("notifications/resources/updated", object{{"uri", "a://2"}});
  });
  auto c = peer.client(client_test::automatic());
  ASSERT_TRUE(c->initialize());
  // A tools/list_changed during a read says nothing of the read: its result is kept.
  ASSERT_TRUE(c->read_resource("a://1"));
  ASSERT_TRUE(c->read_resource("a://1"));
  EXPECT_EQ(reads.load(), 1);
  // A resources/updated during a read may be about what it read: its result is not kept.
  ASSERT_TRUE(c->read_resource("a://2"));
  ASSERT_TRUE(c->read_resource("a://2"));
  EXPECT_EQ(reads.load(), 3);
}

TEST(ClientResultCacheBounds, KeepsAtMostWhatItIsAllowed) {
  auto cache = mcp::make_result_cache({.max_entries = 3, .max_bytes = 4096});
  const object keep{{"ttlMs", 60000}, {"cacheScope", "public"}, {"x", 1}};
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(cache->store("o", "", "resources/read", object{{"uri", std::to_string(i)}}, keep));
  }
  EXPECT_EQ(cache->stats().entries, 3U);
  EXPECT_FALSE(cache->lookup("o", "", "resources/read", object{{"uri", "0"}}));  // the oldest
  EXPECT_TRUE(cache->lookup("o", "", "resources/read", object{{"uri", "4"}}));
  // Larger than the whole budget: not kept; no ttl, no scope or a round: not kept either.
  object big = keep;
  big["text"] = std::string(8192, 'x');
  EXPECT_FALSE(cache->store("o", "", "resources/read", object{{"uri", "big"}}, big));
  EXPECT_FALSE(cache->store("o", "", "m", {}, object{{"ttlMs", 0}, {"cacheScope", "public"}}));
  EXPECT_FALSE(cache->store("o", "", "m", {}, object{{"ttlMs", 100}}));
  EXPECT_FALSE(cache->store(
      "o", "", "m", {},
      object{{"ttlMs", 100}, {"cacheScope", "public"}, {"resultType", "input_required"}}));
  EXPECT_LE(cache->stats().bytes, 4096U);
  // `_meta` does not make another key.
  EXPECT_TRUE(cache->lookup("o", "ctx", "resources/read",
                            object{{"uri", "4"}, {"_meta", object{{"k", "v"}}}}));
}

}  // namespace
