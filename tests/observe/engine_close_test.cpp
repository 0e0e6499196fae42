// A session that closes while the server waits for the client's answer to a request it sent
// (src/peer.cpp, `close_peer`): the handler's ask fails at once with connection_closed, and the
// request's span ends as such, once.
#include <mcp/client.hpp>
#include <mcp/observe/tracing.hpp>
#include <mcp/server.hpp>
#include <mcp/transport/memory.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using mcp::json::object;
using namespace std::chrono_literals;

TEST(engine_close, a_request_the_server_sent_fails_and_ends_its_span_when_the_session_closes) {
  std::mutex mu;
  std::vector<mcp::observe::span_record> spans;
  mcp::server s({.observer = mcp::observe::make_tracer({.sink = [&](auto r) {
                   std::lock_guard lock(mu);
                   spans.push_back(std::move(*r));
                 }})});
  std::promise<std::string> told;  // what the handler's ask answered
  s.add_tool({.name = "ask"}, [&told](mcp::tool_context& ctx) -> mcp::result<std::string> {
    auto a = ctx.elicit(
        object{{"message", "name?"},
               {"requestedSchema", object{{"type", "object"}, {"properties", object{}}}}});
    told.set_value(a ? std::string("answered") : a.error().message);
    return std::string("asked");
  });
  std::promise<void> asked;
  // The client's handler runs on a pool thread that may outlive this frame: what it touches
  // after `asked` is shared, and the test waits for it to return.
  auto release = std::make_shared<std::atomic<bool>>(false);
  auto returned = std::make_shared<std::promise<void>>();
  auto handler_returned = returned->get_future();
  auto c = mcp::connect_in_process(
      s, {.capabilities = object{{"elicitation", object{}}},
          .request_handlers = {
              {"elicitation/create", [&asked, release, returned](const object&, std::stop_token) {
                 asked.set_value();
                 for (int i = 0; i < 5000 && !release->load(); ++i) {
                   std::this_thread::sleep_for(1ms);
                 }
                 returned->set_value();
                 return mcp::result<object>(object{{"action", "decline"}});
               }}}});
  ASSERT_TRUE(c) << c.error().message;
  std::thread caller([&] { (void)c->client->call_tool("ask"); });
  // Not fatal: the test goes on to close and join `caller` (a return here would destroy it
  // joinable and end the whole binary).
  EXPECT_EQ(asked.get_future().wait_for(5s), std::future_status::ready);

  c->session->close();  // the elicitation is still unanswered
  auto answer = told.get_future();
  const bool in_time = answer.wait_for(5s) == std::future_status::ready;
  *release = true;
  EXPECT_EQ(handler_returned.wait_for(10s), std::future_status::ready);
  c->client->close();  // the call is not answered now: its wait ends too
  caller.join();
  ASSERT_TRUE(in_time) << "the ask did not fail when its session closed";
  EXPECT_NE(answer.get().find("the session has ended"), std::string::npos);

  std::lock_guard lock(mu);
  int ended = 0;
  for (const auto& r : spans) {
    if (r.name() != "elicitation/create" || r.side() != mcp::observe::kind::client) continue;
    ++ended;
    EXPECT_EQ(r.error_type, "connection_closed");
    EXPECT_EQ(r.status, mcp::observe::span_status::error);
  }
  EXPECT_EQ(ended, 1);
}

}  // namespace
