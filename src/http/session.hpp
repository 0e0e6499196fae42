// File: src/http/session.hpp
//
// The HTTP side of MCP sessions:
//   - `routing_connection`: the `mcp::connection` a server session writes to. It routes each
//     message to the stream of the request it relates to (send_context::related_request), or,
//     for standalone messages, to the session's GET stream (dropped when none is open).
//   - `http_session`: one stateful session (id, owner, server session, routing, last use).
//   - `session_table`: the live sessions by id, with idle expiry and a cap.
#pragma once

#include <mcp/http_server.hpp>
#include <mcp/server.hpp>

#include <boost/container/small_vector.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "detail/string_hash.hpp"
#include "http/stream.hpp"

namespace mcp::http_detail {

/// The streams of the requests in flight, by request id: a few kept in place (a connection has
/// one or two most of the time: a 2026-07-28 request's has one), a hash map once there are more.
/// Not thread-safe (the connection's lock guards it).
class route_table {
 public:
  using stream_ptr = std::shared_ptr<response_stream>;
  /// The stream of request `k`, or null.
  [[nodiscard]] stream_ptr* find(const jsonrpc::request_id& k);
  [[nodiscard]] bool contains(const jsonrpc::request_id& k) { return find(k) != nullptr; }
  /// Adds request `k` (not there yet).
  void emplace(const jsonrpc::request_id& k, stream_ptr s);
  /// Removes request `k` (found by `find`).
  void erase(const jsonrpc::request_id& k);
  [[nodiscard]] bool empty() const noexcept { return few_.empty() && many_.empty(); }
  /// Calls `f(stream)` for each request's stream.
  template <class F>
  void for_each(F&& f) const {
    for (const auto& e : few_) f(e.second);
    for (const auto& e : many_) f(e.second);
  }
  void clear() noexcept {
    few_.clear();
    many_.clear();
  }

 private:
  static constexpr std::size_t few_max = 4;
  // Either holds them all, the other being empty.
  boost::container::small_vector<std::pair<jsonrpc::request_id, stream_ptr>, 1> few_;
  std::unordered_map<jsonrpc::request_id, stream_ptr> many_;
};

class routing_connection final : public connection {
 public:
  /// `session_id`: the MCP session's (empty: a stateless request). `peer_address` and
  /// `peer_port`: the client's, of the TCP connection that opened the session (observation's
  /// `client.address` and `client.port`); empty and 0 when unknown.
  explicit routing_connection(std::string session_id = {}, std::string peer_address = {},
                              std::uint16_t peer_port = 0)
      : session_id_(std::move(session_id)),
        peer_address_(std::move(peer_address)),
        peer_port_(peer_port) {}
  void send(std::string message, const send_context& ctx) override;
  void close() override;
  [[nodiscard]] connection_facts facts() const override {
    return {.network_transport = "tcp",
            .protocol_name = "http",
            .protocol_version = "1.1",
            .session_id = session_id_,
            .peer_address = peer_address_,
            .peer_port = peer_port_};
  }
  bool close_request_stream(const jsonrpc::request_id& request) override;
  [[nodiscard]] bool delivers_unrelated() const override;

