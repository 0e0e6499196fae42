// Internal: the server face of a session. On top of the peer core (peer.hpp) it does the
// lifecycle (initialize, version negotiation, capabilities, ping), routes every other request
// through the server's method router to the feature that registered it, and offers features
// the services they share: the negotiated era, the caller, the client's capabilities, the log
// level, requests to the client, answers computed on the executor, list_changed, and a slot of
// per-session state. It names no feature.
#pragma once

#include <mcp/server.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>

#include "detail/request_state.hpp"
#include "features.hpp"
#include "peer.hpp"
#include "protocol.hpp"

namespace mcp::detail {

class server_core;
struct request_meta_members;
class server_session_impl;

/// One shared empty object: the capabilities of a client that declared none (no allocation
/// per session or per request for the common case).
[[nodiscard]] const std::shared_ptr<const json::object>& no_capabilities();

/// A request a feature answers later (resources/read, prompts/get, completion/complete): the
/// state its handler's request_context wraps. `finish` answers it once.
class pending_answer final : public request_state {
 public:
  using request_state::request_state;
  [[nodiscard]] bool finished() const noexcept override { return answered_.load(); }
  /// Answers once (later calls are ignored): the result, or a JSON-RPC error; nothing when the
  /// request was cancelled or its session ended. A 2026-07-28 handler that asked the client
  /// something it has not answered yet ends its round with input_required instead.
  void finish(result<json::value> r);

 private:
  std::atomic<bool> answered_{false};
};

/// Per-session state slots a feature may claim (see server_core::add_state_slot).
inline constexpr std::size_t max_state_slots = 4;

class server_session_impl final : public server_session, public peer {
 public:
  server_session_impl(std::shared_ptr<server_core> core, std::shared_ptr<connection> conn,
                      session_options&& opts);
  ~server_session_impl() override;

  // ---- server_session ----
  void receive(std::string_view text) override { receive_text(text); }
  void receive(jsonrpc::message&& message) override { receive_message(std::move(message)); }
  void close() override;
  [[nodiscard]] std::string protocol_version() const override;
  [[nodiscard]] bool initialized() const override { return initialized_.load(); }
  [[nodiscard]] std::size_t active_calls() const override { return requests_in_flight(); }
  void set_caller(principal who) override {
    auto next = std::make_shared<const principal>(std::move(who));
    std::lock_guard lock(who_mu_);
    who_ = std::move(next);
  }

  // ---- services for features (thread-safe) ----

  [[nodiscard]] server_core& core() const noexcept { return *core_; }
  [[nodiscard]] std::shared_ptr<server_session_impl> self() {
    return std::static_pointer_cast<server_session_impl>(shared_from_this());
  }
  /// The negotiated era and version (fixed once initialized).
  [[nodiscard]] era session_era() const noexcept { return era_; }
  /// True for a session serving 2026-07-28 requests: no handshake, every request carries its
  /// revision and the client's capabilities in `_meta` (session_modern.cpp).
  [[nodiscard]] bool modern() const noexcept { return traits(era_).per_request_meta; }
  [[nodiscard]] const std::string& version() const noexcept { return version_; }
  /// A 2026-07-28 request on a legacy session: its twin serves and observes it.
  [[nodiscard]] bool served_elsewhere(const jsonrpc::request& r) const noexcept override;
  [[nodiscard]] std::string_view observed_version() const noexcept override {
    return initialized_.load() ? std::string_view(version_) : std::string_view{};
  }
  /// Who is calling (from the transport; see `set_caller`).
  [[nodiscard]] std::shared_ptr<const principal> who() const {
    std::lock_guard lock(who_mu_);
    return who_;
  }
  /// Whose tasks this session sees (session_options::task_owner, or a key of its own).
  [[nodiscard]] const std::string& task_owner() const noexcept { return task_owner_; }
  /// True when callers that cannot be told apart share that owner (no tasks/list then).
  [[nodiscard]] bool shared_task_owner() const noexcept { return shared_task_owner_; }
  /// The client's declared capabilities (from initialize; empty before). Shared by requests
  /// that keep them (a request_state), so none refers into the session. Written once, before
  /// `initialized_` is set, like `declared_`: read without a lock after.
  [[nodiscard]] std::shared_ptr<const json::object> client_capabilities() const {
    return client_caps_;
  }
  /// How request `req` is served: its revision, the client's capabilities (the session's, or
  /// in 2026-07-28 those of the request's `_meta`) and its log level (2026-07-28).
  [[nodiscard]] request_origin origin_of(const jsonrpc::request& req) const;

