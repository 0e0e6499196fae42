// File: mcp/transport/process.hpp
//
// The client end of the stdio transport: an MCP server launched as a child process (no shell),
// spoken to over its stdin and stdout (newline-delimited messages, as `fd_connection` and
// `read_lines` of mcp/transport/stdio.hpp write and read them), its stderr passed through or
// handed line by line to a callback. Shutdown follows MCP basic/transports "stdio": close the
// child's stdin, wait, SIGTERM, wait, SIGKILL; the child is always reaped.
//
// `launch_server` gives a ready `client_session`: launched, wired both ways, initialized. When
// the child exits (or closes its stdout) the session is closed, so every waiting request fails
// at once with `errc::connection_closed`.
//
// Example:
//
//   auto server = mcp::launch_server({.argv = {"demo_server"}});
//   if (!server) { std::cerr << server.error().message << "\n"; return 2; }
//   auto r = server->client->call_tool("echo", {{"text", "hi"}});
//   server->client->close();  // shuts the child down; so does dropping the last reference
//
//   // By hand, the wiring launch_server does (e.g. to initialize later, or not at all):
//   auto proc = mcp::make_process_connection({.argv = {"demo_server"}});
//   auto client = std::make_shared<mcp::client_session>(*proc);
//   std::weak_ptr<mcp::client_session> weak = client;
//   (*proc)->start([weak](std::string_view m) { if (auto c = weak.lock()) c->receive(m); },
//                  [weak] { if (auto c = weak.lock()) c->close(); });
//   client->initialize();
#pragma once

#include <mcp/client.hpp>
#include <mcp/transport.hpp>
#include <mcp/transport/stdio.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcp {

/// The child to start and how its output is read.
struct process_options {
  /// The command and its arguments; `argv[0]` is looked up in PATH when it has no '/'.
  std::vector<std::string> argv;
  /// Each line the child writes to stderr, on a thread of its own; `close` returns after the
  /// last one (unless something the child started keeps the pipe open). Empty: the child's
  /// stderr is this process's stderr (inherited).
  std::function<void(std::string_view line)> on_stderr{};
  /// How long shutdown waits after closing the child's stdin before SIGTERM, and again after
  /// SIGTERM before SIGKILL.
  std::chrono::milliseconds grace{2000};
  line_reader_options reader{};  ///< how the child's stdout (and stderr) lines are read
};

class process_connection;
/// Starts `opts.argv[0]` with pipes on its stdin and stdout; reading starts with
/// `process_connection::start`. Thread-safety: may be called from any thread. Errors:
/// `errc::invalid_params` for an empty argv; `errc::connection_closed` when the command cannot
/// be run (message: "cannot run CMD: No such file or directory").
[[nodiscard]] result<std::shared_ptr<process_connection>> make_process_connection(
    process_options opts);

/// A running child process as an `mcp::connection`: `send` writes a line to its stdin, and a
/// reader thread hands each line of its stdout to the receiver given to `start`.
///
/// The child gets stdin, stdout and stderr and no other descriptor of this process (with glibc
/// older than 2.34, descriptors opened without O_CLOEXEC are inherited too).
/// It runs in a process group of its own (a Ctrl-C at the terminal reaches this process,
/// which decides what to do, not the server), with the default signal mask and SIGPIPE
/// disposition. Launching one makes this process ignore SIGPIPE (when it was at its default),
/// so that writing to a child that died is an error, not the end of this process.
///
/// Thread-safety: every member may be called from any thread, `close` from the receiver or the
/// end callback too.
class process_connection final : public connection {
 public:
  /// Made by `make_process_connection`.
  friend result<std::shared_ptr<process_connection>> make_process_connection(process_options opts);
  /// Shuts the child down as `close` does.
  ~process_connection() override;
  process_connection(const process_connection&) = delete;
  process_connection& operator=(const process_connection&) = delete;

  /// Starts the reader thread: each stdout line goes to `on_message`; at end of stdout (the
  /// child exited or closed it) `on_end` runs once, on the reader thread. Call once.
  void start(std::function<void(std::string_view)> on_message, std::function<void()> on_end = {});

  /// Writes `message` and a newline to the child's stdin; dropped after `close` or once the
  /// child stopped reading.
  void send(std::string message, const send_context& ctx) override;
  /// Shuts the child down: closes its stdin, waits up to `grace` for it to exit, then sends
  /// SIGTERM to its process group, waits up to `grace` again, then SIGKILL; reaps it. Blocks
  /// until then (at most about twice `grace`, plus up to a second for the reader threads when
  /// something the child started still holds its pipes). Once it began, no stdout line or end
  /// callback starts, and one running is waited for (unless `close` is called from it); stderr
  /// lines are delivered until it returns, never after. A second call waits for the first to
  /// finish, unless it comes from a callback. Idempotent.
  void close() override;
  [[nodiscard]] connection_facts facts() const override { return {.network_transport = "pipe"}; }

  /// The child's process id.
  [[nodiscard]] int pid() const noexcept;
  /// How the child ended once reaped by `close`: its exit code, or 128 + the signal that ended
  /// it. Nothing while it runs.
  [[nodiscard]] std::optional<int> exit_status() const;

  struct state;

 private:
  explicit process_connection(std::shared_ptr<state> s) : state_(std::move(s)) {}
  std::shared_ptr<state> state_;
};

/// A client session connected to a launched server (see `launch_server`).
struct launched_server {
  std::shared_ptr<process_connection> process;  ///< the child and its pipes
  std::shared_ptr<client_session> client;       ///< the session, initialized
};

/// Launches the server `proc.argv`, connects a `client_session` (options `client`) to it and
/// initializes it (`client->server_result()` holds the InitializeResult). The session is closed
/// when the child's stdout ends; closing the session shuts the child down.
/// Errors: those of `make_process_connection`; the initialize error (the child is shut down
/// first), e.g. `errc::connection_closed` when the command exits before answering.
[[nodiscard]] result<launched_server> launch_server(process_options proc,
                                                    client_options client = {});

}  // namespace mcp
