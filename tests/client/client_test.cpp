// mcp/client.hpp in the 2026-07-28 era, at the wire: a tools/call refused for its headers
// (-32020) after the tool's x-mcp-header annotations changed is sent once more after a fresh
// listing (our server over HTTP on 127.0.0.1), and never more than once (a scripted peer).
#include <mcp/client.hpp>
#include <mcp/client_cache.hpp>
#include <mcp/http_client.hpp>
#include <mcp/http_server.hpp>
#include <mcp/reflect.hpp>
#include <mcp/server.hpp>

#include <gtest/gtest.h>

#include <future>

#include "client_util.hpp"

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
  http.start();
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

}  // namespace
