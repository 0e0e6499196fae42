// Internal: the JSON-RPC peer core under both session faces (server_session_impl,
// client_session). It owns what the two sides share:
//   - receiving: message text parsed with limits, batches (collected and answered with one
//     array), decoding, dispatch to the face's `on_request` / `on_notification`;
//   - incoming requests in flight: a duplicate id is refused, `notifications/cancelled` stops
//     the request (its stop token fires) and its answer is dropped, a batch slot is settled;
//   - outgoing requests: ids, pending answers, timeouts that progress may reset plus a hard
//     maximum, then `notifications/cancelled`; progress routed to the request's callback;
//   - close: every waiter fails with `connection_closed`, every request in flight is stopped;
//   - observation (mcp/observe.hpp, peer_observe.cpp): when an observer is set, every request
//     and notification sent or received is reported, trace context is read from incoming
//     `_meta` and written into outgoing requests' `_meta`.
// The faces add lifecycle and methods. The core knows no MCP method other than the two
// notifications of the base protocol it implements (cancelled, progress).
#pragma once

#include <mcp/detail/unique_function.hpp>
#include <mcp/jsonrpc.hpp>
#include <mcp/observe.hpp>
#include <mcp/transport.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace mcp::detail {

/// Clears this thread's answering slot if it points at `span` (peer_observe.cpp).
void forget_answering(const observe::span& span) noexcept;

/// An incoming request being served. Registered with `peer::track` so that the peer can stop
/// it; features derive their own records (a tool call's state) from it. Thread-safe.
class inbound_request {
 public:
  explicit inbound_request(jsonrpc::request_id id) noexcept : id_(std::move(id)) {}
  virtual ~inbound_request() {
    // Untracked and never answered (an exception between): no answering slot may point here.
    if (span_.active) [[unlikely]]
      forget_answering(span_);
  }
  inbound_request(const inbound_request&) = delete;
  inbound_request& operator=(const inbound_request&) = delete;

  [[nodiscard]] const jsonrpc::request_id& id() const noexcept { return id_; }
  /// Fires when the peer cancels the request or the session ends.
  [[nodiscard]] std::stop_source& stop_source() noexcept { return stop_; }
  /// True once the peer cancelled the request (or the session ended): its answer is dropped.
  [[nodiscard]] bool cancelled() const noexcept { return cancelled_.load(); }

  /// Set before `peer::track` for a request that gets no final answer of its own until the
  /// client ends it (a `subscriptions/listen` stream): the end of input does not wait for it.
  bool open_ended = false;

 private:
  friend class peer;
  jsonrpc::request_id id_;
  std::stop_source stop_;
  std::atomic<bool> cancelled_{false};
  /// With an observer: the request's span (moved in by `track`; out by the cancellation or the
  /// close; ended where it is when the answer is sent); guarded by the peer's lock while
  /// tracked, then the untracking thread's (`peer::untrack`) until the answer is sent.
  mutable observe::span span_{};
};

/// How an outgoing request waits.
struct outbound_options {
  /// Longest wait for the answer; with `reset_on_progress`, counted from the last progress.
  std::chrono::milliseconds timeout{30000};
  /// Hard maximum from the start, whatever progress says. 0: none beyond `timeout`.
  std::chrono::milliseconds max_total{0};
  bool reset_on_progress = false;
  /// The incoming request this one is made for (transports route by it); null: standalone.
  const jsonrpc::request_id* related = nullptr;
  /// When set, a `progressToken` is sent and progress notifications are reported here.
  std::function<void(const json::object& progress)> on_progress{};
  /// Called with the id as soon as the request is sent (before any answer can arrive).
  std::function<void(std::int64_t id)> on_sent{};
  /// Set by `request`: the sender blocks until the answer (see send_context::sender_waits).
  bool sender_waits = false;
  /// Headers describing the request for the transport (send_context::headers); null: none.
  /// Read only while the request is sent.
  const std::vector<std::pair<std::string, std::string>>* headers = nullptr;
};

