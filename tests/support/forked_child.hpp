// Test support: the bytes a forked child of this process makes, read back by the parent through
// a pipe. The random-id tests use it: a child must not repeat what its parent makes next.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include <sys/wait.h>
#include <unistd.h>

namespace mcp::test {

/// Forks; the child writes the 16 bytes `make()` returns to a pipe and exits; the parent reads
/// them and waits for the child. Nothing when the pipe, the fork or the read failed, or the
/// child did not exit with 0 (its write was short).
template <class F>
std::optional<std::array<std::uint8_t, 16>> bytes_made_in_forked_child(F make) {
  std::array<int, 2> fds{};
  if (::pipe(fds.data()) != 0) return std::nullopt;
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return std::nullopt;
  }
  if (pid == 0) {
    const std::array<std::uint8_t, 16> bytes = make();
    const bool whole =
        ::write(fds[1], bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
    ::_exit(whole ? 0 : 1);
  }
  ::close(fds[1]);
  std::array<std::uint8_t, 16> got{};
  const auto n = ::read(fds[0], got.data(), got.size());
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (n != static_cast<ssize_t>(got.size()) || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return std::nullopt;
  }
  return got;
}

}  // namespace mcp::test
