// Internal: the state of one running tools/call, shared by the pipeline, the handler's
// tool_context/responder and the session that owns the request. It is a `request_state` (the
// request's record in the peer core, so cancellation stops it and a duplicate id is refused
// without a second allocation), whose notifications and requests go through its sink. It holds the
// interceptor chain it runs through (so interceptors outlive their calls), the pipeline's `next`,
// result filters and end hooks in place: a call through the built-in interceptors allocates nothing
// beyond the call itself.
#pragma once

#include <mcp/pipeline.hpp>
#include <mcp/tool.hpp>

#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "detail/plain_step.hpp"
#include "detail/request_state.hpp"
#include "detail/spinlock.hpp"
#include "detail/timer.hpp"
#include "peer.hpp"
#include "tools.hpp"

namespace mcp::detail {

class server_session_impl;

/// The interceptors a call runs through, with their plain steps (every chain is a plan).
using interceptor_chain = std::shared_ptr<const pipeline_plan>;

class call_state final : public request_state {
 public:
  /// `args` (an object) and `meta` are pilfered (left null and empty, in the default storage):
  /// pass locals, never an element of a container (Boost.JSON frees a key through its value).
  call_state(std::weak_ptr<server_session_impl> session, std::shared_ptr<call_sink> sink,
             jsonrpc::request_id id, std::shared_ptr<const tool_entry> entry, json::value&& args,
             json::object&& meta, std::shared_ptr<const principal> who, interceptor_chain chain,
             request_origin origin = {})
      : request_state(std::move(session), std::move(id), std::move(meta), std::move(who),
                      std::move(origin)),
        sink_(std::move(sink)),
        entry_(std::move(entry)),
        args_(json::pilfer(args)),
        chain_(std::move(chain)) {
    active_sink_.store(sink_.get(), std::memory_order_relaxed);
    link_run();
  }
  ~call_state() override {
    // The last owner: nothing else reaches the call now, so its counts are read without the
    // locks, and a completed call (its hooks run, its run released) takes none.
    if (hook_count_ != 0) run_end_hooks();
    if (release_count_ != 0 || run_linked_) run_release_hooks();
  }

  /// The call whose handler runs on this thread, if any.
  [[nodiscard]] static const call_state* current() noexcept { return invoking_; }
  /// The next unreleased call of the same tool (see tool_runs; guarded by its mutex).
  [[nodiscard]] call_state* next_run() const noexcept { return run_next_; }
  call_state(const call_state&) = delete;
  call_state& operator=(const call_state&) = delete;

  /// The interceptors this call runs through, and what each is given as `next`: it runs the
  /// next interceptor, then the handler (`after_chain`). Callers hold the call alive.
  [[nodiscard]] const interceptor_chain& chain() const noexcept { return chain_; }
  [[nodiscard]] const std::function<void()>& next() const noexcept { return next_; }
  /// The chain with its plain steps.
  [[nodiscard]] const pipeline_plan& plan() const noexcept { return *chain_; }
  /// `resume` continues a call that was held back (`hold`) and parked after the interceptors.
  void set_after_chain(void (*f)(call_state&), void (*resume)(call_state&)) noexcept {
    after_chain_ = f;
    resume_ = resume;
  }
  /// Starts the pipeline (the first `next`).
  void start() { advance(); }
  /// Starts it on the straight path instead: `plan` (whose chain is this call's, every
  /// interceptor in it a plain step) admits the call step by step, then the handler side runs
  /// as after the last `next`; the admitting steps' filters run on the result (`complete`).
  void start_plain(const pipeline_plan& plan) {
    plan_ = &plan;
    for (auto* step : plan.steps) {
      if (!step->admit(*this)) return;
      plain_admitted_.fetch_add(1, std::memory_order_acq_rel);
    }
    step_.store(chain_->size() + 1);
    if (!done()) after_chain_(*this);
  }