/// The answer to an outgoing request: the result object, or the peer's JSON-RPC error,
/// `errc::request_timeout`, `errc::cancelled` or `errc::connection_closed`.
using outbound_callback = unique_function<void(result<json::object>)>;

class peer : public std::enable_shared_from_this<peer> {
 public:
  /// Faces are always owned by a shared_ptr (timers and queued work hold them weakly).
  peer(std::shared_ptr<connection> conn, json_limits limits);
  virtual ~peer();
  peer(const peer&) = delete;
  peer& operator=(const peer&) = delete;

  // ---- receiving (any thread; never throws) ----

  /// One received message text: a message, or a batch when the face accepts batches.
  void receive_text(std::string_view text);
  /// One message a transport already decoded.
  void receive_message(jsonrpc::message&& m);

  // ---- answering incoming requests ----

  /// Registers `r` as in flight. False when its id is already in flight (the request has then
  /// been answered with -32600) or the peer is closed.
  [[nodiscard]] bool track(const std::shared_ptr<inbound_request>& r);
  /// Ends the tracking of `r` (its work is done). False when it was cancelled or the peer
  /// closed: its answer must then not be sent. When true, the answer is to be sent next on the
  /// same thread (with an observer, the request's span waits there for it).
  [[nodiscard]] bool untrack(const inbound_request& r);
  /// Sends the final answer of request `id`: on its own, or into its batch's array. Dropped
  /// when the request was tracked and has been cancelled. `known`: how the answer ended, when
  /// the sender knows (neither the observation nor the transport, `send_context::is_result`,
  /// then reads it back from `message`; the observation sets its `end`: the observer is given
  /// the sender's outcome itself).
  void send_final(const jsonrpc::request_id& id, std::string message,
                  observe::outcome* known = nullptr);
  void reply(const jsonrpc::request_id& id, const json::value& result);
  [[gnu::cold]] void reply_error(const jsonrpc::request_id& id, const error& e);
  /// Sends any other message (notifications, answers without a request), related to an
  /// incoming request or standalone.
  void send(std::string message, const jsonrpc::request_id* related = nullptr);
  /// Sends a standalone message that every process of a shared service sends to its own
  /// clients (send_context::everywhere).
  void send_everywhere(std::string message) {
    if (closed_.load()) return;
    conn_->send(std::move(message), send_context{.everywhere = true});
  }
  /// Numbers the requests this side sends from `first` on (from 1 by default): the processes
  /// of a shared service each start a session's numbers at a random point, so that the answer
  /// to a request made by one process is recognised by it alone.
  void number_requests_from(std::int64_t first) {
    std::lock_guard lock(mu_);
    next_id_ = first;
  }
  /// Sends notifications/cancelled for `id` with `reason`.
  void send_cancellation(const jsonrpc::request_id& id, std::string_view reason);
  /// Sends `message`, a notifications/cancelled for `id` (send_context::cancels says which).
  void send_cancellation(std::string message, const jsonrpc::request_id& id);
  /// Asks the transport to end the network connection carrying `request`'s answer stream (the
  /// peer resumes it). False when the transport cannot (see connection::close_request_stream).
  bool close_request_stream(const jsonrpc::request_id& request) {
    return !closed_.load() && conn_->close_request_stream(request);
  }

  // ---- outgoing requests ----

  /// Sends a request; `done` runs exactly once, on the thread that receives the answer (or the
  /// timer thread, or the closing thread). Returns the request's id (0 when closed: `done`
  /// already ran with connection_closed).
  std::int64_t request_async(std::string_view method, json::object params, outbound_options opts,
                             outbound_callback done);
  /// Sends a request and blocks until its answer. `stop` cancels the wait (the peer is sent
  /// notifications/cancelled with `stop_reason`). Without a `stop`, the transport may carry the
  /// exchange on this thread (send_context::sender_waits).
  result<json::object> request(std::string_view method, json::object params, outbound_options opts,
                               std::stop_token stop = {},
                               std::string_view stop_reason = "cancelled");
  /// Gives up on outgoing request `id`: sends notifications/cancelled with `reason` and fails
  /// the waiter with `errc::cancelled`. No effect when it was answered already.
  void cancel_outbound(std::int64_t id, std::string_view reason);

