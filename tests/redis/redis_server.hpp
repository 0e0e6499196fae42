// Test support: a real redis-server (Debian's) on 127.0.0.1 and an ephemeral port (or a unix
// socket) with a temporary directory, no persistence; started, awaited until it answers PING,
// stopped (or killed, paused, restarted on the same port) by the test. `binary()` finds the
// program; the redis tests' main skips (exit 77) when it is missing.
#pragma once

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace mcp::test {

class redis_server {
 public:
  struct options {
    std::string password{};    ///< requirepass
    bool unix_socket = false;  ///< listen on a unix socket in the temp dir too
  };

  /// The redis-server program (`MCP_REDIS_SERVER` when set, else Debian's), or nothing when it
  /// is not installed.
  static std::optional<std::string> binary() {
    if (const char* env = std::getenv("MCP_REDIS_SERVER"); env != nullptr && *env != '\0') {
      if (::access(env, X_OK) == 0) return std::string(env);
      return std::nullopt;
    }
    for (const char* p :
         {"/usr/bin/redis-server", "/usr/local/bin/redis-server", "/usr/sbin/redis-server"}) {
      if (::access(p, X_OK) == 0) return std::string(p);
    }
    return std::nullopt;
  }

  redis_server() : redis_server(options{}) {}
  explicit redis_server(options o) : opts_(std::move(o)) {
    static int counter = 0;
    dir_ = std::filesystem::temp_directory_path() /
           ("mcp-redis-" + std::to_string(::getpid()) + "-" + std::to_string(++counter));
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    std::filesystem::create_directories(dir_, ec);
    for (int attempt = 0; attempt < 5 && pid_ <= 0; ++attempt) {
      port_ = free_port();
      if (port_ != 0 && spawn() && wait_ready()) break;
      stop();
    }
  }
  redis_server(const redis_server&) = delete;
  redis_server& operator=(const redis_server&) = delete;
  ~redis_server() {
    stop();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  /// True when the server runs and answered PING.
  [[nodiscard]] bool running() const { return pid_ > 0; }
  [[nodiscard]] std::uint16_t port() const { return port_; }
  [[nodiscard]] std::string socket_path() const { return (dir_ / "redis.sock").string(); }
  /// redis://127.0.0.1:PORT (with the password when there is one).
  [[nodiscard]] std::string url() const {
    const std::string auth = opts_.password.empty() ? "" : ":" + opts_.password + "@";
    return "redis://" + auth + "127.0.0.1:" + std::to_string(port_);
  }
  [[nodiscard]] std::string unix_url() const { return "unix://" + socket_path(); }

  /// Kills the server at once (SIGKILL), as a crash would.
  void kill() { stop(SIGKILL); }
  /// Stops it (SIGTERM, then SIGKILL after 5 s).
  void stop(int sig = SIGTERM) {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGCONT);
    ::kill(pid_, sig);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    int st = 0;
    while (::waitpid(pid_, &st, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &st, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    pid_ = -1;
  }
  /// Pauses (SIGSTOP) or resumes (SIGCONT) it: a Redis that accepts nothing and answers nothing.
  void pause(bool paused) {
    if (pid_ > 0) ::kill(pid_, paused ? SIGSTOP : SIGCONT);
  }
  /// Starts it again on the same port (after `kill` or `stop`). True once it answers PING.
  bool restart() {
    stop();
    for (int attempt = 0; attempt < 50; ++attempt) {  // the port may linger a moment
      if (spawn() && wait_ready()) return true;
      stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

 private:
  static std::uint16_t free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return 0;
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    std::uint16_t port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
      port = ntohs(a.sin_port);
    }
    ::close(fd);
    return port;
  }

  bool spawn() {
    const auto bin = binary();
    if (!bin) return false;
    std::vector<std::string> argv = {*bin,     "--port",       std::to_string(port_),
                                     "--bind", "127.0.0.1",    "--save",
                                     "",       "--appendonly", "no",
                                     "--dir",  dir_.string(),  "--daemonize",
                                     "no",     "--logfile",    (dir_ / "redis.log").string()};
    if (!opts_.password.empty()) {
      argv.insert(argv.end(), {"--requirepass", opts_.password});
    }
    if (opts_.unix_socket) {
      argv.insert(argv.end(), {"--unixsocket", socket_path(), "--unixsocketperm", "700"});
    }
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    const int rc = posix_spawn(&pid_, args[0], &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) pid_ = -1;
    return pid_ > 0;
  }

  /// Waits up to 10 s for an answer to PING (+PONG, or -NOAUTH when a password is set).
  bool wait_ready() const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      int st = 0;
      if (::waitpid(pid_, &st, WNOHANG) == pid_) return false;  // it exited (port taken?)
      if (ping()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  bool ping() const {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return false;
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port_);
    bool ok = false;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        ::send(fd, "PING\r\n", 6, MSG_NOSIGNAL) == 6) {
      pollfd p{fd, POLLIN, 0};
      char buf[64] = {};
      if (::poll(&p, 1, 1000) == 1 && ::recv(fd, buf, sizeof buf - 1, 0) > 0) {
        const std::string reply(buf);
        ok = reply.rfind("+PONG", 0) == 0 || reply.rfind("-NOAUTH", 0) == 0;
      }
    }
    ::close(fd);
    if (ok && opts_.unix_socket) ok = std::filesystem::exists(socket_path());
    return ok;
  }

  options opts_;
  std::filesystem::path dir_;
  std::uint16_t port_ = 0;
  pid_t pid_ = -1;
};

/// A key prefix no other test of this process uses.
inline std::string unique_prefix() {
  static int n = 0;
  return "t" + std::to_string(::getpid()) + "-" + std::to_string(++n) + ":";
}

}  // namespace mcp::test
