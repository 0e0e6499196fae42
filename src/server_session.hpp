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

#include "features.hpp"
#include "peer.hpp"
#include "protocol.hpp"

namespace mcp::detail {

class server_core;

/// Per-session state slots a feature may claim (see server_core::add_state_slot).
inline constexpr std::size_t max_state_slots = 4;

class server_session_impl final : public server_session, public peer {
 public:
  server_session_impl(std::shared_ptr<server_core> core, std::shared_ptr<connection> conn,
                      session_options opts);
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
  [[nodiscard]] const std::string& version() const noexcept { return version_; }
  /// Who is calling (from the transport; see `set_caller`).
  [[nodiscard]] std::shared_ptr<const principal> who() const {
    std::lock_guard lock(who_mu_);
    return who_;
  }
  /// Whose tasks this session sees (session_options::task_owner, or a key of its own).
  [[nodiscard]] const std::string& task_owner() const noexcept { return task_owner_; }
  /// True when callers that cannot be told apart share that owner (no tasks/list then).
  [[nodiscard]] bool shared_task_owner() const noexcept { return shared_task_owner_; }
  /// The client's declared capabilities (from initialize).
  [[nodiscard]] const json::object& client_capabilities() const noexcept { return client_caps_; }
  [[nodiscard]] bool log_enabled(log_level level) const noexcept {
    return initialized_.load() && level >= level_.load();
  }
  void set_log_level(log_level level) noexcept { level_.store(level); }

  /// Runs `work` on the executor as a request in flight (cancellable, its id reserved) and
  /// answers with what it returns. An exception becomes -32603 naming the method.
  void answer_later(
      jsonrpc::request&& req,
      std::function<result<json::value>(server_session_impl&, const jsonrpc::request&)> work);

  /// Sends a request to the client on behalf of incoming request `related` and waits for the
  /// answer; `stop` gives up (the client is told). Errors: `errc::not_supported` when the
  /// client did not declare the capability the method needs, `errc::request_timeout`,
  /// `errc::cancelled`, `errc::connection_closed`, or the client's JSON-RPC error.
  result<json::object> request_client(std::string_view method, json::object params,
                                      std::chrono::milliseconds timeout,
                                      const jsonrpc::request_id* related, std::stop_token stop);

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
  [[nodiscard]] std::shared_ptr<const json::object> declare_capabilities() const;
  [[nodiscard]] std::optional<std::string> missing_capability(std::string_view method,
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
  era era_ = latest_era;
  json::object client_caps_;
  /// The capabilities sent in the InitializeResult (shared by sessions alike: see
  /// server_core::capabilities); written before initialized_ is set, read after.
  std::shared_ptr<const json::object> declared_;
  std::atomic<log_level> level_;
  std::array<std::atomic<std::uint64_t>, max_lists> lists_seen_{};

  mutable std::mutex state_mu_;
  std::array<std::shared_ptr<void>, max_state_slots> states_{};
};

}  // namespace mcp::detail