  /// Ends the peer: outgoing requests fail with connection_closed, incoming ones are stopped
  /// and their answers dropped, the connection is closed. Idempotent.
  void close_peer();
  [[nodiscard]] bool peer_closed() const noexcept { return closed_.load(); }
  [[nodiscard]] connection& conn() const noexcept { return *conn_; }
  [[nodiscard]] const std::shared_ptr<connection>& conn_ptr() const noexcept { return conn_; }
  [[nodiscard]] std::size_t requests_in_flight() const;
  /// The peer's input ended (the transport reads nothing more) while the peer stays open to
  /// send: outgoing requests waiting for an answer fail now with `connection_closed`, and so do
  /// those made from now on, since no answer can come. Incoming requests in flight go on.
  /// Idempotent; thread-safe.
  void end_input();
  /// Arms the count of answers being written that `await_answers` waits for, on a peer whose
  /// transport drains (`serve_stdio`): from now on, an answer untracked on a thread other than
  /// `drainer` is counted until its `send_final` returns. `drainer` is the thread that receives
  /// and then calls `end_input` and `await_answers`: what it answers is written before it
  /// drains. A peer never armed counts nothing. Call before messages flow.
  void count_answers(std::thread::id drainer) noexcept { drainer_ = drainer; }
  /// The thread given to `count_answers`; the default id when not armed.
  [[nodiscard]] std::thread::id answers_drainer() const noexcept { return drainer_; }
  /// After `end_input`, for a transport that drains before it closes (armed by `count_answers`):
  /// waits until no incoming request is tracked and the answers of those untracked since were
  /// sent, or until `until`.
  /// Woken by the last untracking and the last such answer, not by polling. An answer not sent
  /// within `settle` of the last untracking (a request answered some other way) is not waited
  /// for. Answers the ids still tracked, whose answers closing drops. Thread-safe.
  [[nodiscard]] std::vector<jsonrpc::request_id> await_answers(
      std::chrono::steady_clock::time_point until, std::chrono::milliseconds settle);
  /// Records every incoming request tracked from now on until nothing holds it, for
  /// `inbound_released`: a per-request session that may serve another caller next asks for it
  /// before it receives anything (other peers skip the record). Thread-safe.
  void record_held_requests();
  /// True when no incoming request is in flight and nothing (a handler's context kept by
  /// another thread) still holds any this peer tracked: no late message of them can come. The
  /// record is then emptied (what it kept of them is freed now, not with a later request).
  /// Always false unless `record_held_requests` was called. Thread-safe.
  [[nodiscard]] bool inbound_released();

  // ---- observation (peer_observe.cpp) ----

  /// Reports what this peer sends and receives to `o` as endpoint `side`. Call once, before
  /// messages flow (not thread-safe against them). Null: nothing is reported (the default; one
  /// predictable branch per message).
  void set_observer(std::shared_ptr<observe::observer> o, observe::kind side);
  /// Reports the session's start (its protocol version is known now); `close_peer` ends it.
  /// Once; thread-safe.
  void observe_session_start();
  /// The trace context incoming request `id` runs in (for log lines and the audit); invalid
  /// when nothing traces it. Thread-safe.
  [[nodiscard]] observe::trace_context trace_of(const jsonrpc::request_id& id) const;
  /// The observer, or null.
  [[nodiscard]] observe::observer* observer() const noexcept { return obs_.get(); }

 protected:
  /// The negotiated protocol version, for observation; empty while unknown. Thread-safe.
  [[nodiscard]] virtual std::string_view observed_version() const noexcept { return {}; }

  /// Whether request `r` is served by another peer that observes it itself (a 2026-07-28
  /// request on a legacy stdio session: its twin), so that this one starts no span of it. Asked
  /// only with an observer, before one is started; never true for a request without `_meta`
  /// (a new trace's dispatch asks only when `_meta` is there). Default: false.
  [[nodiscard]] virtual bool served_elsewhere(const jsonrpc::request& r) const noexcept;
  /// Before `on_request` hands request `id` to the peer that serves it: drops the span of the
  /// word form waiting for it here (no observer call was made for it), so it is counted once.
  void drop_arriving_word(const jsonrpc::request_id& id) noexcept;

