// File: mcp/http_server.hpp
//
// The Streamable HTTP transport (MCP 2025-11-25 basic/transports), server side, target
// `mcp::http`. Defines:
//
//   - `http_server`: serves an `mcp::server` on one endpoint (default `/mcp`) with Boost.Beast:
//     POST (one JSON-RPC message, or a batch when 2025-03-26 was negotiated) answered with
//     `application/json` or an SSE stream, GET (the standalone server-to-client stream, and
//     resumption with `Last-Event-ID`), DELETE (ends a session). Stateful (`MCP-Session-Id`) or
//     stateless. Validates `Origin`, `Host`, `Accept`, `Content-Type`, `MCP-Protocol-Version`;
//     optional OAuth 2.1 protected resource (bearer tokens, RFC 9728 metadata, scope step-up)
//     or a custom authenticator; limits on body size, header/body read time, sessions and
//     streams.
//   - `event_store` and `make_memory_event_store`: where SSE events are kept for resumption.
//
// The client side is mcp/http_client.hpp.
//
// The server runs its own I/O threads (`io_threads`), or on an io_context the application gives
// it and runs (beside the application's own sockets and timers). To answer MCP requests inside
// an HTTP server of the application's, mount an `http_endpoint` (mcp/http_endpoint.hpp) instead.
//
// Example:
//
//   mcp::server server({.info = {.name = "demo", .version = "1.0"}});
//   // ... add tools ...
//   mcp::http_server http(server, {.port = 8080, .handle_signals = true});
//   return http.serve();   // until SIGINT/SIGTERM; http://127.0.0.1:8080/mcp
//
//   boost::asio::io_context io;                       // or on the application's loop
//   mcp::http_server on_app(server, io, {.port = 8081});
//   if (auto started = on_app.start(); !started) return 1;  // started.error().message says why
//   io.run();
#pragma once

#include <mcp/server.hpp>
#include <mcp/transport.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

namespace boost::asio {
class io_context;
}