  /// Answers `id` with `result`, completed as the era wants every result (2026-07-28:
  /// `resultType` "complete" unless it has one, `_meta` serverInfo). Results written as text
  /// get the same through `append_result_fields`.
  void reply(const jsonrpc::request_id& id, json::value result);
  using peer::reply_error;
  /// Appends what a result written as text ends with in this session's era, before its closing
  /// brace: nothing before 2026-07-28; then `,"resultType":"complete"`, the caching hint when
  /// `cache` is given, and `,"_meta":{serverInfo}` unless `meta_written` (the caller merged
  /// `server_info_meta()` into a `_meta` of its own).
  void append_result_fields(std::string& out, const cache_policy* cache,
                            bool meta_written = false) const;
  /// `"io.modelcontextprotocol/serverInfo":{...}` (a member, for a result's `_meta`).
  [[nodiscard]] const std::string& server_info_meta() const;
  /// The capabilities this session offers (declared at initialize, or in 2026-07-28 by
  /// server/discover).
  [[nodiscard]] const json::object& declared_capabilities() const noexcept { return *declared_; }
  [[nodiscard]] bool log_enabled(log_level level) const noexcept {
    return initialized_.load() && level >= level_.load();
  }
  void set_log_level(log_level level) noexcept { level_.store(level); }
  /// The end of this session's input (`serve_stdio`): `end_input` of this session and of its
  /// twin (the 2026-07-28 requests it served), then `await_answers` of both until `until`.
  /// Answers the ids either still tracks; closing drops their answers. Thread-safe.
  [[nodiscard]] std::vector<jsonrpc::request_id> finish_input(
      std::chrono::steady_clock::time_point until, std::chrono::milliseconds settle);
  /// Whether this per-request session holds nothing a new one would not (session_reuse.hpp).
  [[nodiscard]] bool reusable();
  /// Readies this idle per-request session for the next request (session_reuse.hpp).
  void serve_next(principal&& who, std::string&& task_owner);
  /// `receive` of 2026-07-28 request `req` with the members of its `_meta` found by the
  /// transport (session_reuse.hpp).
  void receive_modern(jsonrpc::request&& req, const request_meta_members& found);
  /// With `server_options::shared`, saves this session's record there (its version, the
  /// client's capabilities, the log level, the subscriptions: session_shared.cpp), so another
  /// process can serve it; nothing for a session without a transport session id, or stateless.
  void save_shared();

  /// Runs `work` on the executor as a request in flight (cancellable, its id reserved), with
  /// the request's state; `work` (or what it starts) answers through `pending_answer::finish`,
  /// now or later. An exception escaping `work` becomes -32603 naming the method (a
  /// `protocol_error` its own error).
  void answer_later(jsonrpc::request&& req,
                    std::function<void(server_session_impl&, const jsonrpc::request&,
                                       const std::shared_ptr<pending_answer>&)>
                        work);

  /// Sends a request to the client on behalf of incoming request `related` and waits for the
  /// answer; `stop` gives up (the client is told). Errors: `errc::not_supported` when the
  /// client did not declare the capability the method needs, `errc::request_timeout`,
  /// `errc::cancelled`, `errc::connection_closed`, or the client's JSON-RPC error.
  result<json::object> request_client(std::string_view method, json::object params,
                                      std::chrono::milliseconds timeout,
                                      const jsonrpc::request_id* related, std::stop_token stop);
  /// `request_client` without waiting: `done` runs once, on the thread that receives the
  /// answer (or a timer's, or this one); `stop` withdraws the request (the client is told).
  void request_client_async(std::string_view method, json::object params,
                            std::chrono::milliseconds timeout, const jsonrpc::request_id* related,
                            std::stop_token stop, unique_function<void(result<json::object>)> done);