  /// A notifications/cancelled for request `id` that another peer received, observed and
  /// forwards here (a legacy session to its twin): cancels as one received, not observed again.
  void forwarded_cancel(const jsonrpc::request_id& id) { on_cancelled(id); }

  /// A request (not a response) arrived. The face answers it, now or later.
  virtual void on_request(jsonrpc::request&& r) = 0;
  /// A notification arrived (after the core handled cancelled and progress).
  virtual void on_notification(jsonrpc::notification&& n) = 0;
  /// Whether a batch may be received now; when not, the reason to answer with (-32600).
  [[nodiscard]] virtual std::optional<std::string> batch_refused() const = 0;
  /// A message that could not be parsed or decoded. The default answers it with the error
  /// (to its id when readable); a client face may only log it.
  virtual void on_invalid(const error& e, const std::optional<jsonrpc::request_id>& id);

 private:
  struct attribute_sets;  ///< see `attribute_sets_`
  /// One attribute set of `attribute_sets` (peer_attribute_sets.hpp).
  struct attribute_sets_entry;
  struct outbound {
    outbound_callback done;
    std::string method;
    std::function<void(const json::object&)> on_progress;
    std::chrono::steady_clock::time_point deadline;  ///< current timeout
    std::chrono::steady_clock::time_point hard_deadline;
    std::chrono::milliseconds timeout{0};
    std::chrono::milliseconds max_total{0};
    bool reset_on_progress = false;
    std::uint64_t timer = 0;
    observe::span span{};  ///< with an observer: the request's span (kind client)
  };
  struct batch_answers {
    std::size_t waiting = 0;           ///< requests not yet answered or cancelled
    std::vector<std::string> answers;  ///< in completion order
  };

  void dispatch(jsonrpc::message&& m);
  /// `dispatch` of a request with an observer: its span waits among this thread's arriving
  /// requests (its slot for the usual request, else a frame on its stack) (`track` takes it into
  /// the request's record; an answer sent before `on_request` returns ends it), and is filed aside
  /// only when neither happened.
  void dispatch_observed(jsonrpc::request&& r);
  /// `dispatch_observed` of a request whose set's span word is not known: `on_start` (with
  /// `operation::root` at `root`).
  [[gnu::cold, gnu::noinline]] void dispatch_spanned(jsonrpc::request&& r,
                                                     const observe::trace_context* root);
  /// `dispatch_observed` for an observer that `starts_roots`, `set` the request's (null: not
  /// known yet).
  [[gnu::cold, gnu::noinline]] void dispatch_root(jsonrpc::request&& r,
                                                  const attribute_sets_entry* set);
  /// `on_request` with the request's span waiting among this thread's arriving requests: as a
  /// `word` (non-zero)
  /// and `start`, or as `span`.
  void dispatch_arriving(jsonrpc::request&& r, std::uintptr_t word,
                         std::chrono::steady_clock::time_point start, observe::span* span);
  void receive_batch(json::array&& batch);
  void on_response(jsonrpc::response&& r);
  void on_cancelled(const jsonrpc::request_id& id);
  void on_progress(const json::object& params);
  /// Fails or answers outgoing request `id`; false when it was settled already.
  bool finish_outbound(std::int64_t id, result<json::object> outcome);
  /// After `end_input`: wakes `await_answers` when no request it waits for is left. With `mu_`.
  [[gnu::cold]] void untracked_after_input();
  /// After `end_input`: the last answer being written was sent; wakes `await_answers`.
  [[gnu::cold]] void answered_after_input();
  /// Nothing but open-ended requests in flight (under `mu_`): what `await_answers` waits for.
  [[nodiscard]] bool only_open_ended() const noexcept;
  /// Fails every request of `out` (taken out of `outbound_`, no lock held) as the session
  /// ended: its timer cancelled, its span ended, its callback told (`close_peer`, `end_input`).
  void fail_outbound(std::unordered_map<std::int64_t, outbound>& out);
  void arm_timer(std::int64_t id, std::chrono::steady_clock::time_point when);
  void expire(std::int64_t id);
  bool settle_batched(const jsonrpc::request_id& id, std::string* answer, std::string& out);

