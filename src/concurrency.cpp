// The concurrency limit (mcp/pipeline.hpp): at most `max` calls run at once, each caller within
// its share, and task-augmented calls beyond that accepted and queued instead of refused.
//
// The caller is the requestor tasks are bound to (server_session_impl::task_owner: the
// authenticated principal, else the HTTP session, the local user over stdio), so one caller's
// share and its `max_tasks_per_owner` count the same thing. Where that key is shared by callers
// that cannot be told apart (stateless HTTP without an authenticator) each session is a caller.
//
// A call takes a slot when fewer than `max` run, its caller runs fewer than its share, and none
// of the caller's tasks waits before it. Otherwise a plain call is refused at once (it has no
// way to wait: its client waits for the answer), and a task call is held (call_state::hold): it
// passes the other interceptors, becomes a task (answered with its CreateTaskResult, status
// working with a statusMessage saying it is queued) and waits, parked with its task, until a
// slot frees; then the waiting caller that runs the fewest calls gets it (max-min fair), its
// oldest task first. A queued call that ends first (cancelled, refused by a later interceptor,
// its server gone) leaves the queue through an end hook.
#include <mcp/pipeline.hpp>

#include <algorithm>
#include <cstdint>
#include <list>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "detail/call_state.hpp"
#include "server_session.hpp"

namespace mcp {

namespace {

using detail::call_state;

struct string_hash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept {
    return std::hash<std::string_view>{}(s);
  }
};

class concurrency_limiter final : public call_interceptor, public detail::plain_step {
 public:
  explicit concurrency_limiter(concurrency_limit_options o) : opts_(o) {}

  void intercept(const tool_call& call, const std::function<void()>& next) override {
    if (admit(*detail::tool_call_access::state(call))) next();
  }

  bool filter_text(const call_state& /*call*/, std::string& /*text*/) const override {
    return true;  // no filter
  }
  bool admit(call_state& call) override {
    // A task admitted where it was accepted: the queue's workers bound what runs of it here.
    if (call.admitted_earlier) return true;
    call_state* const st = &call;
    const auto session = st->session();  // keeps the key alive
    char own[key_buffer];
    const std::string_view key = caller_key(*st, session.get(), own);
    enum { run, queue, refuse_total, refuse_share, refuse_queue } verdict = run;
    caller_state* c = nullptr;
    std::size_t share = 0;
    {
      std::lock_guard lock(mu_);
      c = &find(key);
      share = share_of(active_ + (c->active() ? 0 : 1));
      if (running_ < opts_.max && c->running < share && c->waiting.empty()) {
        activate(*c);
        ++running_;
        ++c->running;
      } else if (!st->queueable()) {
        verdict = running_ >= opts_.max ? refuse_total : refuse_share;
      } else if (queued_ >= opts_.max_queued) {
        verdict = refuse_queue;
      } else {
        activate(*c);
        st->hold();  // before any release can find it in the queue
        c->waiting.push_back(queued{st, st->weak_self()});
        index_.emplace(st, std::pair{c, std::prev(c->waiting.end())});
        ++queued_;
        st->on_end(&left_queue, this, reinterpret_cast<std::uintptr_t>(st));
        verdict = queue;
      }
    }
    switch (verdict) {
      case run:
        // Released when the handler is done, whatever the outcome (a call answered by a
        // deadline keeps it until its handler returns). The call holds its interceptor chain,
        // so this interceptor outlives the hook.
        st->on_release(&release, this, reinterpret_cast<std::uintptr_t>(c));
        return true;
      case queue:
        return true;
      case refuse_total:
        st->complete(tool_error_result("Too many concurrent tool calls (limit " +
                                       std::to_string(opts_.max) + "); retry later"));
        return false;
      case refuse_share:
        st->complete(
            tool_error_result("Too many concurrent tool calls from this caller (its share is " +
                              std::to_string(share) + " of the limit " + std::to_string(opts_.max) +
                              "); retry later"));
        return false;
      case refuse_queue:
        st->complete(tool_error_result("Too many queued tool calls (at most " +
                                       std::to_string(opts_.max_queued) + "); retry later"));
        return false;
    }
    return false;
  }

 private:
  struct queued {
    call_state* call;
    std::weak_ptr<call_state> weak;
  };
  struct caller_state {
    std::string key;
    std::size_t running = 0;
    std::list<queued> waiting;  ///< its queued task calls, oldest first
    [[nodiscard]] bool active() const noexcept { return running > 0 || !waiting.empty(); }
  };
  /// A queued call given a slot; with no caller, one found ending (it is dropped outside mu_,
  /// since its end runs a hook that takes mu_).
  using grant = std::pair<std::shared_ptr<call_state>, caller_state*>;

  static constexpr std::size_t key_buffer = 1 + 2 * sizeof(void*);
  /// The caller of `c` (of session `s`): the session's task owner, or the session itself where
  /// that owner is shared (then written into `own`).
  static std::string_view caller_key(const call_state& c, const detail::server_session_impl* s,
                                     char (&own)[key_buffer]) {
    if (!s) return c.caller().subject;  // no session: a call made without a client
    if (!s->shared_task_owner()) return s->task_owner();
    // '#' and the session's address in hex, written by hand: snprintf cost more than the rest
    // of this interceptor, on every call of a stateless or 2026-07-28 request.
    constexpr std::string_view digits = "0123456789abcdef";
    auto address = reinterpret_cast<std::uintptr_t>(s);
    std::size_t n = key_buffer;
    do {
      own[--n] = digits[address & 0xf];
      address >>= 4;
    } while (address != 0);
    own[--n] = '#';
    return {own + n, key_buffer - n};
  }