  /// Sends `method` (a list_changed notification) unless this session was told of change
  /// number `generation` of list `k` already, or initialized after it.
  void notify_list_changed(std::size_t k, std::uint64_t generation, std::string_view method);

  /// The state a feature keeps in slot `slot` of this session, created on first use.
  template <class T>
  std::shared_ptr<T> state(std::size_t slot) {
    std::lock_guard lock(state_mu_);
    auto& p = states_[slot];
    if (!p) p = std::make_shared<T>();
    return std::static_pointer_cast<T>(p);
  }
  /// The state in `slot` if it was created, else null.
  template <class T>
  std::shared_ptr<T> existing_state(std::size_t slot) const {
    std::lock_guard lock(state_mu_);
    return std::static_pointer_cast<T>(states_[slot]);
  }

 protected:
  void on_request(jsonrpc::request&& r) override;
  void on_notification(jsonrpc::notification&& n) override;
  [[nodiscard]] std::optional<std::string> batch_refused() const override;

 private:
  void on_initialize(const jsonrpc::request& req);
  /// Starts initialized in the state `record` (saved by `save_shared`) holds; false when it
  /// does not parse (the session then stays uninitialized).
  bool resume_from(std::string_view record);
  /// 2026-07-28 (session_modern.cpp): a request of that era, on a modern session. `found`: the
  /// members of its `_meta`, when the transport found them already (else read here).
  void on_modern_request(jsonrpc::request&& req, const request_meta_members* found = nullptr);
  /// Why a 2026-07-28 request's `_meta` cannot be served (-32602, -32022), or nothing.
  /// `found`: its members (session_reuse.hpp).
  [[nodiscard]] std::optional<error> check_request_meta(const request_meta_members& found) const;
  void on_discover(const jsonrpc::request& req);
  /// The session that serves 2026-07-28 requests arriving on this legacy session's connection
  /// (stdio serves both eras on one channel); made on first use.
  std::shared_ptr<server_session_impl> modern_twin();
  [[nodiscard]] std::shared_ptr<const json::object> declare_capabilities() const;
  /// The refusal of a request to the client whose capability it did not declare, if any.
  [[nodiscard]] std::optional<error> refusal(std::string_view method,
                                             const json::object& params) const;

  std::shared_ptr<server_core> core_;
  mutable std::mutex who_mu_;
  std::shared_ptr<const principal> who_;
  std::string task_owner_;
  bool shared_task_owner_;

  bool stateless_ = false;  ///< opened initialized (session_options::assume_initialized)
  std::mutex init_mu_;      ///< serialises initialize
  std::atomic<bool> initialized_{false};
  std::string version_;  ///< written before initialized_ is set, read after
  era era_ = latest_legacy_era;
  std::shared_ptr<const json::object> client_caps_ = no_capabilities();
  /// The capabilities sent in the InitializeResult (shared by sessions alike: see
  /// server_core::capabilities); written before initialized_ is set, read after.
  std::shared_ptr<const json::object> declared_;
  std::atomic<log_level> level_;
  std::array<std::atomic<std::uint64_t>, max_lists> lists_seen_{};

  mutable std::mutex state_mu_;
  std::array<std::shared_ptr<void>, max_state_slots> states_{};
  std::shared_ptr<server_session_impl> twin_;  ///< guarded by state_mu_
};

/// Creates a session of `core` writing to `conn`, registered with the core (unless it is a
/// per-request one: `assume_initialized`).
[[nodiscard]] std::shared_ptr<server_session_impl> make_session(
    const std::shared_ptr<server_core>& core, std::shared_ptr<connection> conn,
    session_options&& opts);

/// `server::open_session`: the core's stored tasks recovered and serving marked (each once),
/// then `make_session`. Errors: those of `make_session` (std::bad_alloc).
[[nodiscard]] std::shared_ptr<server_session_impl> open_session(
    const std::shared_ptr<server_core>& core, std::shared_ptr<connection> conn,
    session_options&& opts);

/// True when `req` names a revision in its `_meta` (a 2026-07-28 request, whatever it says).
[[nodiscard]] bool has_request_revision(const jsonrpc::request& req) noexcept;

}  // namespace mcp::detail
