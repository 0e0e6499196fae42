// File: mcp/transport/stdio.hpp
//
// The stdio transport (MCP basic/transports "stdio"): newline-delimited JSON-RPC messages, one
// per line, with no embedded newlines. `fd_connection` writes messages to a file descriptor;
// `read_lines` reads them from one. `server::serve_stdio()` combines the two over stdin and
// stdout; a client uses them over the pipes of a child process.
//
// Nothing but MCP messages is written to the output descriptor; diagnostics belong on stderr.
//
// Example:
//
//   auto out = std::make_shared<mcp::fd_connection>(STDOUT_FILENO);
//   auto session = server.open_session(out);
//   mcp::read_lines(STDIN_FILENO, {}, [&](std::string_view line) { session->receive(line); });
#pragma once

#include <mcp/transport.hpp>

#include <cstddef>
#include <functional>
#include <mutex>
#include <stop_token>
#include <string_view>
#include <thread>

namespace mcp {

/// Writes each message followed by a newline to a file descriptor (not owned unless `owns`).
/// Thread-safe: concurrent sends are serialised. A write error (the peer went away) closes the
/// connection; later sends are dropped.
class fd_connection final : public connection {
 public:
  /// Writes to `fd`; closes it on destruction (or `close()`) when `owns`.
  explicit fd_connection(int fd, bool owns = false) noexcept : fd_(fd), owns_(owns) {}
  ~fd_connection() override;
  fd_connection(const fd_connection&) = delete;
  fd_connection& operator=(const fd_connection&) = delete;

  void send(std::string message, const send_context& ctx) override;
  void close() override;
  [[nodiscard]] connection_facts facts() const override { return {.network_transport = "pipe"}; }

  /// From now on, messages sent by the calling thread are buffered until `flush()`, or until
  /// `flush_bytes` are pending; another thread's message is written at once, after what is
  /// pending (messages leave in the order they were sent). A reader loop that answers inline
  /// calls this once and flushes before it blocks for input, so the answers to a burst of
  /// requests leave in a few writes, and the first of them does not wait for the whole burst:
  /// the peer reads them, and sends more, while the rest are being answered.
  void buffer_calling_thread();
  /// How much the buffering thread's messages may wait for (about 25 small answers): a write
  /// per such piece costs little next to producing it, and a pipelining peer works in parallel.
  static constexpr std::size_t flush_bytes = std::size_t{2} << 10U;
  /// Writes what the buffering thread has pending. Thread-safe.
  void flush();

 private:
  void write_locked(std::string_view data);

  std::mutex mu_;
  int fd_;
  bool owns_;
  bool closed_ = false;
  std::thread::id buffering_thread_{};
  std::string pending_;
};

/// Limits and cancellation of `read_lines`.
struct line_reader_options {
  std::size_t max_line_bytes = std::size_t{4} << 20U;  ///< longer lines are skipped
  /// Stops reading when requested (reading then waits in poll() on the descriptor and a wake-up
  /// descriptor; without a token it blocks in read() alone).
  std::stop_token stop{};
};

/// Reads newline-delimited messages from `fd` until end of file or a read error, calling
/// `on_line` for each non-empty line (without its newline or a trailing carriage return). A
/// line longer than the limit is skipped whole and reported through `on_oversized` with its
/// length so far.
/// `on_idle` runs after the lines of each read were handled, before the next read may block.
/// The lines of one read share one clock reading when a session observes them (mcp/observe.hpp:
/// the first observed line reads the clock, an answer ended on this thread renews it).
/// Blocks the calling thread. Returns 0 on end of file or when `opts.stop` was requested, else
/// the errno of the failed read.
int read_lines(int fd, const line_reader_options& opts,
               const std::function<void(std::string_view)>& on_line,
               const std::function<void(std::size_t)>& on_oversized = {},
               const std::function<void()>& on_idle = {});

}  // namespace mcp