  // observation (peer_observe.cpp); each is called only with an observer
  [[gnu::cold]] observe::span observe_request(const jsonrpc::request& r,
                                              const observe::trace_context* root);
  [[gnu::cold]] void observe_notification(const jsonrpc::notification& n);
  void observe_answer(const jsonrpc::request_id& id, std::string_view message,
                      observe::outcome* known);
  /// `observe_answer` past its usual case: an outcome read from the text, or a span that is
  /// not in this thread's answering slot (arriving still, or filed aside).
  [[gnu::cold, gnu::noinline]] void observe_answer_away(const jsonrpc::request_id& id,
                                                        std::string_view message,
                                                        const observe::outcome* known);
  /// A notification this side sends: its span (a child of the request it relates to), its
  /// trace context written into `params._meta` when the message has params and no `_meta`.
  [[gnu::cold]] void observe_sent(std::string& message, const jsonrpc::request_id* related);
  /// A copy of the context of incoming request `id`'s span, to parent what it sends; inactive
  /// when none.
  [[nodiscard]] observe::span parent_of(const jsonrpc::request_id* id) const;
  [[gnu::cold]] void observe_inbound_end(observe::span& span, std::string_view why);
  /// Starts the span of an outgoing request and writes its trace context into `params._meta`.
  [[gnu::cold]] observe::span observe_outbound(std::string_view method, json::object& params,
                                               const jsonrpc::request_id* related, std::int64_t id);
  [[gnu::cold]] void observe_outbound_end(outbound& o, const result<json::object>& r);
  /// Ends the spans left at the close: those of `in` (the requests tracked then), the filed
  /// ones and the session's.
  [[gnu::cold]] void observe_close(
      std::unordered_map<jsonrpc::request_id, std::shared_ptr<inbound_request>>& in);
  /// An operation with what every one of this peer has.
  [[nodiscard]] observe::operation base_operation() const;
  /// Gives `op` (described, with the peer's attributes) its `attribute_set` number; answers
  /// its set, which keeps the span word of an observer that `spans_by_attribute_set` (null when
  /// not numbered).
  const attribute_sets_entry* number_attribute_set(observe::operation& op) noexcept;
  /// The span word kept for the set of (`side`, `method`, `target`) with this peer's other
  /// attributes; 0 when none is kept (not numbered yet, or no span seen). No lock.
  [[nodiscard]] std::uintptr_t known_span_word(observe::kind side, std::string_view method,
                                               std::string_view target) const noexcept;
  /// The set of (`side`, `method`, `target`) with this peer's other attributes; null when not
  /// numbered yet. No lock.
  [[nodiscard]] const attribute_sets_entry* known_set(observe::kind side, std::string_view method,
                                                      std::string_view target) const noexcept;
  /// `known_set` past the set found last (out of line).
  [[gnu::noinline]] const attribute_sets_entry* known_set_in_slot(
      attribute_sets& sets, observe::kind side, std::string_view method,
      std::string_view target) const noexcept;
  /// Moves the span of incoming request `id` into `to` (its record's, which holds none) if it
  /// waits among this thread's arriving requests (slot or frame); nothing otherwise. No lock.
  void take_arriving(const jsonrpc::request_id& id, observe::span& to) noexcept;
  /// Files `span` of request `id` aside (it is answered later on some thread); ends it when the
  /// peer closed meanwhile.
  [[gnu::cold]] void file_span(const jsonrpc::request_id& id, observe::span&& span);

