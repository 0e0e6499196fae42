// File: mcp/transport.hpp
//
// The seam between sessions and transports. A session is sans-I/O: whoever owns the I/O pushes
// each received message text into `session::receive()`, and the session writes whole messages
// out through the `connection` it was opened with. Transports never see tools or methods.
//
// `send_context::related_request` names the incoming request a message belongs to (its
// response, its progress and log notifications, requests made while serving it). Streamable
// HTTP routes by it, putting such messages on that request's stream; stdio and the in-memory
// pair ignore it.
//
// Example (a transport that prints what the session sends):
//
//   struct print_connection final : mcp::connection {
//     void send(std::string msg, const mcp::send_context&) override { std::puts(msg.c_str()); }
//     void close() override {}
//   };
#pragma once

#include <mcp/jsonrpc.hpp>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcp {

/// Why a message is sent, for transports that route (Streamable HTTP).
struct send_context {
  /// The incoming request this message belongs to; null for standalone messages.
  const jsonrpc::request_id* related_request = nullptr;
  /// True when the message is the final response to `related_request`.
  bool is_final_response = false;
  /// Set when the message is a request this side sends: its id (transports that wait for the
  /// answer on the request's own exchange, like Streamable HTTP's client, need it).
  const jsonrpc::request_id* request = nullptr;
  /// True when the sender of request `request` blocks until its answer anyway: a transport may
  /// then carry the whole exchange on the calling thread (no hand-off to another thread), so
  /// long as a `notifications/cancelled` for the request, sent through this connection from
  /// another thread, or `close` ends that exchange promptly.
  bool sender_waits = false;
  /// Set when the message is a `notifications/cancelled` this side sends: the request it gives
  /// up (a transport that carries each request on an exchange of its own ends that exchange).
  const jsonrpc::request_id* cancels = nullptr;
  /// Headers that describe the message, for transports that carry headers (Streamable HTTP in
  /// 2026-07-28: `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`, values already encoded); others ignore
  /// them. Null: none. Valid only during the `send` call.
  const std::vector<std::pair<std::string, std::string>>* headers = nullptr;
  /// True for a standalone message that every process of a service sharing state
  /// (`server_options::shared`) sends to its own clients (list_changed, resources/updated): a
  /// transport that forwards standalone messages to the process that can deliver them leaves
  /// this one where it is (it would arrive twice).
  bool everywhere = false;
  /// True when that final response is known to be a result, not an error: a transport that
  /// gives an answer a status by its error code (Streamable HTTP in 2026-07-28) need not read
  /// the message for it. False: not known (read the message where it matters).
  bool is_result = false;
};

/// What a connection tells observation (mcp/observe.hpp) about itself. Plain value.
struct connection_facts {
  std::string_view network_transport{};  ///< "pipe" (stdio, a child process), "tcp" (HTTP)
  std::string_view protocol_name{};      ///< "http" over HTTP; empty for stdio
  std::string_view protocol_version{};   ///< "1.1"
  std::string session_id{};              ///< the MCP session id (Streamable HTTP up to 2025-11-25)
  /// The other end's IP address: the server's on a client's connection, the client's on a
  /// server's (over HTTP: of the TCP connection that opened the session); empty: unknown.
  std::string peer_address{};
  std::uint16_t peer_port = 0;  ///< with `peer_address`; 0: unknown
};

/// Where a session writes. Implemented by transports.
///
/// Thread-safety: `send` may be called from several threads at once; each call writes one whole
/// message, never interleaved with another. `send` must not call back into the session
/// synchronously while holding transport locks. After `close`, sends are dropped.
class connection {
 public:
  virtual ~connection() = default;
  /// Sends one serialized JSON-RPC message (no trailing newline). Never throws.
  virtual void send(std::string message, const send_context& ctx) = 0;
  /// Closes the connection; the peer sees end of stream. Idempotent.
  virtual void close() = 0;
  /// Ends the network connection that carries the answer stream of `request` while the request
  /// keeps running; the client reconnects and receives what follows (SSE polling, Streamable
  /// HTTP). False when the transport has no such stream to resume (stdio, a plain JSON answer,
  /// a stream without event ids). Never throws.
  virtual bool close_request_stream(const jsonrpc::request_id& request) {
    (void)request;
    return false;
  }
  /// True when a message related to no request reaches the peer now. Streamable HTTP: only
  /// while the session has a GET stream (else such messages are dropped); stdio and memory
  /// connections: always. A server uses it to hold a task's request to the client until a
  /// tasks/result can carry it. Never throws.
  [[nodiscard]] virtual bool delivers_unrelated() const { return true; }
  /// Tells the transport the protocol version the session negotiated (a client learns it from
  /// the InitializeResult). Transports that send it with every message (Streamable HTTP's
  /// `MCP-Protocol-Version`) keep it; others ignore it. Never throws.
  virtual void set_protocol_version(std::string_view version) { (void)version; }
  /// What observation reports of the connection (OpenTelemetry's network, peer and session
  /// attributes); everything empty by default. Never throws (but std::bad_alloc).
  [[nodiscard]] virtual connection_facts facts() const { return {}; }
};

/// Who is calling: every request carries one, from the transport (stdio: "local").
/// Policies (access control, rate limits), tasks and HTTP sessions are keyed by it.
struct principal {
  std::string subject = "local";  ///< stable identity, e.g. a token subject or "local"
  json::object claims{};          ///< verified attributes (a token's claims, a tenant, ...)
  /// Who vouched for `subject` (a token's `iss`); empty when the transport itself did.
  std::string issuer{};
  /// The OAuth client the caller's token was issued to (`client_id` or `azp`), when known.
  std::string client_id{};
  /// The OAuth scopes granted to the caller. nullopt: the transport does not use scopes
  /// (stdio, an authenticator that sets none), and tools' scope requirements do not apply.
  std::optional<std::vector<std::string>> scopes{};

  /// True when `scopes` is unset or holds `scope`.
  [[nodiscard]] bool has_scope(std::string_view scope) const {
    return !scopes || std::find(scopes->begin(), scopes->end(), scope) != scopes->end();
  }
  /// "issuer subject" (or just the subject when there is no issuer): two callers are the same
  /// exactly when their keys are equal.
  [[nodiscard]] std::string key() const {
    return issuer.empty() ? subject : issuer + " " + subject;
  }
};

}  // namespace mcp
