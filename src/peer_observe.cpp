// The peer's observation (see peer.hpp and mcp/observe.hpp): the span of every request and
// notification it sends or receives, with the OpenTelemetry MCP conventions' attributes; trace
// context read from incoming `params._meta` and written into outgoing requests' `_meta` (the
// session's span is in peer_observe_session.cpp). Everything here runs only when an observer is
// set.
#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "detail/hot_tls.hpp"
#include "detail/read_clock.hpp"
#include "observe/set_word.hpp"
#include "peer.hpp"
#include "peer_attribute_sets.hpp"
#include "peer_describe.hpp"
#include "peer_span.hpp"

namespace mcp::detail {

namespace {

using namespace peer_text;  // NOLINT(google-build-using-namespace): this file's own helpers

observe::network_transport transport_of(std::string_view name) noexcept {
  if (name == "pipe") return observe::network_transport::pipe;
  if (name == "tcp") return observe::network_transport::tcp;
  return observe::network_transport::unknown;
}

/// `a == b` for request ids, the usual integer ids without the variant's comparison.
[[gnu::always_inline]] inline bool same_id(const jsonrpc::request_id& a,
                                           const jsonrpc::request_id& b) noexcept {
  const auto* x = std::get_if<std::int64_t>(&a);
  const auto* y = std::get_if<std::int64_t>(&b);
  if (x != nullptr && y != nullptr) return *x == *y;
  return a == b;
}

/// An incoming request being dispatched on this thread, with its span until `track` takes it
/// or its answer ends it (innermost first: a dispatch may nest, e.g. into a twin session). A span
/// of the word form (`is_word_span`: what an observer that `spans_by_attribute_set` gives) waits
/// as its word and start alone, so that no `span` is made, moved or destroyed for it here.
struct arriving {
  const peer* owner;
  const jsonrpc::request_id* id;  ///< null: the integer id `number`
  std::int64_t number;            ///< with a null `id`
  std::uintptr_t word;            ///< the word form: non-zero while the span waits here
  std::chrono::steady_clock::time_point start;  ///< with `word`
  observe::span* span;                          ///< any other form: the span (waiting while active)
  arriving* outer;

  /// Whether a span waits here.
  [[nodiscard]] bool waits() const noexcept { return word != 0 || (span && span->active); }
  /// Whether this is request `other`.
  [[nodiscard]] bool is(const jsonrpc::request_id& other) const noexcept {
    if (id != nullptr) return same_id(*id, other);
    const auto* n = std::get_if<std::int64_t>(&other);
    return n != nullptr && *n == number;
  }
};
/// The frames of requests dispatched on this thread (innermost first), inside the one in
/// `arriving_first` if any.
MCP_HOT_TLS thread_local arriving* arriving_top = nullptr;
/// The outermost request dispatched on this thread when it has an integer id and its span the
/// word form (the usual request): kept here rather than in a frame on the stack, without its id
/// copied, so that its dispatch keeps nothing across `on_request` (empty: a null owner).
MCP_HOT_TLS thread_local arriving arriving_first{};

/// This thread's arriving request `id` of `owner` whose span waits there; null when none.
[[gnu::noinline]] arriving* arriving_of(const peer* owner, const jsonrpc::request_id& id) noexcept {
  for (auto* a = arriving_top; a != nullptr; a = a->outer) {
    if (a->owner == owner && a->waits() && a->is(id)) return a;
  }
  auto& first = arriving_first;
  return first.owner == owner && first.waits() && first.is(id) ? &first : nullptr;
}

/// `hand_over` out of line, for the spans that do not wait as a word.
[[gnu::noinline]] void hand_over_any(observe::span& to, observe::span& from) noexcept {
  hand_over(to, from);
}

/// Moves the span waiting in `a` into `to` (which holds no active span).
[[gnu::always_inline]] inline void take_span(arriving& a, observe::span& to) noexcept {
  if (a.word != 0) {
    to.word = std::exchange(a.word, 0);
    to.start = a.start;
    to.active = true;
  } else {
    hand_over_any(to, *a.span);
  }
}

/// The span of request `id` of `owner` if it waits in this thread's answering slot.
[[gnu::always_inline]] inline observe::span* answering_of(const peer* owner,
                                                          const jsonrpc::request_id& id) noexcept {
  const auto& slot = answering_slot;
  return slot.owner == owner && same_id(*slot.id, id) && slot.span->active ? slot.span : nullptr;
}

/// The request id as text without allocating (an integer id) into `buf`.
std::string_view id_text(const jsonrpc::request_id& id, std::array<char, 24>& buf,
                         std::string& spill) {
  if (const auto* n = std::get_if<std::int64_t>(&id)) {
    const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), *n);
    return {buf.data(), static_cast<std::size_t>(r.ptr - buf.data())};
  }
  spill = std::get<std::string>(id);
  return spill;
}

