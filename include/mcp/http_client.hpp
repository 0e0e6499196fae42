// File: mcp/http_client.hpp
//
// The Streamable HTTP transport (MCP 2025-11-25 basic/transports), client side, target
// `mcp::http`, over HTTP or HTTPS: `http_client_connection`, an `mcp::connection` that POSTs what a
// `client_session` sends and feeds the JSON or SSE answers back into it (session header,
// protocol version header, resumption after a dropped stream, 404 = session gone, kept-alive
// connections). It needs nothing of the server API.
//
// `connect_http` gives a ready `client_session`: connected, initialized, with the server's
// event stream open (as `launch_server` of mcp/transport/process.hpp does for a child process).
//
// Example:
//
//   auto server = mcp::connect_http({.url = "http://127.0.0.1:8080/mcp"},
//                                   {.info = {.name = "demo", .version = "1"}});
//   if (!server) { std::cerr << server.error().message << "\n"; return 2; }
//   auto tools = server->client->list_tools();
//   server->client->close();  // also ends the HTTP session (DELETE)
//
//   // By hand, the wiring connect_http does:
//   auto conn = mcp::make_http_client_connection({.url = "http://127.0.0.1:8080/mcp"}).value();
//   mcp::client_session client(conn);
//   conn->on_receive([&client](std::string_view m) { client.receive(m); });
//   client.initialize();
//   auto r = client.call_tool("echo", {{"text", "hi"}});
#pragma once

#include <mcp/client.hpp>
#include <mcp/transport.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcp {

/// Reads a header of an HTTP answer: its value, empty when absent.
using http_header_reader = std::function<std::string(std::string_view name)>;
/// Header names and values, in order.
using http_header_list = std::vector<std::pair<std::string, std::string>>;

/// Supplies the `Authorization` header of a client's HTTP requests and answers a server's
/// refusal: `auth::oauth_client` (mcp/oauth.hpp) is one, doing OAuth 2.1 as MCP's authorization
/// asks; a fixed token needs none (put it in `http_client_options::headers`).
///
/// Thread-safety: called from any of the connection's threads, also at once.
class http_authorizer {
 public:
  virtual ~http_authorizer() = default;
  /// The header's value for the next request (e.g. "Bearer abc"); empty: none.
  virtual std::string authorization() = 0;
  /// The headers authorizing the next request, of HTTP `method` to `url`. By default
  /// `Authorization: authorization()` (none when that is empty); an authorizer whose tokens are
  /// bound to a key adds its proof here (DPoP, RFC 9449: a `DPoP` header per request). Values
  /// must not contain CR or LF. Must not throw.
  virtual std::vector<std::pair<std::string, std::string>> request_headers(std::string_view method,
                                                                           std::string_view url) {
    (void)method;
    (void)url;
    auto value = authorization();
    if (value.empty()) return {};
    return {{"Authorization", std::move(value)}};
  }
  /// Every answer to an authorized request, before `refused` sees a refusal: its status and its
  /// headers (e.g. a `DPoP-Nonce` to use from now on). Default: nothing. Must not throw.
  virtual void answered(int status, const http_header_reader& header) {
    (void)status;
    (void)header;
  }
  /// The server answered 401, or 403 with a `WWW-Authenticate` challenge (`challenge`, empty
  /// when absent), to a request sent with `sent` as its Authorization value (empty: none). May
  /// block while a token is obtained (this request's thread waits). Returns true to send the
  /// request again with the new `authorization()`, false to fail it with the server's answer. Must
  /// not throw.
  virtual bool refused(int status, std::string_view challenge, std::string_view sent) = 0;
  /// Why the last `refused` returned false, for the failed request's error message (empty: the
  /// server's answer says it all).
  [[nodiscard]] virtual std::string refusal_reason() const { return {}; }
};

/// Where an HTTP client connects, and its limits, timeouts and authorization.
struct http_client_options {
  std::string url = "http://127.0.0.1:8080/mcp";  ///< http:// or https://
  /// https: trust these PEM certificates instead of the system's (the server's certificate is
  /// always checked, and must be valid for the URL's host).
  std::string ca_file{};
  std::vector<std::pair<std::string, std::string>> headers{};  ///< extra (e.g. Authorization)
  /// A new connection: host name lookup, TCP connect and TLS handshake, all within it.
  std::chrono::milliseconds connect_timeout{5000};
  /// Longest silence while reading an answer (SSE streams included).
  std::chrono::milliseconds read_timeout{60000};
  /// Reconnections of a dropped SSE stream in a row that bring no new event.
  std::size_t max_resume_attempts = 5;
  /// A kept-alive connection idle for longer than this, or than the server's advertised
  /// `Keep-Alive: timeout` less one second, is closed rather than reused, so that a request is
  /// never written to a connection the server is closing.
  std::chrono::milliseconds pool_idle_timeout{30000};
  /// Authorizes each request and answers 401/403 (e.g. `auth::oauth_client`); null: none.
  std::shared_ptr<http_authorizer> authorizer{};
};

