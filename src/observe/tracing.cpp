// The span recorder and the callback observer (mcp/observe/tracing.hpp).
#include <mcp/observe/tracing.hpp>

#include <array>
#include <stdexcept>
#include <variant>

#include "observe/recycle.hpp"
#include "observe/span_ids.hpp"
#include "observe/span_node.hpp"
#include "observe/span_shapes.hpp"

namespace mcp::observe {
namespace {

using steady = std::chrono::steady_clock;

/// Unix time of a steady-clock reading: the offset between the two clocks is taken once per
/// tracer (as OpenTelemetry SDKs anchor span times), so a span costs two clock reads, and none
/// when the engine gives its own.
class unix_clock {
 public:
  unix_clock()
      : offset_ns_(
            std::chrono::duration_cast<std::chrono::nanoseconds>(
                std::chrono::system_clock::now().time_since_epoch())
                .count() -
            std::chrono::duration_cast<std::chrono::nanoseconds>(steady::now().time_since_epoch())
                .count()) {}

  [[nodiscard]] std::uint64_t at(steady::time_point t) const {
    const auto ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count() +
        offset_ns_;
    return ns < 0 ? 0 : static_cast<std::uint64_t>(ns);
  }

 private:
  std::int64_t offset_ns_;
};

/// The parent of an operation: the in-process span it runs within, else the context its
/// message carried; with the baggage to pass on.
struct parent_info {
  trace_context context;
  bool remote = false;
  std::string baggage;
};

/// Whether `op` may have a parent (else it starts a new trace: the usual case of a peer that
/// does not trace, where `find_parent` is not asked).
bool may_have_parent(const operation& op) noexcept {
  return op.parent != nullptr || !op.remote.traceparent.empty() || !op.remote.baggage.empty();
}

parent_info find_parent(const operation& op) {
  parent_info p;
  if (op.parent != nullptr && op.parent->context.valid()) {
    p.context = op.parent->context;
    p.baggage = op.parent->baggage;
    return p;
  }
  p.context = remote_parent(op.remote, &p.baggage);
  p.remote = p.context.valid();
  return p;
}

class tracer final : public observer {
 public:
  explicit tracer(tracer_options opts) : opts_(std::move(opts)) {
    if (!opts_.sink) throw std::invalid_argument("make_tracer: the sink is empty");
    if (!(opts_.root_sample_ratio >= 0 && opts_.root_sample_ratio <= 1)) {
      throw std::invalid_argument("make_tracer: root_sample_ratio must be in [0, 1]");
    }
  }

  // An unsampled span (its parent's flag 00, or a new trace the ratio left out) gets its ids,
  // to propagate and to correlate logs with, and nothing else: no clock read, no shape, no
  // record; `on_end` finds no state and returns.
  span on_start(const operation& op) override {
    span s;
    s.active = true;
    s.start = op.start;
    trace_context& ctx = s.context;
    if (op.root != nullptr && op.root->valid()) {  // a new trace `start_root` decided
      ctx.trace_id = op.root->trace_id;
      ctx.span_id = op.root->span_id;
      ctx.flags = op.root->flags;
      if (ctx.sampled()) record(op, s, nullptr);
      return s;
    }
    if (!may_have_parent(op)) {  // a new trace: no parent to look for, none to record
      new_root(ctx);
      if (ctx.sampled()) record(op, s, nullptr);
      return s;
    }
    auto parent = find_parent(op);
    if (parent.context.valid()) {
      ctx.trace_id = parent.context.trace_id;
      ctx.flags = parent.context.flags;
      if (!parent.context.trace_state.empty()) ctx.trace_state = parent.context.trace_state;
      detail::fast_ids(nullptr, ctx.span_id);
    } else {
      new_root(ctx);
    }
    if (!parent.baggage.empty()) s.baggage = std::move(parent.baggage);
    if (ctx.sampled()) record(op, s, parent.context.valid() ? &parent : nullptr);
    return s;
  }

  // Its spans have no word (the engine keeps none for it); a set's root word is its shape.
  [[nodiscard]] bool starts_roots() const noexcept override { return true; }

