// mcp/client.hpp in the 2026-07-28 era, at the wire: a tools/call refused for its headers
// (-32020) after the tool's x-mcp-header annotations changed is sent once more after a fresh
// listing (our server over HTTP on 127.0.0.1), and never more than once (a scripted peer); the
// subscriptions/listen the client keeps open (our server over HTTP, restarted under it, and the
// demo over stdio): notifications reach on_notification, resources/subscribe rides on it.
#include <mcp/client.hpp>
#include <mcp/client_cache.hpp>
#include <mcp/http_client.hpp>
#include <mcp/http_server.hpp>
#include <mcp/reflect.hpp>
#include <mcp/server.hpp>

#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <thread>

#include "client_util.hpp"
#include <unistd.h>

namespace {

using mcp::json::object;
using namespace std::chrono_literals;

struct route_in {
  std::string region;
};
BOOST_DESCRIBE_STRUCT(route_in, (), (region))

/// `route`, its `region` argument carried in header Mcp-Param-<header> as well.
void add_route(mcp::server& s, const std::string& header) {
  auto schema = mcp::schema_for<route_in>();
  schema["properties"].as_object()["region"].as_object()["x-mcp-header"] = header;
  s.add_tool({.name = "route",
              .description = "routes by region",
              .input_schema = std::move(schema),
              .run_inline = true},
             [header](const route_in& in) { return header + ":" + in.region; });
}

TEST(ClientHeaderRetry, ListsAnewAndRetriesOnceWhenTheAnnotationsChanged) {
  mcp::server server({.info = {.name = "retry", .version = "1"}});
  add_route(server, "Region");
  mcp::http_server http(server, {});
  http.start().value();
  auto link = mcp::connect_http({.url = "http://127.0.0.1:" + std::to_string(http.port()) + "/mcp"},
                                client_test::automatic());
  ASSERT_TRUE(link) << link.error().message;
  auto& c = *link->client;
  ASSERT_EQ(c.era(), mcp::protocol_era::modern);
  ASSERT_TRUE(c.list_all_tools());
  EXPECT_EQ(client_test::text_of(c.call_tool("route", {{"region", "north"}})), "Region:north");

  // The server now wants the argument in another header; the client's listing (and its cache:
  // the lists are kept a minute) still says Region. The call is refused, listed anew, retried.
  server.remove_tool("route");
  add_route(server, "Zone");
  EXPECT_EQ(client_test::text_of(c.call_tool("route", {{"region", "south"}})), "Zone:south");

  // The same, asynchronously.
  server.remove_tool("route");
  add_route(server, "Area");
  std::promise<mcp::result<object>> done;
  c.call_tool_async("route", {{"region", "east"}},
                    [&done](mcp::result<object> r) { done.set_value(std::move(r)); });
  auto f = done.get_future();
  ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(client_test::text_of(f.get()), "Area:east");
  c.close();
  http.stop();
}

TEST(ClientHeaderRetry, NeverMoreThanOnce) {
  client_test::scripted_peer peer;
  peer.answer = [](const std::string& method, const object&) -> client_test::reply {
    if (method == "tools/call") return client_test::reply::failure(-32020, "Header mismatch");
    return client_test::reply::success(
        object{{"tools", mcp::json::array{}}, {"ttlMs", 60000}, {"cacheScope", "public"}});
  };
  auto c = peer.client(client_test::automatic());
  ASSERT_TRUE(c->initialize());
  ASSERT_TRUE(c->list_all_tools());
  auto r = c->call_tool("x", {{"a", 1}});
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(mcp::errc::header_mismatch)) << r.error().message;
  EXPECT_EQ(peer.count("tools/call"), 2);
  EXPECT_EQ(peer.count("tools/list"), 2);  // the first listing and one anew (not from the cache)

  std::promise<mcp::result<object>> done;
  c->call_tool_async("x", {{"a", 1}},
                     [&done](mcp::result<object> r2) { done.set_value(std::move(r2)); });
  auto f = done.get_future();
  ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
  EXPECT_TRUE(f.get().error().is(mcp::errc::header_mismatch));
  EXPECT_EQ(peer.count("tools/call"), 4);
  EXPECT_EQ(peer.count("tools/list"), 3);
}

/// What `on_notification` received, to wait on.
struct heard {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::pair<std::string, object>> all;

