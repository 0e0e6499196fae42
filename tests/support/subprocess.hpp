// Test support: a child process with pipes on its stdin, stdout and stderr, read line by line
// with timeouts. POSIX only.
#pragma once

#include <chrono>
#include <csignal>
#include <optional>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace mcp::test {

class subprocess {
 public:
  explicit subprocess(std::vector<std::string> argv) {
    // Close-on-exec: a child another thread spawns meanwhile must not hold these pipes open
    // (this child's end of file would never come). The dup2s below clear it for 0, 1 and 2.
    int in[2], out[2], err[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 ||
        ::pipe2(err, O_CLOEXEC) != 0) {
      return;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) {
      posix_spawn_file_actions_addclose(&fa, fd);
    }
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    if (posix_spawn(&pid_, args[0], &fa, nullptr, args.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    stdin_ = in[1];
    stdout_ = out[0];
    stderr_ = err[0];
    ::fcntl(stderr_, F_SETFL, O_NONBLOCK);
  }
  ~subprocess() {
    close_stdin();
    if (pid_ > 0 && !exit_code_) {
      ::kill(pid_, SIGKILL);
      int st = 0;
      ::waitpid(pid_, &st, 0);
    }
    for (int fd : {stdout_, stderr_}) {
      if (fd >= 0) ::close(fd);
    }
  }
  subprocess(const subprocess&) = delete;
  subprocess& operator=(const subprocess&) = delete;

  [[nodiscard]] bool started() const { return pid_ > 0; }
  [[nodiscard]] pid_t pid() const { return pid_; }

  /// Writes `text` plus a newline to the child's stdin. False if the pipe is closed.
  bool write_line(std::string text) {
    text.push_back('\n');
    std::size_t off = 0;
    while (off < text.size()) {
      const ssize_t n = ::write(stdin_, text.data() + off, text.size() - off);
      if (n <= 0) return false;
      off += static_cast<std::size_t>(n);
    }
    return true;
  }

  void close_stdin() {
    if (stdin_ >= 0) ::close(stdin_);
    stdin_ = -1;
  }

  /// The next line of the child's stdout (without '\n'); nothing on timeout or end of file.
  std::optional<std::string> read_line(
      std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (auto nl = buf_.find('\n'); nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return line;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd p{stdout_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return std::nullopt;
      char chunk[65536];
      const ssize_t n = ::read(stdout_, chunk, sizeof chunk);
      if (n <= 0) return std::nullopt;
      buf_.append(chunk, static_cast<std::size_t>(n));
    }
  }

  /// Everything the child wrote to stderr so far.
  std::string drain_stderr() {
    char chunk[4096];
    ssize_t n = 0;
    while ((n = ::read(stderr_, chunk, sizeof chunk)) > 0)
      err_.append(chunk, static_cast<std::size_t>(n));
    return err_;
  }

  /// Waits for the child to exit; its exit code, or nothing on timeout / abnormal end.
  std::optional<int> wait(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      int st = 0;
      const pid_t r = ::waitpid(pid_, &st, WNOHANG);
      if (r == pid_) {
        exit_code_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        return exit_code_;
      }
      ::usleep(5000);
    }
    return std::nullopt;
  }

 private:
  pid_t pid_ = -1;
  int stdin_ = -1;
  int stdout_ = -1;
  int stderr_ = -1;
  std::string buf_;
  std::string err_;
  std::optional<int> exit_code_;
};

}  // namespace mcp::test
