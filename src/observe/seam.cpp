// The observer's defaults, propagation into `_meta`, and the fan-out to several observers.
#include <mcp/observe.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <typeinfo>

#include "observe/recycle.hpp"
#include "observe/set_word.hpp"

namespace mcp::observe {

span observer::on_session_start(const session_info&) { return {}; }
void observer::on_session_end(span&, std::string_view) {}
void observer::on_denial(const denial&) {}
void observer::on_task_status(std::string_view, std::string_view) {}
void observer::on_stream(kind, int) {}
bool observer::reads_request_id() const noexcept { return true; }
bool observer::spans_by_attribute_set() const noexcept { return false; }
bool observer::starts_roots() const noexcept { return false; }
std::uintptr_t observer::root_word(const operation&) { return 0; }
span observer::start_root(const root_start&) { return {}; }

void observer::inject(const span& s, json::object& meta) const {
  if (!s.context.valid()) return;
  meta["traceparent"] = s.context.traceparent();
  if (s.context.trace_state.empty()) {
    meta.erase("tracestate");
  } else {
    meta["tracestate"] = s.context.trace_state;
  }
  if (s.baggage.empty()) {
    meta.erase("baggage");
  } else {
    meta["baggage"] = s.baggage;
  }
}

namespace {

/// Forwards to each part; a combined span keeps the parts' spans. Two parts, the second's span
/// light (only `start`, `word` and `active`: e.g. the metrics') and the first's without a
/// `word` (e.g. the tracer's), at the same start: the combined span is both, folded, with
/// nothing kept aside: the first's span with the second's `word` (`state` is then not a
/// `parts_state`).
class combined final : public observer {
 public:
  explicit combined(std::vector<std::shared_ptr<observer>> parts)
      : parts_(std::move(parts)),
        second_by_set_(parts_.size() == 2 && parts_[1]->spans_by_attribute_set()) {}

  // The clock is read once for all the parts (none when the engine gave its reading: then the
  // operation is passed on as it is, not copied).
  span on_start(const operation& op) override {
    if (op.start != std::chrono::steady_clock::time_point{}) return gather_operation(op);
    operation timed = op;
    timed.start = std::chrono::steady_clock::now();
    return gather_operation(timed);
  }
  void on_end(span& s, const outcome& o) override {
    if (o.end != std::chrono::steady_clock::time_point{}) {
      scatter(s, [&o](observer& p, span& part) { p.on_end(part, o); });
      return;
    }
    outcome timed = o;
    timed.end = std::chrono::steady_clock::now();
    scatter(s, [&timed](observer& p, span& part) { p.on_end(part, timed); });
  }
  span on_session_start(const session_info& info) override {
    return gather([&info](observer& o) { return o.on_session_start(info); });
  }
  void on_session_end(span& s, std::string_view error_type) override {
    scatter(s, [error_type](observer& p, span& part) { p.on_session_end(part, error_type); });
  }
  void on_denial(const denial& d) override {
    for (const auto& p : parts_) p->on_denial(d);
  }
  void on_task_status(std::string_view tool, std::string_view task_status) override {
    for (const auto& p : parts_) p->on_task_status(tool, task_status);
  }
  void on_stream(kind side, int delta) override {
    for (const auto& p : parts_) p->on_stream(side, delta);
  }
  // A new trace's span from the first part's, folded with the second's of the set's word
  // (the combined spans' word is the second part's; none known yet: the operation is asked
  // for). Every return is of `first` (as in `gather_numbered`).
  [[nodiscard]] bool starts_roots() const noexcept override {
    return second_by_set_ && parts_[0]->starts_roots();
  }
  std::uintptr_t root_word(const operation& op) override {
    return starts_roots() ? parts_[0]->root_word(op) : 0;
  }
  span start_root(const root_start& r) override {
    if (r.word == 0) return {};
    if (r.start == std::chrono::steady_clock::time_point{}) {  // one reading for both parts
      root_start timed = r;
      timed.start = std::chrono::steady_clock::now();
      return start_both_roots(timed);
    }
    return start_both_roots(r);
  }
  [[nodiscard]] bool reads_request_id() const noexcept override {
    return std::any_of(parts_.begin(), parts_.end(),
                       [](const auto& p) { return p->reads_request_id(); });
  }

 private:
  /// The parts' spans: two inline (the usual tracer and metrics), more aside. Each is made in
  /// its slot by the part's call (no span moved from the call's result into the slot).
  struct parts_state final : span_state, mcp::detail::recycled<parts_state> {
    std::array<std::optional<span>, 2> first;
    std::vector<std::optional<span>> rest;
    std::optional<span>& operator[](std::size_t i) {
      return i < first.size() ? first[i] : rest[i - first.size()];
    }
  };

  /// Whether a span's state is a combined span's parts kept aside (not a part's own state). By
  /// the address of the type's `type_info`: a type of this file alone has one in the program
  /// (comparing them as `==` does may compare their names, a string compare per span).
  static bool kept_aside(const span& s) noexcept {
    if (!s.state) return false;
    const span_state& st = *s.state;
    return &typeid(st) == &typeid(parts_state);
  }

  /// A call's result, converted into a span where it is to live (copy elision).
  template <class F>
  struct made {
    F f;
    operator span() { return f(); }  // NOLINT(google-explicit-constructor)
  };

  /// The second part's span word of a numbered attribute set (`spans_by_attribute_set`), as
  /// the engine keeps it for a lone observer: per thread, by this combination's number and the
  /// set's number.
  using set_words = mcp::detail::numbered_cache<std::uintptr_t, combined>;
  static inline std::atomic<std::uint64_t> next_uid{1};

