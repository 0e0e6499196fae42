// Tests of embedding Streamable HTTP in an application: mcp/http_endpoint.hpp (the sans-I/O
// endpoint and its body streams), mcp/beast.hpp (writing its responses on a socket), and
// http_server on the application's io_context (mcp/http_server.hpp), with serve(stop_token).
#include <mcp/asio.hpp>
#include <mcp/beast.hpp>
#include <mcp/http_endpoint.hpp>
#include <mcp/http_server.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <mutex>
#include <thread>

#include "http_test_util.hpp"

namespace mcp_test {
namespace {

namespace net = boost::asio;
using namespace std::chrono_literals;

/// Request headers as an application hands them over (with the Host a client sends).
std::vector<std::pair<std::string, std::string>> with_host(
    std::vector<std::pair<std::string, std::string>> h) {
  h.emplace_back("Host", "127.0.0.1:8080");
  return h;
}

/// Views of `h` (which must outlive them).
std::vector<mcp::http_header> views(const std::vector<std::pair<std::string, std::string>>& h) {
  std::vector<mcp::http_header> out;
  for (const auto& [k, v] : h) out.emplace_back(k, v);
  return out;
}

/// Drains a body stream on this thread: what `take` gave, until it finished.
std::vector<mcp::http_body_stream::chunk> drain(mcp::http_body_stream& s) {
  // The stream calls its waker after unlocking, on the handler's thread, possibly after `take`
  // here saw the end: the waker's state is shared, not on this frame.
  struct wake_state {
    std::mutex mu;
    std::condition_variable cv;
    bool woken = false;
  };
  const auto w = std::make_shared<wake_state>();
  s.start([w] {
    const std::lock_guard lock(w->mu);
    w->woken = true;
    w->cv.notify_all();
  });
  std::vector<mcp::http_body_stream::chunk> got;
  for (int i = 0; i < 1000; ++i) {
    auto c = s.take();
    const bool done = c.finished || c.disconnect || c.what == mcp::http_body_stream::kind::json;
    if (!c.bytes.empty() || done) got.push_back(std::move(c));
    if (done) break;
    std::unique_lock lock(w->mu);
    w->cv.wait_for(lock, 5s, [&] { return w->woken; });
    w->woken = false;
  }
  return got;
}

TEST(http_endpoint, answers_json_and_streams_sse) {
  mcp::server server;
  add_test_tools(server);
  mcp::http_endpoint endpoint(server);
  const auto init_headers_owned = with_host(post_headers({}, ""));
  const auto init_headers = views(init_headers_owned);
  auto init = endpoint.handle({.method = "POST", .target = "/mcp", .headers = init_headers},
                              initialize_body());
  EXPECT_EQ(init.status, 200U);
  EXPECT_EQ(init.content_type, "application/json");
  EXPECT_FALSE(init.stream);
  std::string sid;
  for (const auto& [k, v] : init.headers) {
    if (k == "Mcp-Session-Id") sid = v;
  }
  ASSERT_EQ(sid.size(), 32U);
  EXPECT_EQ(endpoint.session_count(), 1U);
  const auto h_owned = with_host(post_headers(sid));
  const auto h = views(h_owned);
  auto note = endpoint.handle({.method = "POST", .target = "/mcp", .headers = h},
                              R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  EXPECT_EQ(note.status, 202U);

  // Progress first: the answer becomes an event stream.
  auto call = endpoint.handle({.method = "POST", .target = "/mcp", .headers = h},
                              call_body("2", "count", R"({"steps":2,"step_ms":5})", true));
  ASSERT_TRUE(call.stream);
  auto chunks = drain(*call.stream);
  ASSERT_FALSE(chunks.empty());
  std::string events;
  for (const auto& c : chunks) {
    EXPECT_EQ(c.what, mcp::http_body_stream::kind::sse);
    events += c.bytes;
  }
  EXPECT_TRUE(chunks.back().finished)
      << events << " / " << chunks.size() << " chunks, last: " << chunks.back().bytes;
  EXPECT_NE(events.find("notifications/progress"), std::string::npos) << events;
  EXPECT_NE(events.find("counted 2"), std::string::npos) << events;

  // A slow answer with nothing before it: JSON, once it comes.
  auto slow = endpoint.handle({.method = "POST", .target = "/mcp", .headers = h},
                              call_body("3", "sleep", R"({"steps":1,"step_ms":200})"));
  ASSERT_TRUE(slow.stream) << slow.status << " " << slow.body;
  auto json = drain(*slow.stream);
  ASSERT_EQ(json.size(), 1U);
  EXPECT_EQ(json[0].what, mcp::http_body_stream::kind::json);
  EXPECT_NE(json[0].bytes.find("slept"), std::string::npos);

  // What http_server checks, the endpoint checks.
  const auto no_accept_owned = with_host({{"Content-Type", "application/json"}});
  const auto no_accept = views(no_accept_owned);
  EXPECT_EQ(
      endpoint.handle({.method = "POST", .target = "/mcp", .headers = no_accept}, "{}").status,
      406U);
  EXPECT_EQ(endpoint.handle({.method = "POST", .target = "/other", .headers = h}, "{}").status,
            404U);
  const auto evil_owned = with_host({{"Origin", "https://evil.example"},
                                     {"Content-Type", "application/json"},
                                     {"Accept", "application/json, text/event-stream"}});
  const auto evil = views(evil_owned);
  EXPECT_EQ(endpoint.handle({.method = "POST", .target = "/mcp", .headers = evil}, "{}").status,
            403U);
}

TEST(http_endpoint, a_stream_the_writer_stops_keeps_running_calls_resumable) {
  mcp::server server;
  add_test_tools(server);
  mcp::http_endpoint endpoint(server);
  const auto sid = [&] {
    const auto ih_owned = with_host(post_headers({}, ""));
    const auto ih = views(ih_owned);
    auto r =
        endpoint.handle({.method = "POST", .target = "/mcp", .headers = ih}, initialize_body());
    for (const auto& [k, v] : r.headers) {
      if (k == "Mcp-Session-Id") return v;
    }
    return std::string();
  }();
  const auto h_owned = with_host(post_headers(sid));
  const auto h = views(h_owned);
  auto call = endpoint.handle({.method = "POST", .target = "/mcp", .headers = h},
                              call_body("2", "count", R"({"steps":3,"step_ms":20})", true));
  ASSERT_TRUE(call.stream);
  call.stream->start([] {});
  call.stream->stop();  // the client went away
  call.stream.reset();
  // The call finished regardless; its events are in the store for a resuming GET.
  std::this_thread::sleep_for(150ms);
  const auto gh_owned = with_host({{"Accept", "text/event-stream"},
                                   {"Mcp-Session-Id", sid},
                                   {"MCP-Protocol-Version", "2025-11-25"},
                                   {"Last-Event-ID", "2-0"}});
  const auto gh = views(gh_owned);
  auto resumed = endpoint.handle({.method = "GET", .target = "/mcp", .headers = gh}, "");
  ASSERT_TRUE(resumed.stream) << resumed.status << " " << resumed.body;
  std::string events;
  for (const auto& c : drain(*resumed.stream)) events += c.bytes;
  EXPECT_NE(events.find("counted 3"), std::string::npos) << events;
}

TEST(http_server, runs_on_the_applications_io_context) {
  net::io_context io;
  auto guard = net::make_work_guard(io);
  std::thread run1([&io] { io.run(); });
  std::thread run2([&io] { io.run(); });
  struct joiner {
    net::io_context& io;
    std::thread& a;
    std::thread& b;
    ~joiner() {
      io.stop();
      if (a.joinable()) a.join();
      if (b.joinable()) b.join();
    }
  } join_at_exit{io, run1, run2};
  {
    mcp::server server;
    add_test_tools(server);
    mcp::http_server http(server, io, {.port = 0});
    http.start().value();
    const auto port = http.port();
    const auto sid = open_session(port);
    ASSERT_EQ(sid.size(), 32U);
    auto r = request(port, "POST", call_body("2", "count", R"({"steps":2,"step_ms":5})", true),
                     post_headers(sid));
    EXPECT_EQ(r.status, 200U);
    EXPECT_EQ(r.header("content-type"), "text/event-stream");
    EXPECT_NE(r.body.find("counted 2"), std::string::npos);
    http.stop();
    EXPECT_ANY_THROW(raw_client{port}) << "still listening after stop";
  }
  // The application's loop runs on, its own work unaffected.
  std::promise<void> fired;
  net::steady_timer t(io, 1ms);
  t.async_wait([&](boost::system::error_code) { fired.set_value(); });
  EXPECT_EQ(fired.get_future().wait_for(5s), std::future_status::ready);
  guard.reset();
}

// One thread runs the application's io_context, and a tool handler on it stops the server:
// stop() must not wait for closes that only this thread could run. The closes run after the
// handler, the server leaves no work behind, run() returns; a hang aborts the test.
TEST(http_server, stop_in_a_handler_on_the_applications_single_thread_does_not_wait_for_itself) {
  net::io_context io;  // no work guard: run() returns once nothing is left to do
  mcp::http_server* http = nullptr;
  std::atomic<bool> stop_returned{false};
  mcp::server server({.handler_executor = mcp::make_asio_executor(io.get_executor())});
  server.add_tool({.name = "halt", .description = "stops the HTTP server"}, [&]() -> std::string {
    http->stop();  // on the io_context's only thread
    stop_returned = true;
    return "stopping";
  });
  mcp::http_server h(server, io, {.port = 0});
  http = &h;
  h.start().value();
  const auto port = h.port();
  std::promise<void> ran;
  std::thread app([&] {
    io.run();
    ran.set_value();
  });
  const auto sid = open_session(port);
  ASSERT_EQ(sid.size(), 32U);
  try {  // the answer may be lost with its connection: the call is cancelled by the stop
    request(port, "POST", call_body("2", "halt", "{}"), post_headers(sid));
  } catch (const std::exception&) {
  }
  if (ran.get_future().wait_for(20s) != std::future_status::ready) {
    std::fprintf(stderr, "FAILED: io_context::run() still running 20 s after stop()\n");
    std::abort();  // a deadlocked loop thread cannot be joined
  }
  app.join();
  EXPECT_TRUE(stop_returned);
  EXPECT_ANY_THROW(raw_client{port}) << "still listening after stop";
  h.stop();  // idempotent, now from a thread that does not run the io_context
}

/// Runs `f` on a thread of its own; a hang past 20 s aborts the test (a deadlocked thread
/// cannot be joined).
template <class F>
void within_20s(const char* what, F f) {
  auto done = std::async(std::launch::async, std::move(f));
  if (done.wait_for(20s) != std::future_status::ready) {
    std::fprintf(stderr, "FAILED: %s still running after 20 s\n", what);
    std::abort();
  }
  done.get();
}

// The application's loop never runs, or stopped before the server: neither a failed start nor
// stop() waits for closes nothing would run.
TEST(http_server, on_an_io_context_that_does_not_run_stop_does_not_wait) {
  mcp::server server;
  net::io_context idle;
  within_20s("destroying a server whose start failed", [&] {
    mcp::http_server h(server, idle, {.host = "not-an-address", .port = 0});
    EXPECT_FALSE(h.start());
  });
  net::io_context io;
  mcp::http_server h(server, io, {.port = 0});
  h.start().value();
  const auto port = h.port();
  std::thread app([&] { io.run(); });
  EXPECT_NO_THROW(raw_client{port});
  io.stop();  // the application leaves its loop first
  app.join();
  within_20s("stop() on a stopped io_context", [&] { h.stop(); });
  EXPECT_ANY_THROW(raw_client{port}) << "still listening after stop";
}

TEST(http_server, serve_returns_when_its_stop_token_is_requested) {
  mcp::server server;
  mcp::http_server http(server, {.port = 0});
  std::stop_source stop;
  auto served = std::async(std::launch::async, [&] { return http.serve(stop.get_token()); });
  std::this_thread::sleep_for(50ms);
  EXPECT_NE(http.port(), 0);
  stop.request_stop();
  ASSERT_EQ(served.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(served.get(), 0);
}

TEST(beast, writes_endpoint_responses_on_a_socket) {
  mcp::server server;
  add_test_tools(server);
  mcp::http_endpoint endpoint(server);
  net::io_context io;
  net::ip::tcp::acceptor acceptor(io, {net::ip::make_address("127.0.0.1"), 0});
  const auto port = acceptor.local_endpoint().port();
  // A minimal application: one connection, a request per line-terminated read is not needed:
  // the test sends one request and the application writes the endpoint's answer.
  std::thread app([&] {
    net::ip::tcp::socket s(io);
    acceptor.accept(s);
    const auto h_owned = with_host(post_headers({}, ""));
    const auto h = views(h_owned);
    auto res =
        endpoint.handle({.method = "POST", .target = "/mcp", .headers = h}, initialize_body());
    bool kept = false;
    mcp::async_write_response(s, std::move(res), true, [&](boost::system::error_code ec, bool k) {
      EXPECT_FALSE(ec);
      kept = k;
    });
    io.run();
    EXPECT_TRUE(kept);
  });
  raw_client c(port);
  c.send_raw(make_request("GET", port, "", {}, "/unused"));  // any bytes: the app does not read
  response r;
  ASSERT_TRUE(c.read_response(r));
  app.join();
  EXPECT_EQ(r.status, 200U);
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_EQ(r.header("mcp-session-id").size(), 32U);
  EXPECT_NE(r.body.find("\"serverInfo\""), std::string::npos);
}

}  // namespace
}  // namespace mcp_test
