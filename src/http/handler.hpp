// File: src/http/handler.hpp
//
// The Streamable HTTP protocol logic, sans-I/O: one parsed HTTP request in, one response out.
// The response is either complete (status, headers, body) or carries a `response_stream` whose
// output (a JSON body, or SSE events arriving later from session threads) the I/O layer writes.
// Everything the spec says about statuses, headers, sessions and resumption lives here; the
// Beast adapter (listener.cpp) only moves bytes.
#pragma once

#include <mcp/http_server.hpp>
#include <mcp/observe.hpp>

#include <boost/container/small_vector.hpp>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "detail/ascii.hpp"
#include "detail/call_scan.hpp"
#include "http/session.hpp"
#include "http/stream.hpp"

namespace mcp::http_detail {

/// What a 2026-07-28 request's stream callbacks share (handler_modern.cpp); kept with a spare
/// session for the next request, which reuses it when nothing else holds it.
struct request_record;

/// Where a TCP connection keeps the per-request session that served its last request, for its
/// next one (src/session_reuse.hpp). Owned by the connection, used only while it handles a
/// request (one at a time): no lock. What it keeps is closed when the connection ends.
struct spare_slot {
  spare_slot() = default;
  spare_slot(const spare_slot&) = delete;
  spare_slot& operator=(const spare_slot&) = delete;
  ~spare_slot();
  std::string version;  ///< the revision the kept session serves
  std::shared_ptr<routing_connection> conn;
  std::shared_ptr<server_session> session;  ///< null: none kept
  std::shared_ptr<request_record> record;   ///< null: none kept
  /// The handler's count of connections keeping a session, once this one is counted.
  std::shared_ptr<std::atomic<std::size_t>> counted;
};

/// A parsed request: what an authenticator sees, and the body. The views point into the I/O
/// layer's request reader and stay valid during `handle`.
struct http_request : http_request_view {
  std::string_view body;
  std::string_view peer_address{};  ///< the client's IP address (its TCP peer); empty: unknown
  std::uint16_t peer_port = 0;      ///< the client's port; 0: unknown
  spare_slot* slot = nullptr;       ///< the connection's; null: spares kept by the handler
};

/// Response headers besides Content-Type.
using headers = std::vector<std::pair<std::string, std::string>>;

struct http_response {
  unsigned status = 200;
  http_detail::headers headers;        ///< besides Content-Type
  const char* content_type = nullptr;  ///< plain responses: a literal, or none
  std::string body;                    ///< plain responses
  /// Non-null: the body is this stream's output (JSON, or SSE with status 200).
  std::shared_ptr<response_stream> stream;
  /// Adds `X-Accel-Buffering: no` (a proxy must not hold the answer back), written as a
  /// literal: every 2026-07-28 response has it, and nothing is allocated for it.
  bool unbuffered = false;
};

/// A POST body decoded once: its messages (handed to the session as they are), the ids of the
/// requests among them (they need answers) and the initialize request, if any. A POST usually
/// carries one message: it fits in place, with no vector allocated.
struct post_body {
  bool batch = false;
  boost::container::small_vector<jsonrpc::message, 1> messages;
  boost::container::small_vector<jsonrpc::request_id, 1> requests;
  const jsonrpc::request* initialize = nullptr;
  /// The one request's `_meta` while it is still text (views into the request's body): a
  /// 2026-07-28 plain call served by a session of this process reads it so, anything else puts
  /// it in the request's `params` first (`put_meta`).
  detail::meta_text meta;
  void put_meta() {
    if (meta.whole.empty()) return;
    detail::put_meta_text(std::get<jsonrpc::request>(messages.front()).params, meta.whole);
    meta = {};
  }
};

class bearer_gate;

/// Where a handler's sessions come from: an `mcp::server` of this process, or a proxy's opener.
struct session_source {
  server* srv = nullptr;  ///< set: its sessions; the bearer gate asks it for tools' scopes
  session_opener open{};  ///< used when `srv` is null
  json_limits limits{};   ///< for parsing request bodies
  /// A new session on `conn`; null when the opener refused.
  [[nodiscard]] std::shared_ptr<server_session> open_session(std::shared_ptr<connection> conn,
                                                             session_options&& opts) const;
};

/// Fills in `opts.events` when it is unset and events are kept: the shared state's event store
/// (`server_options::shared` of `srv`, which may be null), else a new in-memory one.
void default_events(http_server_options& opts, const server* srv);

/// A random first stream number for a session kept in a shared state (see
/// `routing_connection::number_from`).
[[nodiscard]] std::uint64_t shared_stream_base();

class request_handler {
 public:
  /// `defer` runs work later on another thread (the I/O pool), never inline.
  /// Throws `std::invalid_argument` on inconsistent options (see http_server_options).
  request_handler(session_source source, http_server_options opts,
                  std::function<void(std::function<void()>)> defer);
  ~request_handler();
  request_handler(const request_handler&) = delete;
  request_handler& operator=(const request_handler&) = delete;