  // The set's shape when interned (kept for the process's life, as the root word must be); a
  // resource's operation has its URI per call, and keeps the operation.
  std::uintptr_t root_word(const operation& op) override {
    if (op.side != kind::server || op.attribute_set == 0 || !op.resource_uri.empty()) return 0;
    const auto shape = detail::interned_shape(op);
    return shape && shape.use_count() == 0 ? reinterpret_cast<std::uintptr_t>(shape.get()) : 0;
  }

  // An unsampled new trace: its ids alone (no clock read, as in `on_start`). A sampled one is
  // recorded from its set's shape, else asks for the operation.
  span start_root(const root_start& r) override {
    span s;
    s.start = r.start;
    new_root(s.context);
    s.active = !s.context.sampled() || r.set != 0;
    if (s.active && s.context.sampled()) {
      s.start = now_if_unset(r.start);
      // An interned shape (`root_word`) owns nothing: its pointer is not counted.
      const auto* shape = reinterpret_cast<const span_shape*>(r.set);
      write_record(s, std::shared_ptr<const span_shape>(std::shared_ptr<const span_shape>(), shape),
                   nullptr,
                   {.request_id = r.request_id,
                    .session_id = r.session_id,
                    .peer_address = r.peer_address,
                    .peer_port = r.peer_port});
    }
    return s;
  }

  void on_end(span& s, const outcome& o) override {
    s.active = false;
    if (!s.state) return;
    detail::record_ptr rec(static_cast<span_record*>(s.state.release()));
    auto& r = *rec;
    r.end_unix_ns = std::max(r.start_unix_ns, clock_.at(now_if_unset(o.end)));
    if (o.status == status::ok) {  // the usual end: nothing to classify
      r.error_type.clear();
      r.status_code.clear();
      r.status = span_status::unset;
      r.status_message.clear();
    } else {
      auto c = classify(r.side(), o);
      r.error_type = std::move(c.error_type);
      r.status_code = std::move(c.status_code);
      r.status = c.error ? span_status::error : span_status::unset;
      set_text(r.status_message,
               c.error && o.status == status::rpc_error ? o.message : std::string_view());
    }
    try {
      opts_.sink(std::move(rec));
    } catch (...) {  // NOLINT(bugprone-empty-catch): a sink must not throw; the span is lost
    }
  }

 private:
  /// A sampled span's record, as its state: written here at its start (the clock read when the
  /// engine did not), finished in `on_end`. `parent`: a valid parent, or null for a root.
  void record(const operation& op, span& s, const parent_info* parent) {
    s.start = now_if_unset(op.start);
    const bool client_known = op.side == kind::server && !op.peer_address.empty();
    write_record(s, detail::interned_shape(op), parent,
                 {.request_id = op.request_id,
                  .session_id = op.session_id,
                  .peer_address = client_known ? op.peer_address : std::string_view(),
                  .peer_port = client_known ? op.peer_port : std::uint16_t{0},
                  .resource_uri = op.resource_uri});
  }

  /// What a span's record has of its own beyond the ids and the shape.
  struct call_texts {
    std::variant<std::string_view, std::int64_t> request_id{};  ///< an integer kept as one
    std::string_view session_id{};
    std::string_view peer_address{};  ///< `client.address`: a received operation's alone
    std::uint16_t peer_port = 0;
    std::string_view resource_uri{};
  };

  /// `s`'s record (its state), of `shape`, from its context and start.
  void write_record(span& s, std::shared_ptr<const span_shape> shape, const parent_info* parent,
                    const call_texts& t) {
    const trace_context& ctx = s.context;
    auto rec = take_record();
    auto& r = *rec;
    r.shape = std::move(shape);
    r.context.trace_id = ctx.trace_id;
    r.context.span_id = ctx.span_id;
    r.context.flags = ctx.flags;
    set_text(r.context.trace_state, ctx.trace_state);
    r.parent_span_id = parent != nullptr ? parent->context.span_id : std::array<std::uint8_t, 8>{};
    r.parent_remote = parent != nullptr && parent->remote;
    r.start_unix_ns = clock_.at(s.start);
    if (const auto* n = std::get_if<std::int64_t>(&t.request_id)) {
      r.request_id = *n;
    } else if (auto* id = std::get_if<std::string>(&r.request_id)) {
      set_text(*id, std::get<std::string_view>(t.request_id));
    } else {
      r.request_id.emplace<std::string>(std::get<std::string_view>(t.request_id));
    }
    set_text(r.session_id, t.session_id);
    set_text(r.peer_address, t.peer_address);
    r.peer_port = t.peer_address.empty() ? 0 : t.peer_port;
    set_text(r.resource_uri, t.resource_uri);
    s.state = std::move(rec);
  }

