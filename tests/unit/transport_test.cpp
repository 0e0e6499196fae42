// mcp/transport/stdio.hpp (read_lines, fd_connection) and mcp/transport/memory.hpp.
#include <mcp/transport/memory.hpp>
#include <mcp/transport/stdio.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include <sys/ioctl.h>
#include <unistd.h>

namespace {

struct pipe_fds {
  int r = -1;
  int w = -1;
  pipe_fds() {
    int fds[2];
    if (::pipe(fds) == 0) {
      r = fds[0];
      w = fds[1];
    }
  }
  ~pipe_fds() {
    if (r >= 0) ::close(r);
    if (w >= 0) ::close(w);
  }
  void write_all(std::string_view s) const {
    while (!s.empty()) {
      const auto n = ::write(w, s.data(), s.size());
      if (n <= 0) return;
      s.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  void close_write() {
    ::close(w);
    w = -1;
  }
};

TEST(read_lines, splits_lines_strips_cr_skips_empty_and_reads_the_last_unterminated_line) {
  pipe_fds p;
  std::thread writer([&] {
    p.write_all("one\r\n\ntwo\nthr");
    p.write_all("ee\nlast");
    p.close_write();
  });
  std::vector<std::string> lines;
  const int rc = mcp::read_lines(p.r, {}, [&](std::string_view l) { lines.emplace_back(l); });
  writer.join();
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two", "three", "last"}));
}

TEST(read_lines, oversized_lines_are_skipped_whole_and_reported) {
  pipe_fds p;
  std::thread writer([&] {
    p.write_all("short\n");
    p.write_all(std::string(100, 'x'));
    p.write_all(std::string(100, 'y') + "\nafter\n");
    p.close_write();
  });
  std::vector<std::string> lines;
  std::vector<std::size_t> oversized;
  mcp::read_lines(
      p.r, {.max_line_bytes = 50}, [&](std::string_view l) { lines.emplace_back(l); },
      [&](std::size_t n) { oversized.push_back(n); });
  writer.join();
  EXPECT_EQ(lines, (std::vector<std::string>{"short", "after"}));
  EXPECT_EQ(oversized, (std::vector<std::size_t>{200}));
}

TEST(fd_connection, writes_one_line_per_message_and_stops_after_close) {
  pipe_fds p;
  {
    mcp::fd_connection c(p.w);
    c.send(R"({"a":1})", {});
    c.send(R"({"b":2})", {});
    c.close();
    c.send("dropped", {});
  }
  p.close_write();
  std::vector<std::string> lines;
  mcp::read_lines(p.r, {}, [&](std::string_view l) { lines.emplace_back(l); });
  EXPECT_EQ(lines, (std::vector<std::string>{R"({"a":1})", R"({"b":2})"}));
}

/// Bytes readable from `fd` now, without blocking.
std::size_t readable(int fd) {
  int n = 0;
  return ::ioctl(fd, FIONREAD, &n) == 0 ? static_cast<std::size_t>(n) : 0;
}

TEST(fd_connection, the_buffering_thread_writes_a_full_piece_at_once_and_the_rest_on_flush) {
  // Nobody reads the pipe until the end: a piece must fit even a pipe the kernel shrank to 4 KiB.
  static_assert(mcp::fd_connection::flush_bytes + 200 < 4096);
  pipe_fds p;
  mcp::fd_connection c(p.w);
  c.buffer_calling_thread();
  const std::string answer(99, 'a');  // 100 bytes with its newline
  std::size_t sent = 0;
  while ((sent + 1) * 100 < mcp::fd_connection::flush_bytes) {
    c.send(answer, {});
    ++sent;
  }
  EXPECT_EQ(readable(p.r), 0U) << "below the bound, answers wait for flush()";
  c.send(answer, {});  // reaches the bound: everything pending leaves in one write
  ++sent;
  EXPECT_EQ(readable(p.r), sent * 100);
  c.send("tail", {});
  EXPECT_EQ(readable(p.r), sent * 100);
  // Another thread's message goes out at once, after what this thread has pending.
  std::thread([&] { c.send("other", {}); }).join();
  EXPECT_EQ(readable(p.r), sent * 100 + 11);
  c.flush();
  c.close();
  p.close_write();
  std::vector<std::string> lines;
  mcp::read_lines(p.r, {}, [&](std::string_view l) { lines.emplace_back(l); });
  ASSERT_EQ(lines.size(), sent + 2);
  EXPECT_EQ(lines[sent], "tail");
  EXPECT_EQ(lines[sent + 1], "other");
}

TEST(read_lines, a_stop_token_ends_a_blocked_read) {
  pipe_fds p;  // the write end stays open: without the stop, reading would block for ever
  std::stop_source stop;
  std::vector<std::string> lines;
  std::thread stopper([&] {
    p.write_all("one\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    stop.request_stop();
  });
  const int rc = mcp::read_lines(p.r, {.stop = stop.get_token()},
                                 [&](std::string_view l) { lines.emplace_back(l); });
  stopper.join();
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(lines, (std::vector<std::string>{"one"}));
  // A token already stopped returns at once.
  EXPECT_EQ(mcp::read_lines(p.r, {.stop = stop.get_token()}, [](std::string_view) {}), 0);
}

TEST(memory_pair, delivers_both_ways_and_closes_both_ends) {
  auto [a, b] = mcp::make_memory_pair();
  std::vector<std::string> at_a;
  std::vector<std::string> at_b;
  bool a_closed = false;
  bool b_closed = false;
  a->on_receive([&](std::string_view m) { at_a.emplace_back(m); });
  b->on_receive([&](std::string_view m) { at_b.emplace_back(m); });
  a->on_close([&] { a_closed = true; });
  b->on_close([&] { b_closed = true; });
  a->send("to b", {});
  b->send("to a", {});
  EXPECT_EQ(at_b, (std::vector<std::string>{"to b"}));
  EXPECT_EQ(at_a, (std::vector<std::string>{"to a"}));
  b->close();
  EXPECT_TRUE(a_closed);
  EXPECT_TRUE(b_closed);
  a->send("dropped", {});
  EXPECT_EQ(at_b.size(), 1U);
  EXPECT_EQ(a->sent_count(), 1U);
}

}  // namespace