/// Keeps the word of `span` with its set (`word`, of `number_attribute_set`'s) when the observer
/// starts its sets' spans alike (`observer::spans_by_attribute_set`) and the span is of that
/// form: later operations of the set then start their spans without the observer.
/// `any_form`: an observer that `starts_roots`, whose every span's word is its set's.
void keep_span_word(std::atomic<std::uintptr_t>* word, const observe::span& span,
                    bool any_form) noexcept {
  if (any_form ? span.word != 0 : is_word_span(span)) {
    word->store(span.word, std::memory_order_release);
  }
}

}  // namespace

void forget_answering(const observe::span& span) noexcept {
  if (answering_slot.span == &span) answering_slot.owner = nullptr;
}

void peer::set_observer(std::shared_ptr<observe::observer> o, observe::kind side) {
  obs_ = std::move(o);
  side_ = side;
  reads_request_id_ = obs_ && obs_->reads_request_id();
  spans_by_set_ = obs_ && obs_->spans_by_attribute_set();
  roots_ = obs_ && obs_->starts_roots();
  facts_ = conn_->facts();
  transport_ = transport_of(facts_.network_transport);
  if (!facts_.session_id.empty()) {  // none for a stateless request: nothing to allocate
    first_session_id_ = std::make_unique<const std::string>(std::move(facts_.session_id));
    session_id_.store(first_session_id_.get(), std::memory_order_release);
  }
}

observe::operation peer::base_operation() const {
  observe::operation op;
  op.protocol_version = observed_version();
  // The conventions record the session id up to 2025-11-25 (a 2026-07-28 request has none).
  const auto* sid = session_id_.load(std::memory_order_acquire);
  if (sid != nullptr && !begins(op.protocol_version, "2026")) op.session_id = *sid;
  op.transport = transport_;
  op.network_protocol_name = facts_.protocol_name;
  op.network_protocol_version = facts_.protocol_version;
  op.peer_address = facts_.peer_address;
  op.peer_port = facts_.peer_port;
  return op;
}

void peer::take_arriving(const jsonrpc::request_id& id, observe::span& to) noexcept {
  // Usually the request in `arriving_first` (no frame), or else the innermost frame, with an
  // integer id: compared inline.
  const auto* n = std::get_if<std::int64_t>(&id);
  if (auto* a = arriving_top; a == nullptr) {
    auto& first = arriving_first;
    if (n != nullptr && first.word != 0 && first.number == *n && first.owner == this) [[likely]] {
      to.word = std::exchange(first.word, 0);
      to.start = first.start;
      to.active = true;
      return;
    }
  } else if (const auto* m = std::get_if<std::int64_t>(a->id);
             m != nullptr && n != nullptr && *m == *n && a->owner == this && a->waits()) {
    return take_span(*a, to);
  }
  if (auto* a = arriving_of(this, id); a != nullptr) take_span(*a, to);
}

[[gnu::always_inline]] inline void peer::dispatch_arriving(
    jsonrpc::request&& r, std::uintptr_t word, std::chrono::steady_clock::time_point start,
    observe::span* span) {
  // `r` moves on: its id is kept (an integer id without the variant's copy).
  const auto* n = std::get_if<std::int64_t>(&r.id);
  const jsonrpc::request_id id = n != nullptr ? jsonrpc::request_id(*n) : r.id;
  arriving here{.owner = this,
                .id = &id,
                .number = 0,
                .word = word,
                .start = start,
                .span = span,
                .outer = arriving_top};
  answering_slot.owner = nullptr;  // see `answering`
  {
    arriving_top = &here;
    struct pop {
      arriving& a;
      ~pop() { arriving_top = a.outer; }
    } popped{here};
    on_request(std::move(r));
  }
  // Neither tracked nor answered yet: it is answered later, from elsewhere.
  if (here.waits()) [[unlikely]] {
    observe::span s;
    take_span(here, s);
    file_span(id, std::move(s));
  }
}

