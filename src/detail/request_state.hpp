// Internal: the state of one incoming request a handler serves (a tools/call, a resources/read,
// a prompts/get), behind the public `request_context`. It is the request's record in the peer
// core (an `inbound_request`), so a cancellation stops it; it knows the session (weakly), the
// caller, the request's `_meta`, the revision it is served in and the client's capabilities for
// it, sends the handler's progress and log notifications, and carries the handler's requests to
// the client: as server-to-client requests (2025-11-25 and older) or as an input round
// (2026-07-28, `round`). A tool call's state (call_state.hpp) derives from it and routes through
// its sink (a task routes differently).
#pragma once

#include <mcp/context.hpp>
#include <mcp/jsonrpc.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "detail/spinlock.hpp"
#include "peer.hpp"
#include "protocol.hpp"

namespace mcp::detail {

class server_session_impl;
class input_round;

/// The revision a request is served in and what the client declared for it.
struct request_origin {
  era revision = latest_legacy_era;
  /// The client's capabilities: the session's (from initialize), or this request's `_meta`
  /// (2026-07-28). Never null.
  std::shared_ptr<const json::object> client_caps;
  /// 2026-07-28: the request's `_meta` logLevel (nothing: no log messages). Older revisions
  /// read the session's level instead.
  std::optional<mcp::log_level> level{};
};

class request_state : public inbound_request, public std::enable_shared_from_this<request_state> {
 public:
  /// `meta` is pilfered (left empty in the default storage): pass a local.
  request_state(std::weak_ptr<server_session_impl> session, jsonrpc::request_id id,
                json::object&& meta, std::shared_ptr<const principal> who, request_origin origin);
  ~request_state() override;
  request_state(const request_state&) = delete;
  request_state& operator=(const request_state&) = delete;

  [[nodiscard]] std::shared_ptr<server_session_impl> session() const { return session_.lock(); }
  [[nodiscard]] const principal& caller() const noexcept { return *who_; }
  [[nodiscard]] const std::shared_ptr<const principal>& caller_ptr() const noexcept { return who_; }
  /// The request's `_meta`; read from its text at the first call when it was kept as text
  /// (`keep_meta_text`). Thread-safe.
  [[nodiscard]] const json::object& meta() const noexcept {
    return meta_read_.load(std::memory_order_acquire) ? meta_ : read_meta();
  }
  /// Keeps `text`, the request's `_meta` kept as text (detail/call_scan.hpp), in place of the
  /// (empty) `meta` the state was made with; before any other thread sees the state. The text
  /// has no progressToken (only what call_scan keeps as text). Its copy is made in `store` (the
  /// message's storage, where the call's arguments are: usually no allocation of its own).
  void keep_meta_text(std::string_view text, const json::storage_ptr& store);
  [[nodiscard]] era revision() const noexcept { return origin_.revision; }
  [[nodiscard]] const json::object& client_caps() const noexcept { return *origin_.client_caps; }
  /// Whether a log message of `level` goes out for this request.
  [[nodiscard]] bool log_enabled(log_level level) const;

  /// True once the request was answered (its later progress and logs are dropped).
  [[nodiscard]] virtual bool finished() const noexcept = 0;
  /// The incoming request this one's notifications and requests relate to; none: standalone.
  [[nodiscard]] virtual std::optional<jsonrpc::request_id> related() const { return id(); }
  /// Adds what every notification and request of this one carries (a task's `_meta`).
  virtual void annotate(json::object& params) const { (void)params; }
  /// Where the handler runs; null when nobody waits any more (the session ended).
  [[nodiscard]] virtual executor* exec() const;
  /// True for handlers run on the receiving thread (they may not wait for the client).
  [[nodiscard]] virtual bool inline_handler() const noexcept { return false; }
  /// Sends a request to the client for this one and waits (older revisions; a 2026-07-28
  /// task keeps the question under `key` until tasks/update answers it).
  virtual result<json::object> ask_client(std::string_view method, json::object params,
                                          std::chrono::milliseconds timeout, std::string_view key);
  /// The same without waiting: `done` runs once, on some thread.
  virtual void ask_client_async(std::string_view method, json::object params,
                                std::chrono::milliseconds timeout, std::string_view key,
                                unique_function<void(result<json::object>)> done);

  /// Progress: the notification's params, or nothing when it must be dropped (no token, the
  /// request was answered, or the value does not increase).
  std::optional<json::object> next_progress(double value, std::optional<double> total,
                                            std::string_view message);

  /// 2026-07-28, on tools/call, prompts/get and resources/read: the input round this run of
  /// the handler belongs to (input_round.hpp), opened now if it was deferred; null when the
  /// request has none. Thread-safe.
  [[nodiscard]] std::shared_ptr<input_round> round();
  /// The round if it is open (a deferred one nobody used is not: it has no questions and no
  /// state to carry). Thread-safe.
  [[nodiscard]] std::shared_ptr<input_round> opened_round() const;
  /// Sets the round (before the handler runs; null: none, which also drops a deferred one).
  void set_round(std::shared_ptr<input_round> r);
  /// The methods that have input rounds.
  enum class round_method : std::uint8_t { none, tools_call, prompts_get, resources_read };
  /// A round that starts empty (the request carried no `requestState`, no `inputResponses`,
  /// and no capability a question needs, so no digest is needed): opened by `round()` when the
  /// handler first asks or saves its state, for `method`. Most handlers ask nothing, and their
  /// requests then open no round at all.
  void defer_round(round_method method);
  /// What the handler needs alive while it may still complete (its registry entry: a handler
  /// completing later must outlive the entry's removal).
  std::shared_ptr<const void> keep_alive;

 private:
  std::weak_ptr<server_session_impl> session_;
  std::shared_ptr<const principal> who_;
  [[nodiscard]] const json::object& read_meta() const noexcept;
  void forget_meta_text() noexcept;
  mutable json::object meta_;   ///< written once, by `read_meta` when `meta_read_` is false
  std::string_view meta_text_;  ///< in `meta_store_` (`keep_meta_text`)
  json::storage_ptr meta_store_;
  mutable std::atomic<bool> meta_read_{true};
  mutable spinlock meta_mu_;
  request_origin origin_;
  std::optional<json::value> progress_token_;
  std::shared_ptr<input_round> round_;  ///< guarded by round_mu_
  spinlock progress_mu_;
  mutable spinlock round_mu_;
  round_method deferred_round_ = round_method::none;  ///< a round not opened yet; guarded too
  bool has_progress_ = false;
  double last_progress_ = 0;
};

/// The capability a request to the client needs that `caps` lacks ("sampling",
/// "elicitation.url", ...), or nothing.
[[nodiscard]] std::optional<std::string> missing_client_capability(std::string_view method,
                                                                   const json::object& params,
                                                                   const json::object& caps);

}  // namespace mcp::detail
