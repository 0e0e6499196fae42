// mcp/transport/process.hpp: launching a server as a child process, talking to it, and shutting
// it down (close stdin, SIGTERM, SIGKILL, reap) with real processes.
#include <mcp/transport/process.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace {

using namespace std::chrono_literals;
using mcp::json::object;
using clock_type = std::chrono::steady_clock;

/// True when `pid` is no child of ours any more (reaped: no zombie left).
bool reaped(int pid) {
  int st = 0;
  return ::waitpid(pid, &st, WNOHANG) < 0 && errno == ECHILD;
}

/// Lines received, thread-safe, with a wait.
struct inbox {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> lines;
  bool ended = false;
  void add(std::string_view l) {
    std::lock_guard lock(mu);
    lines.emplace_back(l);
    cv.notify_all();
  }
  void end() {
    std::lock_guard lock(mu);
    ended = true;
    cv.notify_all();
  }
  bool wait_for(std::size_t n) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, 10s, [&] { return lines.size() >= n; });
  }
  bool wait_end() {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, 10s, [&] { return ended; });
  }
};

TEST(process_connection, sends_and_receives_lines_and_a_child_that_exits_on_eof_is_reaped) {
  inbox in;  // before the connection, whose reader thread fills it until the connection goes
  auto proc = mcp::make_process_connection({.argv = {"cat"}});
  ASSERT_TRUE(proc) << proc.error().message;
  (*proc)->start([&](std::string_view l) { in.add(l); }, [&] { in.end(); });
  (*proc)->send(R"({"a":1})", {});
  (*proc)->send(R"({"b":2})", {});
  ASSERT_TRUE(in.wait_for(2));
  EXPECT_EQ(in.lines, (std::vector<std::string>{R"({"a":1})", R"({"b":2})"}));
  const auto t0 = clock_type::now();
  (*proc)->close();
  EXPECT_LT(clock_type::now() - t0, 1500ms);  // stdin EOF was enough: no signal needed
  EXPECT_EQ((*proc)->exit_status(), 0);
  EXPECT_TRUE(reaped((*proc)->pid()));
  (*proc)->send("dropped", {});  // after close: dropped, no crash
}

TEST(process_connection, captures_stderr_lines_when_asked) {
  std::mutex mu;
  std::vector<std::string> err;
  inbox in;
  auto proc = mcp::make_process_connection(
      {.argv = {"sh", "-c", "echo first >&2; echo second >&2"}, .on_stderr = [&](auto line) {
         std::lock_guard lock(mu);
         err.emplace_back(line);
       }});
  ASSERT_TRUE(proc);
  (*proc)->start([&](std::string_view l) { in.add(l); }, [&] { in.end(); });
  ASSERT_TRUE(in.wait_end());  // stdout ended: the child is gone
  (*proc)->close();
  std::lock_guard lock(mu);
  EXPECT_EQ(err, (std::vector<std::string>{"first", "second"}));
  EXPECT_EQ((*proc)->exit_status(), 0);
}

TEST(process_connection, the_child_inherits_no_other_descriptor) {
  const int leaky = ::dup2(STDERR_FILENO, 57);  // no O_CLOEXEC
  ASSERT_EQ(leaky, 57);
  inbox in;
  auto proc = mcp::make_process_connection(
      {.argv = {"sh", "-c", "test -e /proc/self/fd/57 && echo leaked || echo closed"}});
  ASSERT_TRUE(proc);
  (*proc)->start([&](std::string_view l) { in.add(l); }, [&] { in.end(); });
  ASSERT_TRUE(in.wait_end());
  ::close(leaky);
  ASSERT_EQ(in.lines.size(), 1U);
  EXPECT_EQ(in.lines[0], "closed");
}

TEST(process_connection, a_command_that_does_not_exist_is_an_error_not_a_crash) {
  auto proc = mcp::make_process_connection({.argv = {"/nonexistent/mcp-server"}});
  ASSERT_FALSE(proc);
  EXPECT_TRUE(proc.error().is(mcp::errc::connection_closed));
  EXPECT_EQ(proc.error().message, "cannot run /nonexistent/mcp-server: No such file or directory");

  auto by_name = mcp::launch_server({.argv = {"mcp-cpp-no-such-command-here"}});
  ASSERT_FALSE(by_name);
  EXPECT_NE(by_name.error().message.find("cannot run mcp-cpp-no-such-command-here"),
            std::string::npos);

  EXPECT_FALSE(mcp::make_process_connection({.argv = {}}));
}