void peer::dispatch_observed(jsonrpc::request&& r) {
  // A set seen before: no operation, no observer call, no span made (its word and start wait
  // in `arriving_first`, or on this thread's stack); the operation's frame is left to the
  // general way, out of line.
  if (!spans_by_set_ && !roots_) return dispatch_spanned(std::move(r), nullptr);
  const auto method_class = targeted_of(r.method);
  const auto target = target_of(method_class, r.params);
  const auto* sets = attribute_sets_.sets.load(std::memory_order_acquire);
  if (!spans_by_set_) {
    const auto* set = sets != nullptr
                          ? sets->last_entry(observe::kind::server, r.method, method_class, target)
                          : nullptr;
    if (set == nullptr) [[unlikely]] {
      set = known_set(observe::kind::server, r.method, target);
    }
    return dispatch_root(std::move(r), set);
  }
  auto word =
      sets != nullptr ? sets->last_word(observe::kind::server, r.method, method_class, target) : 0;
  if (word == 0) [[unlikely]] {
    word = known_span_word(observe::kind::server, r.method, target);
  }
  if (word == 0) return dispatch_spanned(std::move(r), nullptr);
  // The rest out of line (a local class may call what this function may), so that the usual
  // request keeps one register across `on_request` and no frame.
  struct away {
    [[gnu::noinline]] static void dispatch(peer& p, jsonrpc::request&& r, std::uintptr_t word,
                                           std::chrono::steady_clock::time_point start) {
      p.dispatch_arriving(std::move(r), word, start, nullptr);
    }
    /// Neither tracked nor answered yet: it is answered later, from elsewhere.
    [[gnu::noinline, gnu::cold]] static void file(peer& p) {
      auto& first = arriving_first;
      observe::span s;
      take_span(first, s);
      p.file_span(jsonrpc::request_id(first.number), std::move(s));
    }
  };
  const auto start = observe::now_if_unset(this_thread_read_clock.batch_start());
  auto& first = arriving_first;
  const auto* n = std::get_if<std::int64_t>(&r.id);
  if (n == nullptr || first.owner != nullptr || arriving_top != nullptr) [[unlikely]] {
    return away::dispatch(*this, std::move(r), word, start);
  }
  first.owner = this;
  first.number = *n;
  first.word = word;
  first.start = start;
  answering_slot.owner = nullptr;  // see `answering`
  struct clear {
    ~clear() { arriving_first.owner = nullptr; }
  } cleared;
  on_request(std::move(r));
  if (first.word != 0) [[unlikely]]
    away::file(*this);
}

bool peer::served_elsewhere(const jsonrpc::request&) const noexcept { return false; }

void peer::drop_arriving_word(const jsonrpc::request_id& id) noexcept {
  if (auto* a = arriving_of(this, id); a != nullptr) a->word = 0;
}

void peer::dispatch_root(jsonrpc::request&& r, const attribute_sets_entry* set) {
  // Without `_meta` (`small_member`), neither served elsewhere nor a trace context. No parent: a
  // new trace, begun without the operation: from what the observer resolved for the set, with
  // this peer's attributes and an integer id (a span the observer records else asks for it).
  if (const auto* meta = small_member(r.params, "_meta"); meta != nullptr) {
    if (served_elsewhere(r)) return on_request(std::move(r));
    if (carries_trace_context(*meta)) return dispatch_spanned(std::move(r), nullptr);
  }
  observe::root_start root{.start = this_thread_read_clock.batch_start()};
  if (set != nullptr) {
    root.word = set->span_word.load(std::memory_order_acquire);
    const auto* n = std::get_if<std::int64_t>(&r.id);
    if (n != nullptr) root.set = set->root_word.load(std::memory_order_acquire);
    if (root.set != 0) {
      root.request_id = *n;
      // As `base_operation` has them.
      const auto* sid = session_id_.load(std::memory_order_acquire);
      if (sid != nullptr && !begins(observed_version(), "2026")) root.session_id = *sid;
      root.peer_address = facts_.peer_address;
      root.peer_port = facts_.peer_port;
    }
  }
  observe::span span = obs_->start_root(root);
  if (!span) return dispatch_spanned(std::move(r), span.context.valid() ? &span.context : nullptr);
  dispatch_arriving(std::move(r), 0, {}, &span);
}

