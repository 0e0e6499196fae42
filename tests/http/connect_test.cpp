// mcp/http_client.hpp: connect_http against a real mcp::http_server on 127.0.0.1 (ephemeral
// port): initialized, typed, with the event stream open (a list change made after connecting
// reaches the client with no call in flight); a refused URL and an absent server are errors.
#include <mcp/http_client.hpp>
#include <mcp/http_server.hpp>
#include <mcp/server.hpp>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>

namespace {

using namespace std::chrono_literals;
using mcp::json::object;

TEST(connect_http, gives_an_initialized_client_with_its_event_stream_open) {
  mcp::server server({.info = {.name = "over-http", .version = "3"}});
  server.add_tool({.name = "echo", .description = "d"},
                  [](const object& in) { return mcp::json::serialize(in); });
  mcp::http_server http(server, {});
  http.start().value();

  std::mutex mu;
  std::condition_variable cv;
  int list_changes = 0;
  auto link = mcp::connect_http({.url = http.url()},
                                {.info = {.name = "t", .version = "1"},
                                 .on_notification = [&](std::string_view method, const object&) {
                                   if (method != "notifications/tools/list_changed") return;
                                   std::lock_guard lock(mu);
                                   ++list_changes;
                                   cv.notify_all();
                                 }});
  ASSERT_TRUE(link) << link.error().message;
  ASSERT_TRUE(link->client && link->connection);
  EXPECT_FALSE(link->connection->session_id().empty());

  auto info = link->client->server_info();
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->server_info.name, "over-http");
  EXPECT_EQ(info->protocol_version, link->connection->protocol_version());
  auto tools = link->client->list_tools();
  ASSERT_TRUE(tools) << tools.error().message;
  ASSERT_EQ(tools->size(), 1u);
  EXPECT_EQ((*tools)[0].name, "echo");

  // No request is in flight: only the event stream can carry this. It opens in the background
  // (connect_http waits for no answer to its GET): a change made before it opened is not told,
  // so tools are added until one is.
  int added = 0;
  for (const auto end = std::chrono::steady_clock::now() + 10s;
       std::chrono::steady_clock::now() < end;) {
    server.add_tool({.name = "late" + std::to_string(++added), .description = "d"},
                    [] { return std::string("x"); });
    std::unique_lock lock(mu);
    if (cv.wait_for(lock, 500ms, [&] { return list_changes > 0; })) break;
  }
  {
    std::lock_guard lock(mu);
    EXPECT_GT(list_changes, 0);
  }
  auto again = link->client->list_tools();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->size(), static_cast<std::size_t>(1 + added));
  link->client->close();
  http.stop();
}

TEST(connect_http, a_refused_url_and_an_absent_server_are_errors_naming_the_url) {
  auto bad = mcp::connect_http({.url = "ftp://127.0.0.1:1/mcp"});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, -32602);
  EXPECT_NE(bad.error().message.find("ftp://127.0.0.1:1/mcp"), std::string::npos);

  // A port that was just free: nothing listens there.
  std::string url;
  {
    mcp::server server({.info = {.name = "gone", .version = "1"}});
    mcp::http_server http(server, {});
    http.start().value();
    url = http.url();
    http.stop();
  }
  auto absent = mcp::connect_http({.url = url, .connect_timeout = 2000ms});
  ASSERT_FALSE(absent);
  EXPECT_EQ(absent.error().message.rfind(url + ": ", 0), 0u) << absent.error().message;
}

}  // namespace