  /// `s = v`, an empty `v` without the library's call.
  static void set_text(std::string& s, std::string_view v) {
    if (v.empty()) {
      s.clear();
    } else {
      s.assign(v);
    }
  }

  /// A record for a span: one of this thread's spares, else a new one.
  static detail::record_ptr take_record() {
    auto* spare = detail::spare_records();
    if (spare == nullptr || spare->empty()) return std::make_unique<span_record>();
    auto r = std::move(spare->back());
    spare->pop_back();
    return r;
  }

  /// A new trace's ids in `ctx`, sampled or not by the ratio.
  void new_root(trace_context& ctx) const noexcept {
    detail::fast_ids(&ctx.trace_id, ctx.span_id);
    ctx.flags = sample_root(ctx.trace_id) ? 1 : 0;
  }

  /// Ratio sampling on the trace id's last 8 bytes (random).
  [[nodiscard]] bool sample_root(const std::array<std::uint8_t, 16>& id) const noexcept {
    if (opts_.root_sample_ratio >= 1) return true;
    if (opts_.root_sample_ratio <= 0) return false;
    std::uint64_t x = 0;
    for (std::size_t i = 8; i < 16; ++i) x = (x << 8U) | id[i];
    return static_cast<double>(x >> 11U) < opts_.root_sample_ratio * 9007199254740992.0;  // 2^53
  }

  tracer_options opts_;
  unix_clock clock_;
};

class callback_observer final : public observer {
 public:
  explicit callback_observer(callback_options opts) : opts_(std::move(opts)) {
    if (!opts_.on_start || !opts_.on_end) {
      throw std::invalid_argument("make_callback_observer: on_start and on_end are required");
    }
  }

  span on_start(const operation& op) override {
    span s;
    s.start = now_if_unset(op.start);
    auto parent = find_parent(op);
    const auto name = span_name(op);
    const auto attrs = operation_attributes(op, attribute_use::span);
    auto st = std::make_unique<bridged>();
    st->side = op.side;
    try {
      st->span = opts_.on_start({.op = op,
                                 .name = name,
                                 .parent = parent.context,
                                 .parent_remote = parent.remote,
                                 .baggage = parent.baggage,
                                 .attributes = attrs});
    } catch (...) {
      return s;  // not traced
    }
    s.active = true;
    s.context = st->span.context;
    s.baggage = std::move(parent.baggage);
    s.state = std::move(st);
    return s;
  }

  void on_end(span& s, const outcome& o) override {
    s.active = false;
    auto* st = static_cast<bridged*>(s.state.get());
    if (st == nullptr) return;
    const auto c = classify(st->side, o);
    try {
      opts_.on_end({.span = st->span,
                    .result = o,
                    .error = c,
                    .duration = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        now_if_unset(o.end) - s.start)});
    } catch (...) {  // NOLINT(bugprone-empty-catch): the application's error; nothing to do
    }
    s.state.reset();
  }

 private:
  struct bridged final : span_state {
    bridged_span span;
    kind side = kind::server;
  };

  callback_options opts_;
};

}  // namespace

std::vector<detail::record_ptr>* detail::spare_records() noexcept {
  struct spare_list {
    std::vector<record_ptr> records;
    spare_list() { records.reserve(kept_records); }  // throws std::bad_alloc: no list
  };
  auto* list = mcp::detail::this_thread_own<spare_list>();
  return list == nullptr ? nullptr : &list->records;
}

std::shared_ptr<observer> make_tracer(tracer_options opts) {
  return std::make_shared<tracer>(std::move(opts));
}

std::shared_ptr<observer> make_callback_observer(callback_options opts) {
  return std::make_shared<callback_observer>(std::move(opts));
}

}  // namespace mcp::observe
