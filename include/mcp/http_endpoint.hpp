// File: mcp/http_endpoint.hpp
//
// Streamable HTTP as a request handler an application mounts in its own HTTP server (Beast or
// any other), target `mcp::http`: the application reads each request for the MCP path (and,
// with OAuth, the metadata paths), hands it to `http_endpoint::handle`, and writes what comes
// back. Everything `http_server` checks and does (Origin, Host, Accept, sessions, SSE,
// resumption, bearer tokens, limits on sessions and streams) happens here the same way; what
// stays with the application is the socket: reading requests with its own size limits and
// timeouts, TLS, and writing the response. mcp/beast.hpp writes a response on any Asio stream.
//
// A response is complete (status, headers, body), or its body comes later from a
// `http_body_stream`: one JSON answer, or server-sent events for as long as the stream lasts.
// The application calls `start` with a function that wakes its writer, then `take`s what is
// ready whenever woken; `stop` when the client went away.
//
// Example:
//
//   mcp::http_endpoint mcp_at(server, {.path = "/mcp", .allowed_origins = {...}});
//   // in the application's request handler, for target "/mcp":
//   auto res = mcp_at.handle(mcp::http_request_view{.method = "POST", .target = "/mcp",
//                                                   .headers = headers}, body);
//   mcp::async_write_response(socket, std::move(res), keep_alive, on_written);  // mcp/beast.hpp
#pragma once

#include <mcp/detail/unique_function.hpp>
#include <mcp/http_server.hpp>
#include <mcp/server.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcp {

/// The body of an endpoint response that comes later. Thread-safety: `start`, `take` and `stop`
/// are called by the application's writer, one at a time; the wake function runs on any thread.
class http_body_stream {
 public:
  /// What the body turned out to be: not yet known, one JSON answer, or server-sent events.
  enum class kind { pending, json, sse };
  /// What `take` hands over.
  struct chunk {
    kind what = kind::pending;  ///< the body's kind; `pending`: nothing to write yet
    /// json: the whole body (write it as a response with Content-Type application/json);
    /// sse: whole events, to write as they are (after a head with Content-Type
    /// text/event-stream, the first time).
    std::string bytes;
    bool finished = false;    ///< nothing more comes: end the response
    unsigned status = 200;    ///< json: the response's status
    bool disconnect = false;  ///< end the response and the connection (the client resumes)
  };

  virtual ~http_body_stream() = default;
  /// Starts: `wake` is called (any thread, no lock held, possibly before `start` returns)
  /// whenever `take` may have more. Once.
  virtual void start(unique_function<void()> wake) = 0;
  /// What is ready now. `what` stays `pending` until the body's kind is known.
  virtual chunk take() = 0;
  /// The writer goes away (the client closed, or the application ends the response): a
  /// resumable stream keeps recording events for a later GET with Last-Event-ID; `wake` is not
  /// called any more once this returns. Idempotent; the destructor calls it.
  virtual void stop() = 0;
};

/// One response of the endpoint.
struct http_endpoint_response {
  unsigned status = 200;  ///< the HTTP status
  /// Headers besides Content-Type and Content-Length (Mcp-Session-Id, CORS, WWW-Authenticate,
  /// Allow, ...).
  std::vector<std::pair<std::string, std::string>> headers;
  std::string content_type;  ///< of `body`; empty when there is none
  std::string body;          ///< the whole body, when `stream` is not set
  /// Set: the body comes from here (the status is 200 and `body` is empty).
  std::unique_ptr<http_body_stream> stream;
};

/// Serves an `mcp::server` inside the application's HTTP server.
///
/// Thread-safety: `handle` may be called from any number of threads at once.
class http_endpoint {
 public:
  /// `srv` must outlive this object. From `opts`, the endpoint uses what concerns requests:
  /// `path`, `stateless`, `response_mode`, `allow_get_stream`, `allow_delete`, sessions and
  /// their timeout, `max_sse_streams`, `max_body_bytes` (the body given to `handle`), SSE
  /// settings, `events`/`resumable`, `allowed_origins`, `allowed_hosts`, `authenticate`,
  /// `protected_resource`; `host` says where the application listens (a loopback address turns
  /// on the DNS-rebinding check of `Host`). Binding, threads and socket timeouts are the
  /// application's. Throws `std::invalid_argument` as `http_server`'s constructor does.
  explicit http_endpoint(server& srv, http_server_options opts = {});
  ~http_endpoint();  ///< ends every session (running calls are cancelled)
  http_endpoint(const http_endpoint&) = delete;
  http_endpoint& operator=(const http_endpoint&) = delete;

  /// Handles one request: its method, target, headers and body (views valid during the call).
  /// A target that is neither the MCP path nor an OAuth metadata path gets 404. Never throws
  /// (an internal failure is a 500).
  [[nodiscard]] http_endpoint_response handle(const http_request_view& request,
                                              std::string_view body);

  /// Live sessions (stateful mode).
  [[nodiscard]] std::size_t session_count() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace mcp
