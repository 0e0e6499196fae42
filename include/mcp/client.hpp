// File: mcp/client.hpp
//
// The client side of an MCP session, over any connection: initialize and version negotiation,
// requests with timeouts and cancellation, notifications, and the handlers a server may call
// back into (sampling, elicitation, roots). Calls block the calling thread until the answer
// arrives, which suits tests, tools and command-line programs.
//
// Like the server session it is sans-I/O: feed every received message text to `receive`.
//
// Example:
//
//   auto [server_end, client_end] = mcp::make_memory_pair();
//   auto session = server.open_session(server_end);
//   server_end->on_receive([session](std::string_view m) { session->receive(m); });
//   mcp::client_session client(client_end, {.info = {.name = "demo", .version = "1"}});
//   client_end->on_receive([&client](std::string_view m) { client.receive(m); });
//   auto init = client.initialize();
//   auto r = client.call_tool("echo", {{"text", "hi"}});
#pragma once

#include <mcp/content.hpp>
#include <mcp/executor.hpp>
#include <mcp/protocol.hpp>
#include <mcp/transport.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mcp {

struct client_info {
  std::string name = "mcp-cpp-client";
  std::string version = "0.0.0";
};

/// Answers a request the server sends (sampling/createMessage, elicitation/create, roots/list).
using client_request_handler = std::function<result<json::object>(const json::object& params)>;

struct client_options {
  client_info info{};
  std::string protocol_version{latest_protocol_version};  ///< requested in initialize
  json::object capabilities{};  ///< declared as-is (e.g. {"sampling":{}, "elicitation":{}})
  std::chrono::milliseconds timeout{30000};  ///< default per request
  json_limits limits{};
  /// Handlers for server requests by method; a request without one gets -32601. They run on
  /// `handler_executor`, never on the thread that received the request.
  std::vector<std::pair<std::string, client_request_handler>> request_handlers{};
  /// Runs the request handlers. Default: one thread of the client's own, started on first use.
  std::shared_ptr<executor> handler_executor{};
  /// Called for every notification from the server (method, params). Any thread.
  std::function<void(std::string_view, const json::object&)> on_notification{};
};

/// Per-request options.
struct request_options {
  std::chrono::milliseconds timeout{0};  ///< 0: the client's default
  /// When set, a progressToken is sent and progress notifications are reported here.
  std::function<void(const json::object& progress)> on_progress{};
  /// Receives the request's id as soon as it is sent (to cancel it from another thread).
  std::function<void(std::int64_t id)> on_sent{};
};

class client_session {
 public:
  /// Thread-safety: all members may be called from any thread.
  explicit client_session(std::shared_ptr<connection> conn, client_options opts = {});
  ~client_session();
  client_session(const client_session&) = delete;
  client_session& operator=(const client_session&) = delete;

  /// Handles one received message text. Never throws.
  void receive(std::string_view message);

  /// Sends initialize, then notifications/initialized. Returns the InitializeResult.
  result<json::object> initialize();
  /// Sends a request and waits for its result. Errors: the server's JSON-RPC error,
  /// `errc::request_timeout` (a notifications/cancelled is sent), `errc::connection_closed`.
  result<json::object> request(std::string_view method, json::object params,
                               const request_options& opts = {});
  /// Sends a notification.
  void notify(std::string_view method, json::object params = {});
  /// Sends notifications/cancelled for request `id`; its result will not be awaited further.
  void cancel(std::int64_t id, std::string_view reason = "cancelled by the client");

  /// tools/call. A tool error is a successful result with isError: true.
  result<json::object> call_tool(std::string_view name, json::object arguments = {},
                                 const request_options& opts = {});
  /// Every page of tools/list, concatenated.
  result<std::vector<json::object>> list_all_tools();

  /// The server's InitializeResult (empty before initialize).
  [[nodiscard]] json::object server_result() const;
  /// Closes the connection; waiting requests fail with connection_closed.
  void close();

 private:
  struct impl;
  std::shared_ptr<impl> impl_;
};

}  // namespace mcp
