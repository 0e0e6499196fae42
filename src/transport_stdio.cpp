#include <mcp/server.hpp>
#include <mcp/transport/stdio.hpp>

#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "detail/clear_keeping.hpp"
#include "detail/read_clock.hpp"
#include "server_session.hpp"
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace mcp {

fd_connection::~fd_connection() {
  if (owns_ && fd_ >= 0) ::close(fd_);
}

void fd_connection::send(std::string message, const send_context& /*ctx*/) {
  message.push_back('\n');
  std::lock_guard lock(mu_);
  if (closed_) return;
  if (buffering_thread_ == std::this_thread::get_id()) {
    if (pending_.empty() && message.size() >= flush_bytes) {
      write_locked(message);  // a piece on its own: no copy into the buffer
      return;
    }
    pending_ += message;
    if (pending_.size() >= flush_bytes) {
      write_locked(pending_);
      pending_.clear();
    }
    return;
  }
  // What the reader thread buffered was sent first: it goes out first (a task's CreateTaskResult,
  // answered on the reader thread, before the requests its handler sends from another).
  if (!pending_.empty()) {
    write_locked(pending_);
    pending_.clear();
  }
  write_locked(message);
}

void fd_connection::write_locked(std::string_view data) {
  while (!data.empty() && !closed_) {
    const ssize_t n = ::write(fd_, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      closed_ = true;  // the reader went away
      return;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

void fd_connection::buffer_calling_thread() {
  std::lock_guard lock(mu_);
  buffering_thread_ = std::this_thread::get_id();
}

void fd_connection::flush() {
  std::lock_guard lock(mu_);
  if (pending_.empty()) return;
  write_locked(pending_);
  pending_.clear();
}

void fd_connection::close() {
  std::lock_guard lock(mu_);
  if (closed_) return;
  write_locked(pending_);
  pending_.clear();
  closed_ = true;
  if (owns_ && fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

int read_lines(int fd, const line_reader_options& opts,
               const std::function<void(std::string_view)>& on_line,
               const std::function<void(std::size_t)>& on_oversized,
               const std::function<void()>& on_idle) {
  std::vector<char> buf(std::size_t{64} << 10U);
  std::string line;
  bool skipping = false;  // inside an oversized line
  std::size_t skipped = 0;
  auto emit = [&](std::string_view l) {
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    if (!l.empty()) on_line(l);
  };
  // With a stop token, each read waits in poll() on `fd` and an eventfd the token's callback
  // writes to; without one, read() alone (no extra system call per read).
  int wake = -1;
  std::optional<std::stop_callback<std::function<void()>>> on_stop;
  if (opts.stop.stop_possible()) {
    wake = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (wake < 0) return errno;
    on_stop.emplace(opts.stop, std::function<void()>([wake] {
                      const std::uint64_t one = 1;
                      (void)!::write(wake, &one, sizeof one);
                    }));
  }
  struct closer {
    int fd;
    ~closer() {
      if (fd >= 0) ::close(fd);
    }
  } close_wake{wake};
  const detail::reader_scope reading;  // the messages of a read share one clock reading
  for (;;) {
    if (on_idle) on_idle();
    if (wake >= 0) {
      std::array<pollfd, 2> fds{{{fd, POLLIN, 0}, {wake, POLLIN, 0}}};
      if (::poll(fds.data(), fds.size(), -1) < 0) {
        if (errno == EINTR) continue;
        return errno;
      }
      if ((fds[1].revents & POLLIN) != 0) {
        on_stop.reset();  // the callback no longer writes to `wake` once this returns
        return 0;
      }
    }
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    detail::reader_scope::new_batch();
    if (n == 0) {
      if (!skipping) emit(line);
      return 0;
    }
    std::string_view chunk(buf.data(), static_cast<std::size_t>(n));
    while (!chunk.empty()) {
      const auto nl = chunk.find('\n');
      const auto part = chunk.substr(0, nl);
      if (skipping) {
        skipped += part.size();
      } else if (line.size() + part.size() > opts.max_line_bytes) {
        skipping = true;
        skipped = line.size() + part.size();
        std::string().swap(line);  // give back what the long line took
      } else if (nl != std::string_view::npos && line.empty()) {
        emit(part);  // the common case: a whole line inside one chunk, no copy
      } else {
        line.append(part);
      }
      if (nl == std::string_view::npos) break;
      if (skipping) {
        if (on_oversized) on_oversized(skipped);
        skipping = false;
        skipped = 0;
      } else if (!line.empty()) {
        emit(line);
        detail::clear_keeping(line, buf.size());
      }
      chunk.remove_prefix(nl + 1);
    }
  }
}

int server::serve_stdio(std::stop_token stop) {
  std::signal(SIGPIPE, SIG_IGN);  // a vanished client must not kill the server
  auto out = std::make_shared<fd_connection>(STDOUT_FILENO);
  // Tasks belong to the local user: a server restarted on the same task store serves them.
  const auto session = detail::open_session(
      core_, out, session_options{.task_owner = "local:uid" + std::to_string(::getuid())});
  out->buffer_calling_thread();  // inline answers leave together, flushed before each read
  session->count_answers(std::this_thread::get_id());  // drained here at the end of input
  const std::size_t max_line = options().max_line_bytes;
  const int rc = read_lines(
      STDIN_FILENO, {.max_line_bytes = max_line, .stop = stop},
      [&](std::string_view line) { session->receive(line); },
      [&](std::size_t size) {
        out->send(jsonrpc::encode_error(
                      std::nullopt, error{errc::invalid_request,
                                          "Invalid Request: message of " + std::to_string(size) +
                                              " bytes exceeds the limit of " +
                                              std::to_string(max_line) + " bytes"}),
                  send_context{});
      },
      [&] { out->flush(); });
  out->flush();
  // Every request read was accepted: the calls still running on handler threads are answered
  // before the session closes (closing cancels them and drops their answers), the twin's
  // (2026-07-28 requests) too. A handler's question to the client (sampling...) fails now. A
  // call untracked but answered some other way than `send_final` is waited for `settle` more.
  // At most a day: a larger setting (milliseconds::max()) would overflow the deadline.
  const auto drain_for =
      std::min(options().stdio_drain_timeout, std::chrono::milliseconds(std::chrono::hours(24)));
  constexpr auto settle = std::chrono::milliseconds(100);
  const auto dropped = session->finish_input(std::chrono::steady_clock::now() + drain_for, settle);
  session->close();
  if (!dropped.empty()) {
    std::string line = "mcp: serve_stdio ending: " + std::to_string(dropped.size()) +
                       " request(s) still running after " + std::to_string(drain_for.count()) +
                       " ms cancelled unanswered, ids:";
    for (const auto& id : dropped) line += " " + jsonrpc::to_string(id);
    line += "\n";
    (void)!::write(STDERR_FILENO, line.data(), line.size());
  }
  return rc == 0 ? 0 : 1;
}

}  // namespace mcp