  std::function<void(std::string_view, const object&)> handler() {
    return [this](std::string_view method, const object& params) {
      std::lock_guard lock(mu);
      all.emplace_back(std::string(method), params);
      cv.notify_all();
    };
  }
  int count(const std::string& method) {
    std::lock_guard lock(mu);
    int n = 0;
    for (const auto& [m, p] : all) n += m == method ? 1 : 0;
    return n;
  }
  /// Does `poke` until one more `method` than `before` arrived (up to 15 s); true when it did.
  bool until(const std::string& method, int before, const std::function<void()>& poke) {
    const auto end = std::chrono::steady_clock::now() + 15s;
    while (std::chrono::steady_clock::now() < end) {
      poke();
      std::unique_lock lock(mu);
      cv.wait_for(lock, 300ms);
      int n = 0;
      for (const auto& [m, p] : all) n += m == method ? 1 : 0;
      if (n > before) return true;
    }
    return false;
  }
};

TEST(ClientListen, DeliversChangesOverHttpAndComesBackAfterARestart) {
  mcp::server server({.info = {.name = "listen", .version = "1"}});
  add_route(server, "Region");
  int reads = 0;
  std::mutex reads_mu;
  server.add_resource({.uri = "test://doc",
                       .name = "doc",
                       .mime_type = "text/plain",
                       .cache = mcp::cache_policy{.ttl = 1min, .shared = true}},
                      [&] {
                        std::lock_guard lock(reads_mu);
                        return "read " + std::to_string(++reads);
                      });
  auto http = std::make_unique<mcp::http_server>(server, mcp::http_server_options{});
  http->start().value();
  const auto port = http->port();
  heard h;
  auto o = client_test::automatic();
  o.on_notification = h.handler();
  auto link =
      mcp::connect_http({.url = "http://127.0.0.1:" + std::to_string(port) + "/mcp"}, std::move(o));
  ASSERT_TRUE(link) << link.error().message;
  auto& c = *link->client;
  ASSERT_EQ(c.era(), mcp::protocol_era::modern);

  EXPECT_TRUE(
      h.until("notifications/tools/list_changed", 0, [&] { server.notify_tools_changed(); }));

  // resources/subscribe rides on the listen; an update also drops the cached read.
  ASSERT_TRUE(c.subscribe("test://doc"));
  EXPECT_EQ(client_test::text_of(c.read_resource("test://doc")).find("error"), std::string::npos);
  ASSERT_TRUE(c.read_resource("test://doc"));
  {
    std::lock_guard lock(reads_mu);
    EXPECT_EQ(reads, 1);
  }
  EXPECT_TRUE(h.until("notifications/resources/updated", 0,
                      [&] { server.notify_resource_updated("test://doc"); }));
  {
    std::lock_guard lock(h.mu);
    for (const auto& [m, p] : h.all) {
      if (m == "notifications/resources/updated") {
        EXPECT_EQ(p.at("uri"), "test://doc");
      }
    }
  }
  auto fresh = c.read_resource_contents("test://doc");
  ASSERT_TRUE(fresh) << fresh.error().message;
  EXPECT_EQ(fresh->contents.at(0).text.value_or(""), "read 2");
  EXPECT_TRUE(c.unsubscribe("test://doc"));

  // The server restarts on the same port: the listen ends, the client opens it again.
  http->stop();
  http.reset();
  http = std::make_unique<mcp::http_server>(server, mcp::http_server_options{.port = port});
  http->start().value();
  const int before = h.count("notifications/tools/list_changed");
  EXPECT_TRUE(
      h.until("notifications/tools/list_changed", before, [&] { server.notify_tools_changed(); }));
  c.close();
  http->stop();
}

TEST(ClientListen, DeliversChangesOverStdio) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("mcp-listen-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto policy = (dir / "policy.json").string();
  std::ofstream(policy) << "{}";
  heard h;
  auto o = client_test::automatic();
  o.on_notification = h.handler();
  auto s = mcp::launch_server(
      {.argv = {MCP_DEMO_SERVER, "--task-store", ":memory:", "--policy", policy}}, std::move(o));
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_EQ(s->client->era(), mcp::protocol_era::modern);
  int n = 0;
  EXPECT_TRUE(h.until("notifications/tools/list_changed", 0, [&] {
    // A policy that changes each time: the server reloads it and says its tools changed.
    std::ofstream(policy) << R"({"tools": {"nothing_)" << ++n << R"(": {"deny": true}}})";
    std::this_thread::sleep_for(400ms);
  }));
  s->client->close();
  std::filesystem::remove_all(dir);
}

}  // namespace