  /// Asks for `fn(call, arg)` at `when` (a deadline). The timer is armed by `arm_timer` only if
  /// the call is still running once its synchronous part returned: a call answered at once
  /// (an inline tool) costs no timer. The earliest request wins.
  void defer_timer(clock::time_point when, targeted_fn fn, std::uint64_t arg) {
    std::lock_guard lock(mu_);
    if (timer_fn_ == nullptr || when < timer_when_) {
      timer_when_ = when;
      timer_fn_ = fn;
      timer_arg_ = arg;
    }
  }
  /// Arms the deferred timer (if any) unless the call is done; it is cancelled when the call
  /// ends. A call that completes meanwhile leaves at most a timer that finds it gone or done.
  void arm_timer() {
    targeted_fn fn = nullptr;
    clock::time_point when{};
    std::uint64_t arg = 0;
    {
      std::lock_guard lock(mu_);
      // A held call's deadline counts from when it runs: `release_hold` arms it.
      if (gate_.load(std::memory_order_acquire) != gate::open) return;
      fn = std::exchange(timer_fn_, nullptr);
      when = timer_when_;
      if (held_at_ != clock::time_point{}) when += clock::now() - held_at_;  // not the wait
      arg = timer_arg_;
    }
    if (fn == nullptr || done()) return;
    const auto handle = schedule_timer(when, std::weak_ptr<void>(weak_from_this()), fn, arg);
    on_end([](void*, std::uint64_t h) { cancel_timer(h); }, nullptr, handle);
  }

  /// Runs `fn(ctx, arg)` once when the call ends: when it completes, or when it is destroyed
  /// without completing (cancelled, session closed). At most `max_end_hooks`; more is a bug in
  /// the SDK's own interceptors (they are the only users).
  static constexpr std::size_t max_end_hooks = 4;
  void on_end(void (*fn)(void* ctx, std::uint64_t arg), void* ctx, std::uint64_t arg) {
    std::lock_guard lock(mu_);
    if (hook_count_ < max_end_hooks) hooks_[hook_count_++] = end_hook{fn, ctx, arg};
  }

  /// Runs `fn(ctx, arg)` once when the call ended and its handler is done: when the handler's
  /// own result ends the call, before that result is sent (a client calling again at once
  /// finds the slot free); when something else ended it (a deadline, a cancellation) while the
  /// handler still runs, once the handler returns. For what a running handler occupies, such
  /// as a concurrency slot. At most `max_release_hooks`.
  static constexpr std::size_t max_release_hooks = 4;
  /// Beyond that many, `fn` runs at once (nothing leaks; the SDK installs at most two).
  void on_release(void (*fn)(void* ctx, std::uint64_t arg), void* ctx, std::uint64_t arg) {
    {
      std::lock_guard lock(mu_);
      if (release_count_ < max_release_hooks) {
        releases_[release_count_++] = end_hook{fn, ctx, arg};
        return;
      }
    }
    fn(ctx, arg);
  }

  /// `invoke` brackets the handler with these, on the thread that runs it. False when the call
  /// already ended (a deadline or a cancellation came first): the handler is not run.
  [[nodiscard]] bool handler_started() {
    std::lock_guard lock(mu_);
    if (done()) return false;
    handler_active_ = true;
    outer_invoking_ = invoking_;
    invoking_ = this;
    return true;
  }
  void handler_returned() {
    bool ended = false;
    {
      std::lock_guard lock(mu_);
      handler_active_ = false;
      invoking_ = outer_invoking_;
      ended = done();
    }
    if (ended) run_release_hooks();
  }

  [[nodiscard]] const std::string& tool() const noexcept { return entry_->spec.name; }
  [[nodiscard]] const tool_entry& entry() const noexcept { return *entry_; }
  [[nodiscard]] const json::object& arguments() const noexcept { return args_.get_object(); }
  /// The arguments as a value (an object), for the validator without a copy.
  [[nodiscard]] const json::value& arguments_value() const noexcept { return args_; }
  [[nodiscard]] bool run_inline() const noexcept { return entry_->spec.run_inline; }
  [[nodiscard]] std::shared_ptr<call_state> self() {
    return std::static_pointer_cast<call_state>(shared_from_this());
  }
  [[nodiscard]] std::weak_ptr<call_state> weak_self() { return self(); }