TEST(process_connection, a_server_that_exits_before_answering_initialize_is_reported) {
  auto r = mcp::launch_server({.argv = {"sh", "-c", "exit 3"}});
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(mcp::errc::connection_closed));
  EXPECT_EQ(r.error().message, "the server exited before answering initialize (exit status 3)");
}

TEST(process_connection, shutdown_escalates_to_sigterm_then_sigkill_and_leaves_no_zombie) {
  inbox in;  // the second connection's: declared before it
  // Ignores end of input; dies on SIGTERM.
  auto term = mcp::make_process_connection({.argv = {"sleep", "100"}, .grace = 200ms});
  ASSERT_TRUE(term);
  (*term)->start([](std::string_view) {});
  auto t0 = clock_type::now();
  (*term)->close();
  auto took = clock_type::now() - t0;
  EXPECT_GE(took, 200ms);
  EXPECT_LT(took, 3s);
  EXPECT_EQ((*term)->exit_status(), 128 + SIGTERM);
  EXPECT_TRUE(reaped((*term)->pid()));

  // Ignores end of input and SIGTERM, and its own child (sleep) holds the pipes too.
  auto stubborn = mcp::make_process_connection(
      {.argv = {"sh", "-c", "trap '' TERM; echo trapped; sleep 100; echo never"}, .grace = 200ms});
  ASSERT_TRUE(stubborn);
  (*stubborn)->start([&](std::string_view l) { in.add(l); });
  ASSERT_TRUE(in.wait_for(1));  // sh ignores SIGTERM from here on
  t0 = clock_type::now();
  (*stubborn)->close();
  took = clock_type::now() - t0;
  EXPECT_GE(took, 400ms);
  EXPECT_LT(took, 3s);
  EXPECT_EQ((*stubborn)->exit_status(), 128 + SIGKILL);
  EXPECT_TRUE(reaped((*stubborn)->pid()));
  EXPECT_EQ(in.lines, std::vector<std::string>{"trapped"});
}

TEST(process_connection, the_destructor_shuts_the_child_down) {
  int pid = 0;
  {
    auto proc = mcp::make_process_connection({.argv = {"sleep", "100"}, .grace = 100ms});
    ASSERT_TRUE(proc);
    pid = (*proc)->pid();
  }
  EXPECT_TRUE(reaped(pid));
}

TEST(launch_server, initializes_lists_and_calls_the_demo_server) {
  auto server = mcp::launch_server({.argv = {MCP_DEMO_SERVER, "--task-store", ":memory:"}},
                                   {.info = {.name = "process-test", .version = "1"}});
  ASSERT_TRUE(server) << server.error().message;
  auto init = server->client->server_result();
  EXPECT_EQ(init.at("serverInfo").at("name"), "mcp-cpp-demo");
  auto tools = server->client->list_all_tools();
  ASSERT_TRUE(tools);
  EXPECT_GE(tools->size(), 5U);
  auto r = server->client->call_tool("echo", object{{"text", "hi"}});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->at("content").at(0).at("text"), "hi");
  const int pid = server->process->pid();
  server->client->close();
  EXPECT_EQ(server->process->exit_status(), 0);  // the demo exits on end of input
  EXPECT_TRUE(reaped(pid));
}

TEST(launch_server, a_child_that_dies_mid_call_fails_the_waiting_request_promptly) {
  auto server = mcp::launch_server({.argv = {MCP_DEMO_SERVER, "--task-store", ":memory:"}});
  ASSERT_TRUE(server) << server.error().message;
  std::promise<void> sent;
  mcp::request_options opts{.timeout = 60s, .on_sent = [&](std::int64_t) { sent.set_value(); }};
  auto call = std::async(std::launch::async, [&] {
    return server->client->call_tool("slow_count", object{{"steps", 100}, {"step_ms", 100}}, opts);
  });
  ASSERT_EQ(sent.get_future().wait_for(10s), std::future_status::ready);
  std::this_thread::sleep_for(50ms);
  const auto t0 = clock_type::now();
  ::kill(server->process->pid(), SIGKILL);
  ASSERT_EQ(call.wait_for(5s), std::future_status::ready);
  EXPECT_LT(clock_type::now() - t0, 3s);
  auto r = call.get();
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(mcp::errc::connection_closed)) << r.error().message;
  for (int i = 0; i < 500 && !server->process->exit_status(); ++i)
    std::this_thread::sleep_for(10ms);
  EXPECT_EQ(server->process->exit_status(), 128 + SIGKILL);  // reaped by the session's close
  // Later requests fail at once too.
  EXPECT_FALSE(server->client->call_tool("echo", object{{"text", "x"}}));
}

}  // namespace