void peer::dispatch_spanned(jsonrpc::request&& r, const observe::trace_context* root) {
  // A new trace's `root` comes from `dispatch_root`, which asked already.
  if (root == nullptr && served_elsewhere(r)) return on_request(std::move(r));
  observe::span span = observe_request(r, root);
  if (!span) return on_request(std::move(r));
  if (is_word_span(span)) {  // the word says it all: it waits as the known sets' spans do
    span.active = false;
    return dispatch_arriving(std::move(r), span.word, span.start, nullptr);
  }
  dispatch_arriving(std::move(r), 0, {}, &span);
}

void peer::file_span(const jsonrpc::request_id& id, observe::span&& span) {
  observe::span s = std::exchange(span, {});
  std::unique_lock lock(mu_);
  if (closed_.load()) {
    lock.unlock();
    obs_->on_end(s, {.status = observe::status::failed, .error_type = "connection_closed"});
    return;
  }
  if (auto [it, fresh] = filed_spans_.try_emplace(id, std::move(s)); fresh) {
    filed_.fetch_add(1, std::memory_order_release);
    return;
  }
  lock.unlock();  // a duplicate id: it is refused (-32600); its own span ends now
  obs_->on_end(
      s, {.status = observe::status::rpc_error, .code = static_cast<int>(errc::invalid_request)});
}

observe::trace_context peer::trace_of(const jsonrpc::request_id& id) const {
  if (!obs_) return {};
  return parent_of(&id).context;
}

observe::span peer::observe_request(const jsonrpc::request& r, const observe::trace_context* root) {
  auto op = base_operation();
  op.side = observe::kind::server;  // received
  op.root = root;
  describe_received(op, r.method, r.params);
  const auto* set = number_attribute_set(op);
  op.start = this_thread_read_clock.batch_start();
  std::array<char, 24> buf;  // NOLINT: written by to_chars before it is read
  std::string spill;
  if (reads_request_id_) op.request_id = id_text(r.id, buf, spill);
  auto span = obs_->on_start(op);
  if (set == nullptr || !(spans_by_set_ || roots_)) return span;
  keep_span_word(&set->span_word, span, roots_);
  // A resource's URI is its own per call: its new traces keep the operation.
  if (roots_ && set->root_word.load(std::memory_order_relaxed) == 0 &&
      !has_resource_uri(op.method)) {
    set->root_word.store(obs_->root_word(op), std::memory_order_release);
  }
  return span;
}

void peer::observe_notification(const jsonrpc::notification& n) {
  if (spans_by_set_) {
    if (const auto word = known_span_word(observe::kind::server, n.method,
                                          target_of(targeted_of(n.method), n.params));
        word != 0) {
      auto span = span_of_word(word, this_thread_read_clock.batch_start());
      obs_->on_end(span, {.end = span.start});
      return;
    }
  }
  auto op = base_operation();
  op.side = observe::kind::server;  // received
  describe_received(op, n.method, n.params);
  const auto* set = number_attribute_set(op);
  // A notification's span ends where it starts: one clock reading (none in a batch) for both.
  op.start = this_thread_read_clock.batch_start();
  if (op.start == std::chrono::steady_clock::time_point{})
    op.start = std::chrono::steady_clock::now();
  auto span = obs_->on_start(op);
  if (spans_by_set_ && set != nullptr) keep_span_word(&set->span_word, span, false);
  if (span) obs_->on_end(span, {.end = op.start});
}

void peer::observe_answer(const jsonrpc::request_id& id, std::string_view message,
                          observe::outcome* known) {
  // Usually the request untracked just now, with its outcome known: its span ends where it
  // waits, with the sender's outcome given its end (no copy and no frame; the rest is out of
  // line). An integer id compared without a call.
  const auto& slot = answering_slot;
  const auto* n = std::get_if<std::int64_t>(&id);
  const auto* m = slot.owner == this ? std::get_if<std::int64_t>(slot.id) : nullptr;
  auto* held = slot.span;
  if (known == nullptr || m == nullptr || n == nullptr || *m != *n || !held->active) [[unlikely]] {
    return observe_answer_away(id, message, known);
  }
  answering_slot.owner = nullptr;  // the answer after `untrack` is this one
  known->end = this_thread_read_clock.end_now();
  obs_->on_end(*held, *known);
  held->active = false;
}