  // ---- request_state, through the sink ----
  [[nodiscard]] bool finished() const noexcept override { return done(); }
  [[nodiscard]] std::optional<jsonrpc::request_id> related() const override {
    return sink().related(*this);
  }
  void annotate(json::object& params) const override { sink().annotate(*this, params); }
  [[nodiscard]] executor* exec() const override { return sink().exec(*this); }
  [[nodiscard]] bool inline_handler() const noexcept override { return run_inline(); }
  result<json::object> ask_client(std::string_view method, json::object params,
                                  std::chrono::milliseconds timeout,
                                  std::string_view key) override {
    return sink().request_client(*this, method, std::move(params), timeout, key);
  }
  void ask_client_async(std::string_view method, json::object params,
                        std::chrono::milliseconds timeout, std::string_view key,
                        unique_function<void(result<json::object>)> done) override {
    sink().request_client_async(*this, method, std::move(params), timeout, key, std::move(done));
  }
  /// Where the outcome goes. Set at construction; a task-augmented call switches it once, after
  /// the interceptors and before the handler (`become`), so the handler sees only the last.
  [[nodiscard]] call_sink& sink() const noexcept {
    return *active_sink_.load(std::memory_order_acquire);
  }

  /// A task-augmented call's `params.task` while it is still a plain call (tasks.cpp turns it
  /// into a task once the interceptors let it through). Set before `start`.
  std::optional<json::object> task_request{};
  /// A stored task run here (taken from a shared queue, or run again after a restart): the
  /// interceptors admitted it where it was accepted (`tool_call::admitted_earlier`). Set
  /// before `start`.
  bool admitted_earlier = false;
  /// Becomes a task: later outcomes go to `sink`.
  void become(std::shared_ptr<call_sink> sink) {
    task_sink_ = std::move(sink);
    active_sink_.store(task_sink_.get(), std::memory_order_release);
    task_request.reset();
  }
  [[nodiscard]] bool done() const noexcept { return done_.load(std::memory_order_acquire); }

  // ---- queueing (a concurrency limit that accepts a task before a slot is free) ----
  /// Whether the call becomes a task before its handler runs (a task-augmented call of a tool
  /// that is not `deferred_task`): only such a call can wait for a slot, since it is answered
  /// (CreateTaskResult) before it runs.
  [[nodiscard]] bool queueable() const noexcept {
    return task_request.has_value() && !entry_->spec.deferred_task;
  }
  /// An interceptor holds the handler back (before calling `next`): the call passes the other
  /// interceptors and becomes a task, then waits, parked, until `release_hold`.
  void hold() noexcept {
    {
      std::lock_guard lock(mu_);
      held_at_ = clock::now();
    }
    gate_.store(gate::held, std::memory_order_release);
  }
  [[nodiscard]] bool held() const noexcept {
    return gate_.load(std::memory_order_acquire) != gate::open;
  }
  /// After the interceptors: true when the call is still held (it is parked now, and
  /// `release_hold` resumes it); false when it may run at once.
  [[nodiscard]] bool park() noexcept {
    auto expected = gate::held;
    return gate_.compare_exchange_strong(expected, gate::parked, std::memory_order_acq_rel);
  }
  /// Lets a held call run: a parked one resumes (on its executor); one not parked yet runs when
  /// it gets there. Callers hold the call alive.
  void release_hold() {
    if (gate_.exchange(gate::open, std::memory_order_acq_rel) == gate::parked) resume_(*this);
  }
  /// Whether the last interceptor called `next` (see `advance`).
  [[nodiscard]] bool passed_interceptors() const noexcept { return step_.load() > chain_->size(); }

  void add_filter(std::function<void(call_tool_result&)> f) {
    std::lock_guard lock(mu_);
    if (filter_count_ < filters_.size()) {
      filters_[filter_count_++] = std::move(f);
    } else {
      more_filters_.push_back(std::move(f));
    }
  }