namespace mcp {

// ---------------------------------------------------------------------------------------------
// Event store (resumability)

/// One stored SSE event of a stream: its sequence number within the stream and its data (one
/// serialized JSON-RPC message).
struct stored_event {
  std::uint64_t seq = 0;  ///< 1, 2, 3... within the stream
  std::string data;       ///< one serialized JSON-RPC message
};

/// Keeps the events of resumable SSE streams so that a client that lost its connection can ask
/// for the rest (GET with `Last-Event-ID`). Streams are keyed by (session id, stream number);
/// replay is always bound to the session the stream belongs to.
///
/// Thread-safety: implementations must be thread-safe; the server calls them from I/O threads
/// and from tool handler threads. Methods must not throw.
class event_store {
 public:
  virtual ~event_store() = default;
  /// Records event `seq` (1, 2, 3... per stream) of stream `stream` of session `session`.
  virtual void append(std::string_view session, std::uint64_t stream, std::uint64_t seq,
                      std::string_view data) = 0;
  /// The events of that stream after `after_seq`, oldest first; nullopt when the stream is
  /// unknown or events after `after_seq` were already evicted (replay would lose messages).
  [[nodiscard]] virtual std::optional<std::vector<stored_event>> events_after(
      std::string_view session, std::uint64_t stream, std::uint64_t after_seq) = 0;
  /// Forgets every stream of a session (called when the session ends).
  virtual void erase_session(std::string_view session) = 0;
};

/// Bounds of the in-memory event store.
struct memory_event_store_limits {
  std::size_t max_bytes = std::size_t{8} << 20U;  ///< all streams; oldest streams evicted first
  std::size_t max_events_per_stream = 1024;       ///< older events of a stream are dropped
};

/// An in-memory, bounded event store.
[[nodiscard]] std::shared_ptr<event_store> make_memory_event_store(
    memory_event_store_limits limits = {});

// ---------------------------------------------------------------------------------------------
// Server

/// A request header: name as received, value.
using http_header = std::pair<std::string_view, std::string_view>;

/// An HTTP request as the transport sees it (for authenticators). Views into the request: valid
/// only during the call.
struct http_request_view {
  std::string_view method;                 ///< "GET", "POST", ...
  std::string_view target;                 ///< path and query
  std::span<const http_header> headers{};  ///< every header of the request, as name and value
  /// The first value of header `name` (case-insensitive), or empty.
  [[nodiscard]] std::string_view header(std::string_view name) const;
};

/// Decides who is calling. Return nullopt to refuse with 401. Runs on an I/O thread for every
/// request, so it must be fast and thread-safe.
using http_authenticator = std::function<std::optional<principal>(const http_request_view&)>;

/// What a bearer token verifier decides: the caller, or why the token is refused. The reason
/// goes to the (unauthenticated) client: say what is wrong with the token, not how the server
/// is set up. A principal whose `scopes` is unset is taken as having no scopes.
struct token_verdict {
  std::optional<principal> who{};  ///< set: the token is valid and names this caller
  std::string reason{};            ///< unset `who`: why (sent as `error_description`)
};

/// Checks one bearer token (the text after `Bearer `). Runs on an I/O thread for every request:
/// it must be fast (cache what it can) and thread-safe. An exception refuses the token.
/// mcp/auth.hpp has a JWT verifier (`auth::jwt_verifier`); any other check (RFC 7662
/// introspection, an opaque token table) fits here too.
using token_verifier = std::function<token_verdict(std::string_view token)>;

/// The server as an OAuth 2.1 protected resource (MCP 2025-11-25 authorization, RFC 9728):
/// every request needs `Authorization: Bearer <token>` that `verify` accepts.
///   - No bearer token (no `Authorization`, or another scheme), or one `verify` refuses: 401
///     with `WWW-Authenticate: Bearer resource_metadata="…", scope="…"` (plus
///     `error="invalid_token"` and the reason when a bearer token was refused).
///   - A valid token without `required_scopes`, or a tools/call of a tool whose
///     `tool_spec::scopes` it lacks: 403 with `error="insufficient_scope"` and the scopes to ask
///     for (step-up).
///   - The Protected Resource Metadata document is served, without a token, at
///     `/.well-known/oauth-protected-resource<path>` and `/.well-known/oauth-protected-resource`.
struct protected_resource_options {
  /// This server's canonical URI, e.g. "https://mcp.example.com/mcp": the metadata's `resource`,
  /// the audience tokens must be issued for (RFC 8707), and the origin of `resource_metadata`.
  std::string resource{};
  /// Issuer URLs of the authorization servers clients may get tokens from (at least one).
  std::vector<std::string> authorization_servers{};
  std::vector<std::string> scopes_supported{};  ///< listed in the metadata
  std::vector<std::string> required_scopes{};   ///< every request needs these
  token_verifier verify{};                      ///< required
  /// More members of the metadata document (e.g. "resource_name", "resource_documentation").
  json::object metadata{};
};

/// How answers to POSTed requests are sent.
enum class http_response_mode {
  /// `application/json` when the response is the first thing the server sends for the request;
  /// SSE as soon as anything else (progress, logs, server requests) comes first.
  json_when_possible,
  /// Always an SSE stream.
  always_sse,
};

/// TLS on the server's listener (OpenSSL; TLS 1.2 and 1.3).
struct tls_options {
  std::string certificate_chain_file{};  ///< PEM: the server's certificate, then intermediates
  std::string private_key_file{};        ///< PEM
};

/// What an `http_server` listens on, and its modes, limits and timeouts.
struct http_server_options {
  std::string host = "127.0.0.1";  ///< address to bind (an IP literal or "localhost")
  std::uint16_t port = 0;          ///< 0: an ephemeral port, see `http_server::port()`
  std::string path = "/mcp";       ///< the one endpoint
  std::size_t io_threads = 1;      ///< threads running Asio (not on the application's io_context)
  /// `serve()` also returns on SIGINT or SIGTERM (Asio's signal_set catches them from `start`
  /// on, when the server runs its own threads, so that one sent as soon as the server says it
  /// listens is a clean stop; on the application's io_context from `serve`). For `serve()`
  /// only: with `start()` alone a caught signal stops nothing. Off: signals are left alone.
  bool handle_signals = false;

