#include "peer.hpp"

#include <algorithm>
#include <utility>

#include "detail/answer_wait.hpp"
#include "detail/call_scan.hpp"
#include "detail/message_storage.hpp"
#include "detail/timer.hpp"
#include "peer_span.hpp"

namespace mcp::detail {

namespace {
/// The peer whose answer this thread writes next, counted in its `answering_`: set by
/// `peer::untrack` of a peer that counts answers, cleared by `peer::send_final` (the answer of an
/// untracked request follows on the same thread).
thread_local const peer* owing_peer = nullptr;

error closed_error() { return error{errc::connection_closed, "the session has ended"}; }
}  // namespace

peer::peer(std::shared_ptr<connection> conn, json_limits limits)
    : conn_(std::move(conn)), limits_(limits) {}

peer::~peer() = default;

// ---- receiving ----

void peer::receive_text(std::string_view text) {
  if (closed_.load()) return;
  // The commonest message, a plain tools/call, is read without building its document first.
  if (jsonrpc::message call; scan_tool_call(text, limits_, call)) {
    dispatch(std::move(call));
    return;
  }
  auto parsed = parse_json(text, limits_, make_message_storage());
  if (!parsed) {
    const auto code =
        parsed.error().is(errc::limit_exceeded) ? errc::invalid_request : errc::parse_error;
    on_invalid(error{code, parsed.error().message}, std::nullopt);
    return;
  }
  if (parsed->is_array()) {
    receive_batch(std::move(parsed->get_array()));
    return;
  }
  auto m = jsonrpc::decode(std::move(*parsed));
  if (!m) {
    on_invalid(m.error().err, m.error().id);
    return;
  }
  dispatch(std::move(*m));
}

void peer::receive_message(jsonrpc::message&& m) {
  if (closed_.load()) return;
  dispatch(std::move(m));
}

void peer::on_invalid(const error& e, const std::optional<jsonrpc::request_id>& id) {
  // An error for a readable id belongs to that request (HTTP puts it on its stream).
  if (id) return reply_error(*id, e);
  send(jsonrpc::encode_error(std::nullopt, e));
}

void peer::dispatch(jsonrpc::message&& m) {
  if (auto* rq = std::get_if<jsonrpc::request>(&m)) {
    if (obs_) [[unlikely]] {
      return dispatch_observed(std::move(*rq));
    }
    on_request(std::move(*rq));
  } else if (auto* n = std::get_if<jsonrpc::notification>(&m)) {
    if (obs_) [[unlikely]] {
      observe_notification(*n);
    }
    if (auto id = jsonrpc::cancelled_request(n->method, n->params)) {
      on_cancelled(*id);
    } else if (n->method == "notifications/progress") {
      on_progress(n->params);
    }
    on_notification(std::move(*n));
  } else if (auto* r = std::get_if<jsonrpc::response>(&m)) {
    on_response(std::move(*r));
  }
  // An orphan error (a response without id) answers nothing we can match: dropped.
}

/// A batch received as text (2025-03-26) is answered with one array once each request in it is
/// answered or cancelled (JSON-RPC 2.0 section 6). Transports that decode messages themselves
/// (Streamable HTTP) pass them one by one and build their own array.
void peer::receive_batch(json::array&& batch) {
  if (auto refused = batch_refused()) {
    send(jsonrpc::encode_error(std::nullopt, error{errc::invalid_request, std::move(*refused)}));
    return;
  }
  if (batch.empty()) {
    send(jsonrpc::encode_error(std::nullopt,
                               error{errc::invalid_request, "Invalid Request: empty batch"}));
    return;
  }
  auto answers = std::make_shared<batch_answers>();
  std::vector<jsonrpc::message> messages;
  messages.reserve(batch.size());
  for (auto& v : batch) {
    auto m = jsonrpc::decode(std::move(v));
    if (!m) {
      answers->answers.push_back(jsonrpc::encode_error(m.error().id, m.error().err));
    } else {
      messages.push_back(std::move(*m));
    }
  }
  {
    std::lock_guard lock(mu_);
    for (const auto& m : messages) {
      const auto* rq = std::get_if<jsonrpc::request>(&m);
      // A request whose id is already waiting (a duplicate) is answered on its own.
      if (rq != nullptr && batched_.emplace(rq->id, answers).second) ++answers->waiting;
    }
    if (answers->waiting > 0) open_batches_.fetch_add(1, std::memory_order_release);
  }
  if (answers->waiting == 0) {
    auto all = jsonrpc::encode_batch(answers->answers);  // only notifications and invalid entries
    if (!all.empty()) send(std::move(all));
  }
  for (auto& m : messages) dispatch(std::move(m));
}

// ---- answering ----

bool peer::track(const std::shared_ptr<inbound_request>& r) {
  {
    std::lock_guard lock(mu_);
    if (closed_.load()) return false;
    if (find_inbound(r->id()) == nullptr) {
      if (!lone_) {
        lone_ = r;
      } else {
        inbound_.emplace(r->id(), r);
      }
      if (record_held_) {
        if (held_inbound_.size() >= held_limit_) {  // amortized: the limit doubles with the live
          std::erase_if(held_inbound_, [](const auto& w) { return w.expired(); });
          held_limit_ = std::max<std::size_t>(8, 2 * held_inbound_.size());
        }
        held_inbound_.push_back(r);
      }
      if (obs_) [[unlikely]] {
        // The span waits among this thread's arriving requests (it is being dispatched here).
        take_arriving(r->id(), r->span_);
      }
      return true;
    }
  }
  reply_error(r->id(),
              error{errc::invalid_request, "Invalid Request: id " + jsonrpc::to_string(r->id()) +
                                               " is already in use by a running request"});
  return false;
}

inbound_request* peer::find_inbound(const jsonrpc::request_id& id) const {
  if (lone_ && lone_->id() == id) return lone_.get();
  if (inbound_.empty()) return nullptr;
  auto it = inbound_.find(id);
  return it == inbound_.end() ? nullptr : it->second.get();
}

std::shared_ptr<inbound_request> peer::take_inbound(const jsonrpc::request_id& id) {
  if (lone_ && lone_->id() == id) return std::move(lone_);
  if (inbound_.empty()) return nullptr;
  auto it = inbound_.find(id);
  if (it == inbound_.end()) return nullptr;
  auto r = std::move(it->second);
  inbound_.erase(it);
  return r;
}

bool peer::untrack(const inbound_request& r) {
  std::lock_guard lock(mu_);
  if (lone_.get() == &r) {
    lone_.reset();  // the caller holds the request: not its last reference
  } else {
    auto it = inbound_.empty() ? inbound_.end() : inbound_.find(r.id());
    if (it == inbound_.end() || it->second.get() != &r) return false;  // cancelled or closed
    inbound_.erase(it);
  }
  const bool answered = !r.cancelled();
  if (answered && drainer_ != std::thread::id{} && drainer_ != std::this_thread::get_id()) {
    // The answer follows on this thread (`send_final`), which counts it written.
    answering_.fetch_add(1, std::memory_order_relaxed);
    owing_peer = this;
  }
  if (input_ended_.load(std::memory_order_relaxed)) [[unlikely]] {
    untracked_after_input();
  }
  if (obs_ && r.span_) [[unlikely]] {
    // The answer follows on this thread (`send_final`): the span waits for it in the record.
    answering_slot = {.owner = this, .id = &r.id(), .span = &r.span_};
  }
  return answered;
}

void peer::send_final(const jsonrpc::request_id& id, std::string message, observe::outcome* known) {
  if (obs_) [[unlikely]] {
    observe_answer(id, message, known);
  }
  std::string batch;
  if (settle_batched(id, &message, batch)) {
    if (!batch.empty()) send(std::move(batch));
  } else {
    send_context ctx{
        .related_request = &id,
        .is_final_response = true,
        .is_result = known != nullptr && (known->status == observe::status::ok ||
                                          known->status == observe::status::tool_error)};
    conn_->send(std::move(message), ctx);
  }
  if (drainer_ != std::thread::id{} && owing_peer == this) {
    owing_peer = nullptr;
    if (answering_.fetch_sub(1, std::memory_order_acq_rel) == 1 &&
        input_ended_.load(std::memory_order_relaxed)) [[unlikely]] {
      answered_after_input();
    }
  }
}

void peer::reply(const jsonrpc::request_id& id, const json::value& result) {
  send_final(id, jsonrpc::encode_result(id, result));
}

void peer::reply_error(const jsonrpc::request_id& id, const error& e) {
  send_final(id, jsonrpc::encode_error(id, e));
}

void peer::send(std::string message, const jsonrpc::request_id* related) {
  if (closed_.load()) return;
  if (obs_) [[unlikely]] {
    observe_sent(message, related);
  }
  conn_->send(std::move(message), send_context{.related_request = related});
}

void peer::send_cancellation(const jsonrpc::request_id& id, std::string_view reason) {
  send_cancellation(jsonrpc::encode_notification(
                        "notifications/cancelled",
                        json::object{{"requestId", jsonrpc::id_to_json(id)}, {"reason", reason}}),
                    id);
}

void peer::send_cancellation(std::string message, const jsonrpc::request_id& id) {
  if (closed_.load()) return;
  conn_->send(std::move(message), send_context{.cancels = &id});
}

/// Files the answer to `id` (null: the request was cancelled and gets none) with the batch it
/// came in. False when `id` is not waiting in a batch. When it completes the batch, `out` is
/// the batch's answer: a JSON array, or empty when no request in it was answered.
bool peer::settle_batched(const jsonrpc::request_id& id, std::string* answer, std::string& out) {
  if (open_batches_.load(std::memory_order_acquire) == 0) return false;
  std::lock_guard lock(mu_);
  auto it = batched_.find(id);
  if (it == batched_.end()) return false;
  auto b = std::move(it->second);
  batched_.erase(it);
  if (answer != nullptr) b->answers.push_back(std::move(*answer));
  if (--b->waiting == 0) {
    open_batches_.fetch_sub(1, std::memory_order_release);
    out = jsonrpc::encode_batch(b->answers);
  }
  return true;
}

void peer::on_cancelled(const jsonrpc::request_id& id) {
  std::shared_ptr<inbound_request> r;
  observe::span span;
  {
    std::lock_guard lock(mu_);
    r = take_inbound(id);
    if (!r) return;  // unknown or finished: ignored (REQ-101)
    if (input_ended_.load(std::memory_order_relaxed)) [[unlikely]] {
      untracked_after_input();
    }
    span = std::exchange(r->span_, {});
  }
  r->cancelled_.store(true);
  r->stop_.request_stop();
  if (span) [[unlikely]] {
    observe_inbound_end(span, "cancelled");
  }
  std::string batch;  // the cancelled request leaves its batch slot unanswered
  if (settle_batched(id, nullptr, batch) && !batch.empty()) send(std::move(batch));
}

std::size_t peer::requests_in_flight() const {
  std::lock_guard lock(mu_);
  return inbound_.size() + (lone_ ? 1 : 0);
}

void peer::end_input() {
  std::unordered_map<std::int64_t, outbound> out;
  {
    std::lock_guard lock(mu_);
    if (input_ended_.exchange(true, std::memory_order_relaxed)) return;
    out.swap(outbound_);
  }
  fail_outbound(out);
}

std::vector<jsonrpc::request_id> peer::await_answers(std::chrono::steady_clock::time_point until,
                                                     std::chrono::milliseconds settle) {
  std::unique_lock lock(mu_);
  if (drained_cv_.wait_until(lock, until, [this] { return only_open_ended(); })) {
    const auto settled = std::min(until, std::chrono::steady_clock::now() + settle);
    (void)drained_cv_.wait_until(
        lock, settled, [this] { return answering_.load(std::memory_order_acquire) <= 0; });
  }
  std::vector<jsonrpc::request_id> left;
  if (lone_ && !lone_->open_ended) left.push_back(lone_->id());
  for (const auto& [id, r] : inbound_) {
    if (!r->open_ended) left.push_back(id);
  }
  return left;
}

bool peer::only_open_ended() const noexcept {
  if (lone_ && !lone_->open_ended) return false;
  return std::all_of(inbound_.begin(), inbound_.end(),
                     [](const auto& in) { return in.second->open_ended; });
}

void peer::untracked_after_input() {
  if (only_open_ended()) drained_cv_.notify_all();
}

void peer::answered_after_input() {
  { std::lock_guard lock(mu_); }  // a waiter between its check and its sleep sees the count
  drained_cv_.notify_all();
}

void peer::fail_outbound(std::unordered_map<std::int64_t, outbound>& out) {
  for (auto& [id, o] : out) {
    if (o.timer != 0) cancel_timer(o.timer);
    result<json::object> ended = closed_error();
    if (obs_ && o.span) [[unlikely]] {
      observe_outbound_end(o, ended);
    }
    o.done(std::move(ended));
  }
}

void peer::record_held_requests() {
  std::lock_guard lock(mu_);
  record_held_ = true;
}

bool peer::inbound_released() {
  std::lock_guard lock(mu_);
  if (!record_held_ || !no_inbound() ||
      !std::all_of(held_inbound_.begin(), held_inbound_.end(),
                   [](const auto& w) { return w.expired(); })) {
    return false;
  }
  held_inbound_.clear();
  return true;
}

// ---- outgoing ----

std::int64_t peer::request_async(std::string_view method, json::object params,
                                 outbound_options opts, outbound_callback done) {
  const auto now = std::chrono::steady_clock::now();
  std::int64_t id = 0;
  {
    std::unique_lock lock(mu_);
    if (closed_.load() || input_ended_.load(std::memory_order_relaxed)) {
      lock.unlock();
      done(closed_error());
      return 0;
    }
    id = next_id_++;
    outbound o;
    if (obs_) [[unlikely]] {
      lock.unlock();  // the observer runs without the peer's lock
      o.span = observe_outbound(method, params, opts.related, id);
      lock.lock();
      if (closed_.load() || input_ended_.load(std::memory_order_relaxed)) {  // meanwhile
        lock.unlock();
        result<json::object> closed = closed_error();
        observe_outbound_end(o, closed);
        done(std::move(closed));
        return 0;
      }
    }
    o.done = std::move(done);
    o.method = std::string(method);
    o.timeout = opts.timeout;
    o.max_total = opts.max_total;
    o.deadline = now + opts.timeout;
    o.hard_deadline = opts.max_total.count() > 0 ? now + opts.max_total
                                                 : std::chrono::steady_clock::time_point::max();
    o.reset_on_progress = opts.reset_on_progress;
    if (opts.on_progress) {
      o.on_progress = std::move(opts.on_progress);
      auto& meta = params["_meta"];
      if (!meta.is_object()) meta = json::object{};
      meta.get_object()["progressToken"] = id;
    }
    outbound_.emplace(id, std::move(o));
  }
  if (opts.on_sent) opts.on_sent(id);
  const jsonrpc::request_id rid = id;
  arm_timer(id, std::min(now + opts.timeout, opts.max_total.count() > 0
                                                 ? now + opts.max_total
                                                 : std::chrono::steady_clock::time_point::max()));
  if (!closed_.load()) {
    conn_->send(jsonrpc::encode_request(id, method, params),
                send_context{.related_request = opts.related,
                             .request = &rid,
                             .sender_waits = opts.sender_waits,
                             .headers = opts.headers});
  }
  return id;
}

void peer::arm_timer(std::int64_t id, std::chrono::steady_clock::time_point when) {
  std::weak_ptr<peer> self = weak_from_this();
  const auto handle = schedule_timer(when, [self, id] {
    if (auto p = self.lock()) p->expire(id);
  });
  std::lock_guard lock(mu_);
  auto it = outbound_.find(id);
  if (it == outbound_.end()) {
    cancel_timer(handle);  // answered already
    return;
  }
  it->second.timer = handle;
}

void peer::expire(std::int64_t id) {
  outbound o;
  std::optional<std::chrono::steady_clock::time_point> rearm;
  {
    std::lock_guard lock(mu_);
    auto it = outbound_.find(id);
    if (it == outbound_.end()) return;
    const auto due = std::min(it->second.deadline, it->second.hard_deadline);
    if (std::chrono::steady_clock::now() < due) {
      it->second.timer = 0;  // progress moved the deadline: wait again
      rearm = due;
    } else {
      o = std::move(it->second);
      outbound_.erase(it);
    }
  }
  if (rearm) return arm_timer(id, *rearm);
  // The waiter first, then the peer: a transport carrying the request on the waiter's thread
  // ends that exchange at the cancellation, and the waiter must not wait for that message.
  const bool hard = o.hard_deadline <= o.deadline;
  const auto limit = hard ? o.max_total : o.timeout;
  result<json::object> timed_out = error{
      errc::request_timeout, o.method + " got no answer within " + std::to_string(limit.count()) +
                                 " ms" + (hard ? " (its hard maximum)" : "")};
  if (o.span) observe_outbound_end(o, timed_out);
  o.done(std::move(timed_out));
  send_cancellation(id, "timed out");
}

void peer::on_progress(const json::object& params) {
  const auto* tok = params.if_contains("progressToken");
  if (tok == nullptr || !tok->is_int64()) return;
  std::function<void(const json::object&)> cb;
  {
    std::lock_guard lock(mu_);
    auto it = outbound_.find(tok->get_int64());
    if (it == outbound_.end()) return;
    auto& o = it->second;
    if (o.reset_on_progress) o.deadline = std::chrono::steady_clock::now() + o.timeout;
    cb = o.on_progress;
  }
  if (cb) cb(params);
}

void peer::on_response(jsonrpc::response&& r) {
  const auto* id = std::get_if<std::int64_t>(&r.id);
  if (!id) return;  // not one of ours (our ids are integers)
  if (r.err) {
    (void)finish_outbound(*id, std::move(*r.err));
  } else if (r.result && r.result->is_object()) {
    (void)finish_outbound(*id, std::move(r.result->get_object()));
  } else {
    (void)finish_outbound(*id, error{errc::invalid_request, "the peer's result is not an object"});
  }
}

bool peer::finish_outbound(std::int64_t id, result<json::object> outcome) {
  outbound o;
  {
    std::lock_guard lock(mu_);
    auto it = outbound_.find(id);
    if (it == outbound_.end()) return false;  // late, unknown or timed out already: ignored
    o = std::move(it->second);
    outbound_.erase(it);
  }
  if (o.timer != 0) cancel_timer(o.timer);
  if (o.span) observe_outbound_end(o, outcome);
  o.done(std::move(outcome));
  return true;
}

void peer::cancel_outbound(std::int64_t id, std::string_view reason) {
  // The waiter first, then the peer (as in `expire`); nothing when it was answered already.
  if (!finish_outbound(id, error{errc::cancelled, "the request was cancelled"})) return;
  send_cancellation(id, reason);
}

result<json::object> peer::request(std::string_view method, json::object params,
                                   outbound_options opts, std::stop_token stop,
                                   std::string_view stop_reason) {
  enum : int { answered = 1, stopped = 2 };
  struct waiter {
    answer_wait state;
    std::optional<result<json::object>> outcome;  // set once, before `state` says answered
  };
  auto w = std::make_shared<waiter>();
  // A stop is observed only while waiting here, so the exchange may then not run on this thread.
  opts.sender_waits = !stop.stop_possible();
  const auto id =
      request_async(method, std::move(params), std::move(opts), [w](result<json::object> r) {
        w->outcome = std::move(r);
        w->state.set(answered);
      });
  std::stop_callback on_stop(stop, [&w] { (void)w->state.set_if(answer_wait::pending, stopped); });
  if (w->state.wait_while(answer_wait::pending) == answered) return std::move(*w->outcome);
  cancel_outbound(id, stop_reason);
  (void)w->state.wait_while(stopped);  // cancelled, or answered meanwhile
  if (w->outcome->has_error() && w->outcome->error().is(errc::cancelled)) {
    return error{errc::cancelled, std::string(method) + " was cancelled"};
  }
  return std::move(*w->outcome);
}

// ---- close ----

void peer::close_peer() {
  if (closed_.exchange(true)) return;
  std::unordered_map<jsonrpc::request_id, std::shared_ptr<inbound_request>> in;
  std::unordered_map<std::int64_t, outbound> out;
  {
    std::lock_guard lock(mu_);
    in.swap(inbound_);
    if (lone_) {
      auto id = lone_->id();
      in.emplace(std::move(id), std::move(lone_));
    }
    out.swap(outbound_);
  }
  drained_cv_.notify_all();  // an `await_answers` ends: nothing is left to answer
  for (auto& [id, r] : in) {
    r->cancelled_.store(true);
    r->stop_.request_stop();
  }
  fail_outbound(out);
  if (obs_) [[unlikely]] {
    observe_close(in);
  }
  conn_->close();
}

}  // namespace mcp::detail