  std::shared_ptr<connection> conn_;
  json_limits limits_;
  std::atomic<bool> closed_{false};
  std::atomic<bool> input_ended_{false};  ///< `end_input`: set under `mu_`
  /// `await_answers` waits on it (with `mu_`): notified when the last tracked request leaves
  /// `inbound_` and when the last answer being written is sent, after `end_input` only.
  std::condition_variable drained_cv_;
  /// Answers being written: requests untracked (`untrack` true) off the `drainer_` thread whose
  /// `send_final` has not returned yet, before or after `end_input`. Counted only when armed.
  std::atomic<int> answering_{0};
  std::thread::id drainer_{};  ///< `count_answers`; set before messages flow

  mutable std::mutex mu_;
  /// The incoming requests in flight (guarded by `mu_`): one in `lone_` when it is free, the
  /// others in `inbound_`. Requests mostly come one at a time (stdio, an inline tool), and then
  /// none costs a map node, a hash or the map's code.
  std::shared_ptr<inbound_request> lone_;
  std::unordered_map<jsonrpc::request_id, std::shared_ptr<inbound_request>> inbound_;
  /// No incoming request in flight (under `mu_`).
  [[nodiscard]] bool no_inbound() const noexcept { return !lone_ && inbound_.empty(); }
  /// The request in flight with `id`, or null (under `mu_`).
  [[nodiscard]] inbound_request* find_inbound(const jsonrpc::request_id& id) const;
  /// Takes the request in flight with `id` out of the record, or null (under `mu_`).
  [[nodiscard]] std::shared_ptr<inbound_request> take_inbound(const jsonrpc::request_id& id);
  /// The requests tracked that may still be held (a batch tracks several): expired ones are
  /// dropped as new ones come, so it holds at most a few more than are alive, and all of them
  /// once `inbound_released` finds none alive.
  std::vector<std::weak_ptr<inbound_request>> held_inbound_;
  std::size_t held_limit_ = 8;  ///< when `held_inbound_` drops its expired ones next
  bool record_held_ = false;    ///< `held_inbound_` is kept (record_held_requests); mu_
  std::int64_t next_id_ = 1;
  std::unordered_map<std::int64_t, outbound> outbound_;
  std::unordered_map<jsonrpc::request_id, std::shared_ptr<batch_answers>> batched_;
  std::atomic<std::size_t> open_batches_{0};

  std::shared_ptr<observe::observer> obs_;
  observe::kind side_ = observe::kind::server;
  bool reads_request_id_ = true;  ///< `observer::reads_request_id`
  bool spans_by_set_ = false;     ///< `observer::spans_by_attribute_set`
  bool roots_ = false;            ///< `observer::starts_roots`
  observe::network_transport transport_ = observe::network_transport::unknown;
  connection_facts facts_;  ///< the connection's, read at `set_observer` (not its session id)
  /// The session id: set before messages flow, replaced once when the session starts (a client
  /// learns it from the initialize answer); both strings live as long as the peer, so that it
  /// is read without a lock.
  std::atomic<const std::string*> session_id_{nullptr};
  std::unique_ptr<const std::string> first_session_id_, started_session_id_;
  /// Spans of incoming requests answered on another thread without being tracked (rare), by
  /// id; guarded by `mu_`. `filed_` counts them, read without the lock.
  std::unordered_map<jsonrpc::request_id, observe::span> filed_spans_;
  std::atomic<std::size_t> filed_{0};
  observe::span session_span_;
  bool session_observed_ = false;
  /// The numbers of this peer's attribute sets (`operation::attribute_set`, peer_observe.cpp),
  /// made at the second operation observed: a stateless request's peer sees one, and numbers
  /// nothing.
  struct attribute_sets_ptr {
    std::atomic<attribute_sets*> sets{nullptr};
    std::atomic<bool> wanted{false};  ///< an operation was observed
    attribute_sets_ptr() = default;
    attribute_sets_ptr(const attribute_sets_ptr&) = delete;
    attribute_sets_ptr& operator=(const attribute_sets_ptr&) = delete;
    ~attribute_sets_ptr();
  };
  attribute_sets_ptr attribute_sets_;
};

}  // namespace mcp::detail