class http_client_connection;
/// A Streamable HTTP connection to `opts.url` (nothing is sent before the first `send`).
/// Thread-safety: may be called from any thread. Errors: `errc::invalid_params` for a URL that
/// is not http(s) or whose port is not a number from 1 to 65535, and for a `ca_file` that
/// cannot be read (the message says which).
[[nodiscard]] result<std::shared_ptr<http_client_connection>> make_http_client_connection(
    http_client_options opts);

/// A client transport: each `send` is one POST; answers, whether JSON or SSE, are handed to
/// the receiver installed with `on_receive`, in order per stream. A request whose sender waits
/// for it (`send_context::sender_waits`: a blocking `client_session` call) runs on the
/// sender's thread when a kept-alive connection is ready and there is no `authorizer`; its
/// receiver calls then happen on that thread, inside the call. Other requests run on worker
/// threads kept for the next ones. A timeout, a cancellation or `close` ends a request's
/// exchange at once wherever it runs.
///
/// With an `authorizer`, a request refused with 401 (or 403 and a challenge) is sent again when
/// the authorizer obtained a new token, at most 3 times.
///
/// Errors: an HTTP error answer to a request is delivered as a JSON-RPC error response for that
/// request (the server's JSON-RPC error when the body holds one, else code -32000 with the
/// status); no HTTP answer at all (the server cannot be reached, the connection was reset, the
/// answer was cut short or its stream ended before the response) as `errc::connection_closed`
/// with the reason ("HTTP request failed: Connection refused"). A 404 while holding a session id
/// marks the session expired (`session_expired()`): open a new connection and initialize again.
///
/// Thread-safety: every member may be called from any thread.
class http_client_connection final : public connection,
                                     public std::enable_shared_from_this<http_client_connection> {
 public:
  /// Made by `make_http_client_connection`.
  friend result<std::shared_ptr<http_client_connection>> make_http_client_connection(
      http_client_options opts);
  ~http_client_connection() override;

  /// Installs where received message texts go (any thread). Set it before the first send.
  void on_receive(std::function<void(std::string_view)> receiver);

  /// A request (`ctx.request` set) is POSTed on a thread of its own and its answer delivered;
  /// anything else is POSTed at once (202 expected). `ctx.headers` go with the POST.
  void send(std::string message, const send_context& ctx) override;
  /// Kept and sent as `MCP-Protocol-Version` on every later request (empty: none).
  void set_protocol_version(std::string_view version) override;
  /// Sends DELETE for the session (when there is one), stops the streams, joins the threads.
  void close() override;
  /// tcp, http 1.1, the session id, the server's host and port.
  [[nodiscard]] connection_facts facts() const override;

  /// Opens the standalone GET stream (after initialize), resuming it when it drops. Returns the
  /// HTTP status of the first attempt (200, or 405 when the server offers none).
  int open_event_stream();
  /// Opens the standalone GET stream as `open_event_stream` does, on a worker thread: returns
  /// at once, and no request waits for the server's answer to the GET (a server that holds back
  /// its headers delays nothing). How it went is not reported (a server without one says 405).
  void open_event_stream_in_background();

  /// The `MCP-Session-Id` received on initialize (empty: none).
  [[nodiscard]] std::string session_id() const;
  /// The negotiated protocol version, sent as `MCP-Protocol-Version` (the client session sets
  /// it from the InitializeResult).
  [[nodiscard]] std::string protocol_version() const;
  /// True after the server answered 404 to our session id.
  [[nodiscard]] bool session_expired() const;
  /// Number of times an SSE stream was resumed with Last-Event-ID.
  [[nodiscard]] std::size_t resumptions() const;
  /// Number of TCP connections opened so far. Connections are kept alive and reused: one that
  /// carried a complete plain answer serves later requests (up to 4 are kept idle).
  [[nodiscard]] std::size_t connections_opened() const;

 private:
  explicit http_client_connection(http_client_options opts);
  struct impl;
  std::shared_ptr<impl> impl_;
};

/// A client session connected over Streamable HTTP (see `connect_http`).
struct http_server_link {
  std::shared_ptr<http_client_connection> connection;  ///< the transport (close it to end)
  std::shared_ptr<client_session> client;              ///< initialized, its event stream open
};

/// Connects a `client_session` (options `client`) to the server at `http.url`, initializes it
/// (`init` applies to the initialize request: a longer timeout while a person authorizes, say)
/// (negotiating the revision as `client.negotiate` says) and, in the old era, starts opening the
/// server's event stream in the background (its requests and notifications outside a call's
/// answer; nothing waits for its answer; a server that offers none, 405, is fine; 2026-07-28
/// has none). Closing the session closes the connection.
/// Thread-safety: may be called from any thread; the session is as `client_session` says.
/// Errors: `errc::invalid_params` for a URL `make_http_client_connection` refuses or an
/// unreadable `ca_file`; the initialize error (the connection is closed), its message prefixed
/// with the URL.
[[nodiscard]] result<http_server_link> connect_http(http_client_options http,
                                                    client_options client = {},
                                                    const request_options& init = {});

}  // namespace mcp