  /// Handles one request. Never throws. Thread-safe.
  http_response handle(const http_request& req);

  /// Whether the listener is bound to a loopback address (for the Host check); set once bound.
  void set_bound(bool loopback);

  /// Called by the I/O layer when an SSE response starts or ends (for the stream cap).
  void sse_opened() {
    sse_open_.fetch_add(1);
    if (observer_) observer_->on_stream(observe::kind::server, +1);
  }
  void sse_closed() {
    sse_open_.fetch_sub(1);
    if (observer_) observer_->on_stream(observe::kind::server, -1);
  }
  [[nodiscard]] std::size_t sse_open() const { return sse_open_.load(); }

  session_table& sessions() { return sessions_; }
  [[nodiscard]] const http_server_options& options() const { return opts_; }

 private:
  /// A per-request session (2026-07-28, or a stateless server's) and its connection, kept once
  /// the request is answered to serve the next one of the same revision from the same TCP
  /// connection (src/session_reuse.hpp): the peer address and port the session reports are that
  /// connection's.
  struct spare_session {
    std::string address{};
    std::uint16_t port = 0;
    std::string version{};  ///< the revision it serves (taken from a slot: empty, the slot's)
    std::shared_ptr<routing_connection> conn{};
    std::shared_ptr<server_session> session{};
    std::shared_ptr<request_record> record{};  ///< 2026-07-28: the last request's, if any
    spare_slot* slot = nullptr;                ///< kept there when set, else in `spares_`
  };
  struct post_target {
    std::shared_ptr<http_session> hs;          ///< stateful mode
    std::shared_ptr<routing_connection> conn;  ///< both modes
    std::shared_ptr<server_session> session;   ///< both modes
    std::string negotiated;
    std::optional<spare_session> spare;  ///< stateless: the key to keep them by (spares)
  };

  /// A POST of caller `who`, which a 2026-07-28 request's session takes over (moved from).
  http_response post(const http_request& req, principal& who, std::string_view version,
                     headers extra);
  // 2026-07-28 (handler_modern.cpp).
  /// Whether a POST is served in the per-request era: its `MCP-Protocol-Version` is such a
  /// revision, or its body names one in `_meta`.
  [[nodiscard]] static bool is_modern(std::string_view version, const post_body& body);
  /// The same, with the body's `_meta` put in its params unless the POST is a 2026-07-28 call to
  /// a session of this process (which reads it as text).
  [[nodiscard]] bool modern_post(std::string_view version, post_body& body) const;
  /// A 2026-07-28 POST: the headers checked against the body, then a session of its own (which
  /// takes `who` over).
  http_response post_modern(const http_request& req, principal&& who, std::string_view version,
                            headers extra, post_body& body);
  std::optional<http_response> decode_post(const http_request& req, post_body& body,
                                           const headers& extra) const;
  /// Whether callers are told apart (a protected resource or an authenticator).
  [[nodiscard]] bool authenticates() const { return gate_ || opts_.authenticate; }
  [[nodiscard]] std::string task_owner(const principal& who, std::string unauthenticated) const;
  std::optional<http_response> open_target(const http_request& req, const principal& who,
                                           std::string_view version, const post_body& body,
                                           post_target& t, const headers& extra);
  http_response get(const http_request& req, const principal& who, std::string_view version,
                    headers extra);
  http_response del(const http_request& req, const principal& who, headers extra);
  // The Host and Origin checks (host_checks.cpp). `name_allowed`: a host name without its port.
  [[nodiscard]] bool name_allowed(std::string_view name) const;
  [[nodiscard]] bool host_allowed(std::string_view host) const;
  [[nodiscard]] bool origin_allowed(std::string_view origin, bool& listed) const;
  std::shared_ptr<http_session> find_session(const http_request& req, const principal& who,
                                             http_response& error_out);
  // Sessions kept in `server_options::shared` (shared_sessions.cpp).
  /// Whether session `s`, found in this process, still lives in the shared state (another
  /// process may have ended it); it refreshes its record's lifetime. True when the shared state
  /// cannot answer (this process serves on).
  bool still_shared(const http_session& s);
  /// Opens this process's copy of session `sid`, which another process opened, from its shared
  /// record; null when there is none, or it belongs to another caller.
  std::shared_ptr<http_session> resume_shared(std::string_view sid, const http_request& req,
                                              const principal& who);
  // Messages between the processes (topic "http" of the shared state): a client's answers and
  // cancellations, which may belong to a request another process made, and standalone
  // messages for the process holding a session's GET stream.
  /// Starts hearing what the other processes forward (constructor).
  void listen_relay();
  /// Has `conn` (session `sid`'s copy here) forward the standalone messages it cannot deliver.
  void forward_from(routing_connection& conn, const std::string& sid);
  /// Forwards `body` (notifications and responses only, delivered here too) to the other
  /// processes when it holds an answer or a cancellation, which may be theirs.
  void forward_answers(const post_body& body, const http_request& req, const std::string& sid);
  /// Tells the other processes that this one holds session `sid`'s GET stream now (their
  /// copies then forward the standalone messages they make, a task's requests included).
  void announce_stream(std::string_view sid);
  /// A message another process forwarded.
  void on_relayed(std::string_view message);

