// examples/asio_app on an ephemeral port of 127.0.0.1: a coroutine tool awaiting a timer and a
// tool reading the application's state, both on the application's io_context; SIGTERM stops it.
#include <mcp/json.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <string>
#include <thread>

#include "examples/http_example.hpp"

namespace {

using namespace std::chrono_literals;
using mcp::json::object;
using mcp::test::answer_of;
using mcp::test::initialize_params;
using mcp::test::rpc;

TEST(example_asio_app, serves_tools_on_the_applications_io_context) {
  mcp::test::http_example app({MCP_EXAMPLE_ASIO_APP, "127.0.0.1:0"});
  ASSERT_NE(app.port, 0);
  const auto init = app.post(rpc(0, "initialize", initialize_params()), {});
  ASSERT_EQ(init.status, 200U) << init.body;
  const auto sid = init.header("mcp-session-id");
  EXPECT_EQ(
      app.post(object{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}, {}, sid).status,
      202U);

  const auto before = std::chrono::steady_clock::now();
  const auto waited = answer_of(
      app.post(rpc(1, "tools/call", {{"name", "wait"}, {"arguments", {{"ms", 200}}}}), {}, sid));
  EXPECT_EQ(waited.at("result").at("content").at(0).at("text"), "waited 200 ms") << waited;
  EXPECT_GE(std::chrono::steady_clock::now() - before, 200ms);

  auto ticks = [&](int id) {
    const auto r = answer_of(
        app.post(rpc(id, "tools/call", {{"name", "ticks"}, {"arguments", object{}}}), {}, sid));
    return std::stol(std::string(r.at("result").at("content").at(0).at("text").as_string()));
  };
  const long first = ticks(2);
  std::this_thread::sleep_for(100ms);
  EXPECT_GT(ticks(3), first);  // the application's own timer keeps running beside MCP

  ::kill(app.proc().pid(), SIGTERM);
  EXPECT_EQ(app.proc().wait(10s), 0);
}

}  // namespace