void peer::observe_answer_away(const jsonrpc::request_id& id, std::string_view message,
                               const observe::outcome* known) {
  observe::span* held = answering_of(this, id);  // untracked just now: it ends where it waits
  answering_slot.owner = nullptr;                // the answer after `untrack` is this one
  observe::span span;
  if (held == nullptr) {
    if (auto* a = arriving_of(this, id); a != nullptr) {  // answered before it was tracked
      take_span(*a, span);
    } else if (filed_.load(std::memory_order_acquire) > 0) {
      std::lock_guard lock(mu_);
      auto it = filed_spans_.find(id);
      if (it == filed_spans_.end()) return;
      hand_over(span, it->second);
      filed_spans_.erase(it);
      filed_.fetch_sub(1, std::memory_order_release);
    }
    if (!span) return;
    held = &span;
  }
  const auto o = answer_ended(known, message);
  obs_->on_end(*held, o);
  held->active = false;
}

void peer::observe_inbound_end(observe::span& span, std::string_view why) {
  obs_->on_end(span, {.status = observe::status::failed, .error_type = why});
}

observe::span peer::parent_of(const jsonrpc::request_id* id) const {
  observe::span parent;  // a copy: the request's own span may end meanwhile
  if (id == nullptr) return parent;
  const auto copy = [&parent](const observe::span& s) {
    parent.context = s.context;
    parent.baggage = s.baggage;
    parent.active = true;
  };
  if (const auto* held = answering_of(this, *id); held != nullptr) {
    copy(*held);
    return parent;
  }
  if (const auto* a = arriving_of(this, *id); a != nullptr) {
    if (a->span != nullptr) {
      copy(*a->span);
    } else {
      parent.active = true;  // the word form: no context, no baggage
    }
    return parent;
  }
  std::lock_guard lock(mu_);
  if (const auto* r = find_inbound(*id); r != nullptr && r->span_) {
    copy(r->span_);
  } else if (auto f = filed_spans_.find(*id); f != filed_spans_.end()) {
    copy(f->second);
  }
  return parent;
}

void peer::observe_sent(std::string& message, const jsonrpc::request_id* related) {
  // Notifications this side sends: `{"jsonrpc":"2.0","method":"...`, as the encoder writes them.
  constexpr std::string_view prefix = R"({"jsonrpc":"2.0","method":")";
  if (!std::string_view(message).starts_with(prefix)) return;  // an answer, or a batch
  const auto end = message.find('"', prefix.size());
  if (end == std::string::npos) return;
  auto op = base_operation();
  op.side = observe::kind::client;  // sent
  op.method = std::string_view(message).substr(prefix.size(), end - prefix.size());
  number_attribute_set(op);
  const auto parent = parent_of(related);
  if (parent) op.parent = &parent;
  auto span = obs_->on_start(op);
  if (!span) return;
  // The encoder writes `,"params":{` right after the method; a message that has a `_meta`
  // anywhere already is left as it is (no second member of that name).
  constexpr std::string_view params_key = R"(,"params":{)";
  if (span.context.valid() && message.compare(end + 1, params_key.size(), params_key) == 0 &&
      message.find(R"("_meta":)") == std::string::npos) {
    json::object meta;
    obs_->inject(span, meta);
    if (!meta.empty()) {
      const auto at = end + 1 + params_key.size();
      std::string member = R"("_meta":)" + to_json_string(meta);
      if (message[at] != '}') member += ',';
      message.insert(at, member);
    }
  }
  obs_->on_end(span, {});
}

observe::span peer::observe_outbound(std::string_view method, json::object& params,
                                     const jsonrpc::request_id* related, std::int64_t id) {
  if (spans_by_set_) {
    const auto word =
        known_span_word(observe::kind::client, method, target_of(targeted_of(method), params));
    if (word != 0) return span_of_word(word, {});
  }
  auto op = base_operation();
  op.side = observe::kind::client;  // sent
  describe(op, method, params);
  const auto* set = number_attribute_set(op);
  std::array<char, 24> buf;  // NOLINT: written by to_chars before it is read
  if (reads_request_id_) {
    const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), id);
    op.request_id = {buf.data(), static_cast<std::size_t>(r.ptr - buf.data())};
  }
  const auto parent = parent_of(related);  // the incoming request this one is made for
  if (parent) op.parent = &parent;
  auto span = obs_->on_start(op);
  if (spans_by_set_ && set != nullptr) keep_span_word(&set->span_word, span, false);
  if (span && span.context.valid()) {
    auto& meta = params["_meta"];
    if (!meta.is_object()) meta.emplace_object();
    obs_->inject(span, meta.get_object());
  }
  return span;
}

}  // namespace mcp::detail