  // Spare sessions (handler_modern.cpp).
  /// The spare kept for `req`'s TCP connection serving `version`, taken out; empty when none.
  std::optional<spare_session> take_spare(const http_request& req, std::string_view version);
  /// A spare to be for a new session serving `version` on `req`'s TCP connection.
  static spare_session new_spare(const http_request& req, std::string_view version);
  /// Keeps `s` for the next request if it is idle and nothing else holds it (a request still
  /// running, a task it became); else closes it. Kept in its connection's slot (not when
  /// `max_slots` connections keep one already), or else in `spares_`, where the oldest ends
  /// when too many are kept.
  void keep_or_close(spare_session&& s);
  /// A stateless server's request (not an initialize) of revision `serves`: true when `t` is
  /// served by a spare, readied for caller `who`; else false, `t.spare` keyed to keep the new
  /// session by (with a server of this process).
  bool open_stateless(const http_request& req, const principal& who, std::string_view serves,
                      post_target& t);
  /// The stateless request of `t` is answered: its session is kept as a spare, or closed.
  void end_stateless(post_target& t);

  session_source source_;
  http_server_options opts_;
  std::function<void(std::function<void()>)> defer_;
  session_table sessions_;
  std::shared_ptr<shared_state> shared_;  ///< sessions are shared (stateful mode); or null
  std::atomic<std::size_t> sse_open_{0};
  std::shared_ptr<observe::observer> observer_;  ///< the server's (SSE streams); or null
  bool loopback_ = true;
  std::unique_ptr<bearer_gate> gate_;  ///< set with `protected_resource`
  std::mutex spares_mu_;
  std::vector<spare_session> spares_;  ///< guarded by spares_mu_, oldest first
  /// Connections whose slot keeps a session (or did: counted once per connection).
  std::shared_ptr<std::atomic<std::size_t>> slots_ = std::make_shared<std::atomic<std::size_t>>(0);
  std::string node_;                 ///< this process's name among the service's (random)
  std::shared_ptr<void> relay_sub_;  ///< what other processes forward; last: dropped first
};

using mcp::detail::iequals;  ///< ASCII case-insensitive equality (detail/ascii.hpp)

/// A plain error answer with a JSON-RPC error body (no id).
[[nodiscard]] http_response error_response(unsigned status, int code, std::string message,
                                           headers extra = {});
/// The same for request `id`, with error `e` as it is (its data included).
[[nodiscard]] http_response error_response(unsigned status, const jsonrpc::request_id& id,
                                           const error& e, headers extra = {});
[[nodiscard]] http_response error_response(unsigned status, errc code, std::string message,
                                           headers extra = {});

}  // namespace mcp::http_detail