  /// Completes the call once (later calls are ignored): the result filters run in reverse
  /// order and are destroyed, the end hooks run, then the sink gets the outcome.
  void complete(std::variant<call_tool_result, error> outcome) {
    if (done_.exchange(true, std::memory_order_acq_rel)) return;
    finish(std::move(outcome));
  }
  /// `complete` with a result of one text block holding `text` (a handler's text output),
  /// carried as the text alone while nothing needs the result: on the straight path, each
  /// admitting step's `filter_text`, then the sink's `deliver_text`. A stored filter, or a
  /// step that finds a problem, gets the result built, as `complete` would have it.
  void complete_text(std::string&& text) {
    if (done_.exchange(true, std::memory_order_acq_rel)) return;
    if (stored_filters()) return finish(text_result(text));  // the general path
    if (plan_ != nullptr) {
      for (auto i = plain_admitted_.load(std::memory_order_acquire); i > 0; --i) {
        if (!plan_->steps[i - 1]->filter_text(*this, text)) {
          auto r = text_result(text);
          run_plan_filters(r, i);
          end();
          return sink().deliver(*this, std::move(r));
        }
      }
    }
    end();
    sink().deliver_text(*this, std::move(text));
  }
  /// The result of one text block holding `text` (what a text output becomes).
  [[nodiscard]] static call_tool_result text_result(std::string_view text) {
    call_tool_result r;
    r.content.push_back(text_content(text));
    return r;
  }

 private:
  /// `complete` once the call is done: the result filters, the hooks, the sink.
  void finish(std::variant<call_tool_result, error> outcome) {
    auto* r = std::get_if<call_tool_result>(&outcome);
    if (stored_filters()) run_stored_filters(r);  // none on the straight path
    if (r != nullptr && plan_ != nullptr) {
      run_plan_filters(*r, plain_admitted_.load(std::memory_order_acquire));
    }
    end();
    sink().deliver(*this, std::move(outcome));
  }
  [[nodiscard]] bool stored_filters() {
    std::lock_guard lock(mu_);
    return filter_count_ != 0 || !more_filters_.empty();
  }
  /// The filters of the first `admitted` steps of the plan, in reverse order.
  void run_plan_filters(call_tool_result& r, std::size_t admitted) {
    for (auto i = admitted; i > 0; --i) plan_->steps[i - 1]->filter(*this, r);
  }
  /// After the filters: the end hooks run, and the release hooks when nothing runs or the
  /// handler answers.
  void end() {
    run_end_hooks();
    bool release = false;
    {
      std::lock_guard lock(mu_);
      release = !handler_active_ || invoking_ == this;  // nothing runs, or the handler answers
    }
    if (release) run_release_hooks();
  }

  /// The filters interceptors added (`add_filter`), taken out under the lock, run on `r` (when
  /// the outcome is a result) in reverse order and destroyed. Out of line: the straight path
  /// never runs it.
  [[gnu::noinline]] void run_stored_filters(call_tool_result* r) {
    std::array<std::function<void(call_tool_result&)>, 4> filters;
    std::vector<std::function<void(call_tool_result&)>> more;
    std::size_t count = 0;
    {
      std::lock_guard lock(mu_);
      count = filter_count_;
      filter_count_ = 0;
      for (std::size_t i = 0; i < count; ++i) filters[i] = std::move(filters_[i]);
      more.swap(more_filters_);
    }
    if (r != nullptr) {
      for (auto it = more.rbegin(); it != more.rend(); ++it) (*it)(*r);
      for (std::size_t i = count; i > 0; --i) filters[i - 1](*r);
    }
  }

  struct end_hook {
    void (*fn)(void*, std::uint64_t) = nullptr;
    void* ctx = nullptr;
    std::uint64_t arg = 0;
  };