  bool stateless = false;  ///< no session ids; every POST is self-contained; GET/DELETE get 405
  /// How answers to POSTed requests are sent.
  http_response_mode response_mode = http_response_mode::json_when_possible;
  bool allow_get_stream = true;  ///< the standalone SSE stream (GET); 405 when false
  bool allow_delete = true;      ///< client termination (DELETE); 405 when false

  /// A session with no request for this long, none running and no stream listened to is
  /// ended (its id then gets 404).
  std::chrono::milliseconds session_idle_timeout{std::chrono::minutes(30)};
  std::size_t max_sessions = 10000;  ///< further initialize requests get 503
  /// Open SSE responses: beyond it, GET streams (and POSTs in always_sse mode) get 503.
  std::size_t max_sse_streams = 10000;
  std::size_t max_body_bytes = std::size_t{4} << 20U;  ///< larger POST bodies get 413
  /// Larger headers get 431; so do a chunked body's trailer and each chunk-size line.
  std::size_t max_header_bytes = 16384;
  std::chrono::milliseconds header_timeout{30000};  ///< from a request's first byte to its header
  /// How long a kept-alive connection may wait for the first byte of its next request before
  /// the server closes it. Longer than HTTP clients keep idle pooled connections (Go 90 s,
  /// Node.js and Python clients 4-15 s), so that a client does not reuse a connection the
  /// server is closing; the response says so in `Keep-Alive: timeout=N`.
  std::chrono::milliseconds keep_alive_timeout{std::chrono::seconds(120)};
  std::chrono::milliseconds body_timeout{30000};   ///< to read a request's body
  std::chrono::milliseconds write_timeout{30000};  ///< to write one response or SSE event

  /// SSE `retry` sent to clients (2025-11-25) before the server closes a stream's connection.
  std::chrono::milliseconds sse_retry{1000};
  /// Close an SSE connection (not the stream) after this many message events; the client
  /// resumes with GET + Last-Event-ID. 0: never (keep the connection until the stream ends).
  std::size_t sse_close_after_events = 0;
  /// Where SSE events are kept for resumption (stateful mode only). Default: an in-memory
  /// store with default limits. Set `resumable = false` to keep nothing.
  std::shared_ptr<event_store> events{};
  bool resumable = true;  ///< keep SSE events so a client may resume with Last-Event-ID

  /// Allowed `Origin` values (exact, e.g. "http://localhost:6274"). A present Origin that is
  /// neither listed nor (when bound to loopback) a loopback origin gets 403. Listed origins
  /// also get CORS headers; nothing gets `*`.
  std::vector<std::string> allowed_origins{};
  /// Allowed `Host` names (without port). Empty: when bound to a loopback address, only
  /// localhost, 127.0.0.1 and [::1] (DNS rebinding defence, 421 otherwise); no check otherwise.
  std::vector<std::string> allowed_hosts{};