  template <class Start>
  span gather(Start&& start) {
    if (parts_.size() != 2) return gather_each(start);
    return gather_two(start);
  }

  /// `gather` of two parts (returning `first` alone: it is made where the combined span is).
  template <class Start>
  span gather_two(Start& start) {
    span first = start(*parts_[0]);
    span second = start(*parts_[1]);
    fold(first, second);
    return first;
  }

  /// `start_root` at a set start (the first part's `start_root` reads no `word`: the combined
  /// spans' is the second part's).
  span start_both_roots(const root_start& r) {
    span first = parts_[0]->start_root(r);
    if (first && first.word == 0 && first.start == r.start && !kept_aside(first)) {
      first.word = r.word;  // folded, as `fold` would
    } else if (first) {
      span second = mcp::detail::span_of_word(r.word, r.start);
      fold(first, second);
    }
    return first;
  }

  /// `gather` of an operation's start: a numbered operation whose set's span word the second
  /// part gave already starts the second's span from it, without calling it, when the first's
  /// span takes it folded (the usual tracer and metrics).
  span gather_operation(const operation& op) {
    if (!second_by_set_ || op.attribute_set == 0) {
      return gather([&op](observer& o) { return o.on_start(op); });
    }
    return gather_numbered(op);
  }

  /// `gather_operation` of a numbered operation. Every return is of `first`, so that the first
  /// part's span is made where the caller's span lives (a return of another value here would
  /// make it in a temporary, moved out member by member).
  span gather_numbered(const operation& op) {
    // The word read before any part runs (a part's call may start other operations here).
    const auto& slot = set_words::at(uid_, op.attribute_set);
    const std::uintptr_t known = slot.holds(uid_, op.attribute_set) ? slot.value : 0;
    span first = parts_[0]->on_start(op);
    if (known != 0 && first && first.word == 0 && first.start == op.start && !kept_aside(first)) {
      first.word = known;
      return first;
    }
    span second = known != 0 ? mcp::detail::span_of_word(known, op.start) : parts_[1]->on_start(op);
    if (known == 0 && mcp::detail::is_word_span(second)) {
      set_words::at(uid_, op.attribute_set) = {uid_, op.attribute_set, second.word};
    }
    fold(first, second);
    return first;
  }

  /// The two parts' spans as one in `first`: folded when the second's is light, else both kept.
  static void fold(span& first, span& second) {
    if (first && second && first.word == 0 && !second.state && second.baggage.empty() &&
        !second.context.valid() && first.start == second.start && !kept_aside(first)) {
      first.word = second.word;
    } else {
      auto st = std::make_unique<parts_state>();
      st->first[0].emplace(std::move(first));
      st->first[1].emplace(std::move(second));
      first = gathered(std::move(st));
    }
  }

  template <class Start>
  span gather_each(Start& start) {
    auto st = std::make_unique<parts_state>();
    if (parts_.size() > st->first.size()) st->rest.resize(parts_.size() - st->first.size());
    for (std::size_t i = 0; i < parts_.size(); ++i) {
      observer& part = *parts_[i];
      auto call = [&start, &part] { return start(part); };
      (*st)[i].emplace(made<decltype(call)>{call});
    }
    return gathered(std::move(st));
  }

  /// The combined span of the parts' spans in `st`.
  static span gathered(std::unique_ptr<parts_state> st) {
    span out;
    bool traced = false;  // `out` has a part's ids
    for (std::size_t i = 0; i < 2 + st->rest.size(); ++i) {
      const auto& slot = (*st)[i];
      if (!slot || !*slot) continue;
      const span& got = *slot;
      if (out.start == std::chrono::steady_clock::time_point{}) out.start = got.start;  // a set one
      out.active = true;
      if (!traced && got.context.valid()) {  // its texts copied only when set
        traced = true;
        out.context.trace_id = got.context.trace_id;
        out.context.span_id = got.context.span_id;
        out.context.flags = got.context.flags;
        if (!got.context.trace_state.empty()) out.context.trace_state = got.context.trace_state;
        if (!got.baggage.empty()) out.baggage = got.baggage;
      }
    }
    if (out) out.state = std::move(st);
    return out;
  }

  template <class End>
  void scatter(span& s, End&& end) {
    if (!s) return;
    if (!kept_aside(s)) {  // folded (gather)
      span second;
      second.active = true;
      second.start = s.start;
      second.word = s.word;
      s.word = 0;
      end(*parts_[0], s);
      end(*parts_[1], second);
      s.active = false;
      return;
    }
    auto* st = static_cast<parts_state*>(s.state.get());
    for (std::size_t i = 0; i < parts_.size(); ++i) {
      auto& part = (*st)[i];
      if (part && *part) end(*parts_[i], *part);
    }
    s.active = false;
  }

  std::vector<std::shared_ptr<observer>> parts_;
  const bool second_by_set_;  ///< two parts, the second `spans_by_attribute_set`
  const std::uint64_t uid_ = next_uid.fetch_add(1, std::memory_order_relaxed);
};

}  // namespace

std::shared_ptr<observer> combine(std::vector<std::shared_ptr<observer>> parts) {
  std::erase(parts, nullptr);
  if (parts.empty()) return nullptr;
  if (parts.size() == 1) return std::move(parts.front());
  return std::make_shared<combined>(std::move(parts));
}

}  // namespace mcp::observe