  /// Routes the answers to these request ids to `s`. False (nothing registered) when one of the
  /// ids is already in flight.
  bool register_requests(std::span<const jsonrpc::request_id> keys,
                         const std::shared_ptr<response_stream>& s);
  /// Installs the standalone (GET) stream. False when one is attached already.
  bool set_standalone(const std::shared_ptr<response_stream>& s);
  /// A live stream by number (for resumption), or null.
  [[nodiscard]] std::shared_ptr<response_stream> find_stream(std::uint64_t number) const;
  /// True when some stream has a writer attached (the client is listening).
  [[nodiscard]] bool has_attached_stream() const;
  /// True once closed (the session ended).
  [[nodiscard]] bool closed() const;
  /// The client cancelled `request`: no answer will come (the peer sends none), so its stream
  /// stops waiting for one.
  void forget_request(const jsonrpc::request_id& request);
  /// True when some request is waiting for its answer.
  [[nodiscard]] bool busy() const;
  /// A new stream number (1, 2, ...; 0 is the GET stream).
  std::uint64_t next_stream_number() { return ++numbers_; }
  /// Numbers streams from `base + 1` on: each process serving a shared session numbers its
  /// streams from a random base, so that their events do not mix in the shared store.
  void number_from(std::uint64_t base) { numbers_.store(base); }
  /// Where standalone messages go when this process holds no GET stream of the session (a
  /// session kept in a shared state: another process may hold it). Set once, before use.
  void forward_elsewhere(std::function<void(std::string)> fn) { elsewhere_ = std::move(fn); }
  /// Writes `message`, forwarded by another process, on the GET stream if this process holds
  /// it; false (dropped) when not.
  bool deliver_standalone(std::string message);
  /// Process `node` of the shared service said it holds the session's GET stream: what this
  /// process forwards elsewhere reaches the client (`delivers_unrelated` is true from now on).
  void held_elsewhere(std::string_view node);
  /// Process `node` said it holds the GET stream no more: unless another said it holds it
  /// since, what this process forwards reaches no client (`delivers_unrelated` false again).
  void released_elsewhere(std::string_view node);
  /// True when this process holds the session's GET stream.
  [[nodiscard]] bool holds_standalone() const;
  /// Ends this process's GET stream when no client has listened to it for `window` (seen by
  /// calls at `now`; a zero window: at once when none listens); its events stay for a client
  /// resuming with Last-Event-ID. True when it ended one.
  bool end_detached_standalone(std::chrono::steady_clock::time_point now,
                               std::chrono::milliseconds window);

 private:
  mutable std::mutex mu_;
  std::atomic<bool> closed_{false};  ///< written under `mu_`; `closed()` reads it without
  route_table by_request_;
  std::shared_ptr<response_stream> standalone_;
  std::atomic<std::uint64_t> numbers_{0};
  std::function<void(std::string)> elsewhere_;
  std::atomic<bool> held_elsewhere_{false};
  std::string holder_;  ///< with mu_: the process that said it holds the GET stream
  /// With mu_: since when no client listens to `standalone_` (unset: one does, or not yet seen).
  std::optional<std::chrono::steady_clock::time_point> standalone_gone_since_;
  const std::string session_id_;
  const std::string peer_address_;
  const std::uint16_t peer_port_;
};

struct http_session {
  std::string id;
  std::string subject;  // the principal that opened it; other principals get 404
  std::shared_ptr<routing_connection> conn;
  std::shared_ptr<server_session> session;
  std::atomic<std::int64_t> last_used_ms{0};  // steady clock
  void touch();
};

class session_table {
 public:
  /// With `shared` (sessions kept in server_options::shared), a session that expires here or
  /// ends with the server is only this process's copy: its events stay in `store`.
  session_table(std::size_t max_sessions, std::chrono::milliseconds idle_timeout,
                std::shared_ptr<event_store> store, std::shared_ptr<shared_state> shared = nullptr);
  /// A new random id (128 bits from the OS CSPRNG, hex).
  [[nodiscard]] static std::string new_id();
  /// Adds a session; false when the table is full.
  bool add(const std::shared_ptr<http_session>& s);
  /// Adds `s` unless a session with its id is there already (another request opened this
  /// process's copy of a shared session first): the one in the table, or null when full.
  std::shared_ptr<http_session> add_or_find(const std::shared_ptr<http_session>& s);
  [[nodiscard]] std::shared_ptr<http_session> find(std::string_view id) const;
  /// Removes and closes a session; with `erase`, its events leave the store too. False when
  /// unknown.
  bool end(const std::string& id, bool erase = true);
  /// Ends sessions idle for longer than the timeout (idle: no request for that long, no request
  /// running, no stream listened to), and forgets those that ended on their own.
  void expire();
  /// Ends all sessions.
  void clear();
  /// Shared sessions: in `expire`, the GET stream of a copy here that no client has listened
  /// to for `window` ends, and `released(id)` is called (outside the table's lock), as it is
  /// when a copy holding a GET stream ends here. Set once, before use.
  void on_stream_released(std::chrono::milliseconds window,
                          std::function<void(const std::string&)> released);
  [[nodiscard]] std::size_t size() const;

 private:
  void close_session(const std::shared_ptr<http_session>& s, bool erase);

  std::size_t max_;
  bool shared_;
  std::chrono::milliseconds idle_;
  std::chrono::milliseconds stream_window_{0};
  std::function<void(const std::string&)> released_;
  std::shared_ptr<event_store> store_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<http_session>, detail::string_hash,
                     std::equal_to<>>
      sessions_;
};

}  // namespace mcp::http_detail