  /// How many calls a caller may run when `n` callers (it among them) have calls running or
  /// queued: `per_caller`, else max / (n + 1) (at least 1), so a share is always left for a
  /// caller that has none running yet.
  [[nodiscard]] std::size_t share_of(std::size_t n) const noexcept {
    if (opts_.per_caller != 0) return opts_.per_caller;
    return std::max<std::size_t>(1, opts_.max / (n + 1));
  }

  /// The caller's record (under mu_). Idle records stay for the next call (no allocation per
  /// call) until there are many; then they are dropped. The last one found is tried first:
  /// calls mostly come from the caller of the call before (no hash, no lookup).
  caller_state& find(std::string_view key) {
    if (last_ != nullptr && last_->key == key) return *last_;
    if (auto it = callers_.find(key); it != callers_.end()) return *(last_ = &it->second);
    if (callers_.size() >= max_idle_callers + active_) {
      last_ = nullptr;  // it may be dropped
      std::erase_if(callers_, [](const auto& kv) { return !kv.second.active(); });
    }
    auto& c = callers_[std::string(key)];
    c.key = std::string(key);
    return *(last_ = &c);
  }
  /// Counts `c` among the active callers, if it was not (before it gets a call).
  void activate(const caller_state& c) {
    if (!c.active()) ++active_;
  }
  /// After `c` lost a call: not active any more when it has none.
  void deactivate_if_idle(const caller_state& c) {
    if (!c.active()) --active_;
  }

  /// Gives free slots to queued calls (under mu_): each to the waiting caller that runs the
  /// fewest calls and is within its share.
  void dispatch(std::vector<grant>& out) {
    while (queued_ > 0 && running_ < opts_.max) {
      caller_state* best = nullptr;
      const auto share = share_of(active_);
      for (auto& [key, c] : callers_) {
        if (!c.waiting.empty() && c.running < share && (!best || c.running < best->running)) {
          best = &c;
        }
      }
      if (best == nullptr) return;
      auto q = std::move(best->waiting.front());
      best->waiting.pop_front();
      index_.erase(q.call);
      --queued_;
      auto call = q.weak.lock();
      if (!call || call->done()) {  // ending: its end hook finds it gone from the queue
        deactivate_if_idle(*best);
        out.emplace_back(std::move(call), nullptr);
        continue;
      }
      ++running_;
      ++best->running;
      out.emplace_back(std::move(call), best);
    }
  }

  /// Outside mu_: each granted call gets its release hook, then runs.
  void start(std::vector<grant>& granted) {
    for (auto& [call, c] : granted) {
      if (c == nullptr) continue;
      call->on_release(&release, this, reinterpret_cast<std::uintptr_t>(c));
      call->release_hold();
    }
  }

  static void release(void* self, std::uint64_t caller) {
    auto* l = static_cast<concurrency_limiter*>(self);
    auto* c = reinterpret_cast<caller_state*>(static_cast<std::uintptr_t>(caller));
    std::vector<grant> granted;
    {
      std::lock_guard lock(l->mu_);
      --l->running_;
      --c->running;
      l->deactivate_if_idle(*c);
      if (l->queued_ > 0) l->dispatch(granted);
    }
    if (!granted.empty()) l->start(granted);
  }

  /// A queued call ended (or was dispatched: then it is no longer in the index).
  static void left_queue(void* self, std::uint64_t call) {
    auto* l = static_cast<concurrency_limiter*>(self);
    const auto* key = reinterpret_cast<const call_state*>(static_cast<std::uintptr_t>(call));
    std::vector<grant> granted;
    {
      std::lock_guard lock(l->mu_);
      auto it = l->index_.find(key);
      if (it == l->index_.end()) return;
      auto [c, pos] = it->second;
      l->index_.erase(it);
      c->waiting.erase(pos);
      --l->queued_;
      l->deactivate_if_idle(*c);
      // A caller's last queued call leaving may let another's run (shares grow).
      l->dispatch(granted);
    }
    l->start(granted);
  }

  static constexpr std::size_t max_idle_callers = 1024;

  concurrency_limit_options opts_;
  std::mutex mu_;
  std::unordered_map<std::string, caller_state, string_hash, std::equal_to<>> callers_;
  caller_state* last_ = nullptr;  ///< the record `find` returned last (nodes do not move)
  /// Where each queued call waits (its caller's record stays while it has calls queued).
  std::unordered_map<const call_state*, std::pair<caller_state*, std::list<queued>::iterator>>
      index_;
  std::size_t active_ = 0;   ///< callers with calls running or queued
  std::size_t running_ = 0;  ///< calls holding a slot
  std::size_t queued_ = 0;   ///< task calls waiting for one
};

}  // namespace

std::shared_ptr<call_interceptor> concurrency_limit(concurrency_limit_options opts) {
  if (opts.max == 0) throw std::invalid_argument("concurrency_limit: max must be > 0");
  return std::make_shared<concurrency_limiter>(opts);
}

std::shared_ptr<call_interceptor> concurrency_limit(std::size_t max) {
  return concurrency_limit(concurrency_limit_options{.max = max});
}

}  // namespace mcp