  /// Takes the hooks out of `stored` (under the lock) and runs them once, outside it.
  template <std::size_t N>
  void run_hooks(const std::array<end_hook, N>& stored, std::size_t& count) {
    std::array<end_hook, N> hooks;
    std::size_t n = 0;
    {
      std::lock_guard lock(mu_);
      n = std::exchange(count, 0);
      hooks = stored;
    }
    for (std::size_t i = 0; i < n; ++i) hooks[i].fn(hooks[i].ctx, hooks[i].arg);
  }
  void run_release_hooks() {
    run_hooks(releases_, release_count_);
    unlink_run();
  }
  /// Counts this call among its tool's unreleased calls (remove_tool waits for them).
  void link_run() {
    auto& runs = *entry_->runs;
    std::lock_guard lock(runs.mu);
    run_next_ = runs.head;
    if (run_next_ != nullptr) run_next_->run_prev_ = this;
    runs.head = this;
    ++runs.count;
    run_linked_ = true;
  }
  /// Released: no longer counted (once).
  void unlink_run() {
    auto& runs = *entry_->runs;
    std::lock_guard lock(runs.mu);
    if (!run_linked_) return;
    run_linked_ = false;
    if (run_prev_ != nullptr) {
      run_prev_->run_next_ = run_next_;
    } else {
      runs.head = run_next_;
    }
    if (run_next_ != nullptr) run_next_->run_prev_ = run_prev_;
    run_prev_ = run_next_ = nullptr;
    // Told only when `remove_tool` waits (a broadcast on every call cost a system library call).
    if ((--runs.count == 0 || runs.removed.load()) && runs.waiters != 0) runs.cv.notify_all();
  }
  void run_end_hooks() { run_hooks(hooks_, hook_count_); }

  /// The pipeline's `next`: the next interceptor, or after the last one `after_chain_`.
  void advance() {
    const auto i = step_.fetch_add(1);
    if (i < chain_->size()) {
      (*chain_)[i]->intercept(tool_call(self()), next_);
    } else if (i == chain_->size() && !done()) {
      after_chain_(*this);
    }
  }
  std::shared_ptr<call_sink> sink_;
  std::shared_ptr<call_sink> task_sink_;  ///< set once by `become`, before it is published
  /// The sink in use: `sink_`, or `task_sink_` once the call became a task. An atomic pointer
  /// (not a lock) because a timer may complete the call while `become` runs.
  std::atomic<call_sink*> active_sink_{nullptr};
  std::shared_ptr<const tool_entry> entry_;
  json::value args_;  ///< always an object
  interceptor_chain chain_;
  /// On the straight path: the plan (`*chain_`) and how many of its steps admitted the
  /// call.
  const pipeline_plan* plan_ = nullptr;
  std::atomic<std::size_t> plain_admitted_{0};
  clock::time_point timer_when_{};
  clock::time_point held_at_{};  ///< when an interceptor held the call (see `hold`)
  targeted_fn timer_fn_ = nullptr;
  std::uint64_t timer_arg_ = 0;
  std::atomic<std::size_t> step_{0};
  void (*after_chain_)(call_state&) = nullptr;
  void (*resume_)(call_state&) = nullptr;
  enum class gate : unsigned char { open, held, parked };
  std::atomic<gate> gate_{gate::open};
  std::function<void()> next_{[this] { advance(); }};  ///< captures only `this`: no allocation
  std::atomic<bool> done_{false};
  spinlock mu_;  ///< guards filters and hooks (short sections, rarely contended)
  std::array<std::function<void(call_tool_result&)>, 4> filters_;
  std::size_t filter_count_ = 0;
  std::vector<std::function<void(call_tool_result&)>> more_filters_;
  std::array<end_hook, max_end_hooks> hooks_{};
  std::size_t hook_count_ = 0;
  std::array<end_hook, max_release_hooks> releases_{};
  std::size_t release_count_ = 0;
  bool handler_active_ = false;
  const call_state* outer_invoking_ = nullptr;  ///< `invoking_` before this handler started
  call_state* run_prev_ = nullptr;  ///< in the tool's list of unreleased calls (tool_runs::mu)
  call_state* run_next_ = nullptr;
  bool run_linked_ = false;
  /// The call whose handler runs on this thread (so that `complete` knows who answers).
  static inline thread_local const call_state* invoking_ = nullptr;
};

/// What the SDK's own interceptors reach behind a `tool_call` handle.
struct tool_call_access {
  [[nodiscard]] static const std::shared_ptr<call_state>& state(const tool_call& c) noexcept {
    return c.state_;
  }
};

}  // namespace mcp::detail