  /// Who is calling; unset: everyone is principal{"local"}. nullopt → 401 with
  /// `WWW-Authenticate: Bearer`. Runs on every request (sessions are never authentication); the
  /// principal reaches the session (`session_options::who`, `tool_context::caller()`), and a
  /// session answers only the subject that opened it (others get 404).
  http_authenticator authenticate{};
  /// Serve HTTPS: every connection starts with a TLS handshake (within `header_timeout`). The
  /// `http_server` constructor throws `std::invalid_argument` when the files cannot be used.
  std::optional<tls_options> tls{};
  /// OAuth 2.1 bearer tokens (see `protected_resource_options`). Set this or `authenticate`,
  /// not both. The `http_server` constructor throws `std::invalid_argument` on both, or on
  /// options the gate refuses (a relative `resource`, no authorization server, no `verify`).
  std::optional<protected_resource_options> protected_resource{};
};

/// Sets `opts.host` and `opts.port` from "HOST:PORT" as a command line gives it
/// ("127.0.0.1:8080", "localhost:0", "[::1]:8080" for IPv6). Returns false and leaves `opts`
/// unchanged when `address` has no host, no port, or a port that is not a number from 0 to
/// 65535. Never throws; touches only `opts`.
[[nodiscard]] bool set_listen_address(http_server_options& opts, std::string_view address);

/// Opens the session of a new client for an `http_server` whose sessions are not an
/// `mcp::server`'s: a proxy (`mcp-cpp bridge --listen` gives each client a child process of its
/// own). `conn` is where the session writes; `opts.who` is the caller. The session receives the
/// client's messages (`server_session::receive`), each request's answer sent with
/// `send_context::related_request` naming it. Called on an I/O thread; must not block for long.
/// Returning null refuses the client (503).
using session_opener = std::function<std::shared_ptr<server_session>(
    std::shared_ptr<connection> conn, const session_options& opts)>;

/// Serves an `mcp::server` over Streamable HTTP.
///
/// Thread-safety: `start`, `stop`, `port` and the counters may be called from any thread.
/// Handlers never run on the I/O threads unless their tool is `run_inline`.
class http_server {
 public:
  /// Binds nothing yet; runs `opts.io_threads` threads of its own once started. `srv` must
  /// outlive this object. Throws `std::invalid_argument` on inconsistent `protected_resource`
  /// options.
  http_server(server& srv, http_server_options opts = {});
  /// The same on the application's `io`: no threads of its own (`io_threads` is ignored); its
  /// handlers run on a strand of `io`, on whichever threads run it. `io` must outlive `srv`'s
  /// sessions (answers are posted to it) and keep running while the server serves.
  http_server(server& srv, boost::asio::io_context& io, http_server_options opts = {});
  /// Serves the sessions `open` makes (see `session_opener`); each received message is parsed
  /// within `limits`. Stateful only: throws `std::invalid_argument` with `opts.stateless`. With
  /// `protected_resource`, every request needs `required_scopes` (no tool's scopes are known).
  http_server(session_opener open, http_server_options opts, json_limits limits = {});
  ~http_server();  ///< stops
  http_server(const http_server&) = delete;
  http_server& operator=(const http_server&) = delete;

  /// Binds and starts the I/O threads. Errors: `errc::invalid_params` when the host is not an
  /// IP address, `errc::connection_closed` when the address cannot be bound ("cannot listen on
  /// HOST:PORT: <reason>"); the server may then be started again. Throws `std::logic_error`
  /// only when already started (a programmer error).
  [[nodiscard]] result<void> start();
  /// Closes the listener, every connection and every session (running calls are cancelled);
  /// joins the I/O threads. Idempotent. Not from an I/O thread of the server's own (a handler of
  /// a `run_inline` tool). On the application's io_context: from a thread that does not run it,
  /// returns once the closes have run there (at once, run here, if it is stopped); on a thread
  /// that runs it (a tool handler on `make_asio_executor`, a `signal_set` handler), closes the
  /// sessions, posts the other closes and returns without waiting: they run when the io_context
  /// next runs handlers, the server's state living until they have (this object may go first).
  /// Then the server holds no work there: a `run()` with nothing else to do returns. After a
  /// `start` that failed, there is nothing to close.
  void stop();
  /// `start` (unless started already), then blocks until `stop`, `stop_token` is requested or,
  /// with `handle_signals`, SIGINT or SIGTERM; then stops. Returns 0 (or 1 when binding failed,
  /// after printing why on stderr). Not on a thread that runs the server's io_context.
  int serve(std::stop_token stop_token = {});
  /// Blocks until `stop` was called.
  void wait();

  /// The bound port (after `start`).
  [[nodiscard]] std::uint16_t port() const;
  /// "http://HOST:PORT/PATH", or "https://…" with TLS (after `start`).
  [[nodiscard]] std::string url() const;
  /// Live sessions (stateful mode).
  [[nodiscard]] std::size_t session_count() const;
  /// Open SSE responses.
  [[nodiscard]] std::size_t sse_stream_count() const;

 private:
  void stop_server_and_signals();

  struct impl;
  std::shared_ptr<impl> impl_;  ///< shared with closes that `stop` posted without waiting
};

}  // namespace mcp
