// The demo server binary over Streamable HTTP: spawned with --http 127.0.0.1:0, its URL read
// from stderr, then driven with the HTTP client transport.
#include <mcp/client.hpp>
#include <mcp/http_client.hpp>
#include <mcp/http_server.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <string>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

class DemoServer : public ::testing::Test {
 protected:
  void SetUp() override {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    pid_ = ::fork();
    ASSERT_GE(pid_, 0);
    if (pid_ == 0) {
      ::dup2(fds[1], STDERR_FILENO);
      ::close(fds[0]);
      ::close(fds[1]);
      const int null_fd = ::open("/dev/null", O_RDWR);
      ::dup2(null_fd, STDIN_FILENO);
      ::execl(MCP_DEMO_SERVER, MCP_DEMO_SERVER, "--http", "127.0.0.1:0",
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(fds[1]);
    err_fd_ = fds[0];
    std::string text;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (text.find("http://") == std::string::npos &&
           std::chrono::steady_clock::now() < deadline) {
      pollfd p{err_fd_, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      char buf[256];
      const auto n = ::read(err_fd_, buf, sizeof buf);
      if (n <= 0) break;
      text.append(buf, static_cast<std::size_t>(n));
    }
    const auto at = text.find("http://");
    ASSERT_NE(at, std::string::npos) << text;
    url_ = text.substr(at, text.find_first_of(" \n", at) - at);
  }
  void TearDown() override {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    }
    if (err_fd_ >= 0) ::close(err_fd_);
  }
  pid_t pid_ = -1;
  int err_fd_ = -1;
  std::string url_;
};

TEST_F(DemoServer, ListsAndCallsToolsOverHttp) {
  ASSERT_EQ(url_.rfind("http://127.0.0.1:", 0), 0U) << url_;
  auto conn = mcp::http_client_connection::create({.url = url_});
  mcp::client_session client(conn);
  conn->on_receive([&client](std::string_view m) { client.receive(m); });
  auto init = client.initialize();
  ASSERT_TRUE(init) << init.error().message;
  auto tools = client.list_all_tools();
  ASSERT_TRUE(tools);
  EXPECT_GE(tools->size(), 8U);
  auto echo = client.call_tool("echo", {{"text", "over http"}});
  ASSERT_TRUE(echo);
  EXPECT_NE(mcp::json::serialize(*echo).find("over http"), std::string::npos);
  int progress = 0;
  auto slow = client.call_tool("slow_count", {{"steps", 3}, {"step_ms", 10}},
                               {.on_progress = [&](const mcp::json::object&) { ++progress; }});
  ASSERT_TRUE(slow) << slow.error().message;
  EXPECT_EQ(progress, 3);
  conn->close();
}

}  // namespace
