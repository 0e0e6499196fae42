// File: mcp/pipeline.hpp
//
// The tools/call pipeline: an ordered chain of interceptors around every tool handler. Each
// interceptor sees the call before the handler runs and may deny it (finish it early with an
// isError result or a JSON-RPC error), pass it on, or register a filter that sees the result
// before it is sent. The SDK's security policies are interceptors built on this seam: rate and
// concurrency limits (fair between callers; tasks beyond the limit wait instead of being
// refused), a deadline, output limits and sanitisation, and access control. Users
// add their own the same way (audit logging, quotas, tracing).
//
// Order: interceptors run in the order they were added with `server::use`; result filters run
// in reverse order. Input validation against the inputSchema always runs last, just before
// the handler; outputSchema validation runs after every filter. A task run on another process
// than the one that accepted it (a shared task queue), or again after a restart, passes the
// interceptors once more with `tool_call::admitted_earlier()` true: the SDK's admission checks
// let it through, its result filters apply.
//
// Example:
//
//   server.use(mcp::rate_limit({.per_second = 5, .burst = 10, .per_tool = true}));
//   server.use(mcp::deadline(std::chrono::seconds(30)));
//   server.use(mcp::output_limits({.max_bytes = 1 << 20}));
//   server.use(mcp::access_control([](const mcp::principal& p, std::string_view tool) {
//     return tool != "admin.reset" || p.subject == "ops";
//   }));
#pragma once

#include <mcp/content.hpp>
#include <mcp/tool.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mcp {

namespace detail {
struct tool_call_access;
}

/// One tools/call travelling through the pipeline. A cheap handle; copies refer to the same call.
/// Thread-safety: every member may be called from any thread.
class tool_call {
 public:
  /// Made by the engine for each call; interceptors receive it.
  explicit tool_call(std::shared_ptr<detail::call_state> s) noexcept : state_(std::move(s)) {}

  /// The called tool's name, as the client sent it.
  [[nodiscard]] const std::string& tool_name() const noexcept;
  /// The called tool's declaration (annotations, scopes, ...).
  [[nodiscard]] const tool_spec& tool() const noexcept;
  /// The arguments (an object; `{}` when the client sent none).
  [[nodiscard]] const json::object& arguments() const noexcept;
  /// Who is calling (from the transport: a token's subject, or "local" over stdio).
  [[nodiscard]] const principal& caller() const noexcept;
  /// The handler's context (cancellation, progress, logging).
  [[nodiscard]] tool_context context() const noexcept;
  /// Finishes the call now with `r` (filters still run). Later completions are ignored.
  void finish(call_tool_result r) const;
  /// Finishes the call now with a JSON-RPC error.
  void fail(error e) const;
  /// True once the call was finished or failed.
  [[nodiscard]] bool finished() const noexcept;
  /// True once every interceptor passed the call on (input validation and the handler come
  /// next); a call finished before that was refused by an interceptor.
  [[nodiscard]] bool passed_interceptors() const noexcept;
  /// True when the call runs a task admitted earlier: one taken from a shared task queue
  /// (mcp/task_queue.hpp) or run again after a restart. The interceptors' admission (rate and
  /// concurrency limits, access control) ran where the task was accepted, so an interceptor
  /// that only admits passes such a call on at once; result-side work (a deadline, output
  /// limits, an audit record) applies to it as to any call.
  [[nodiscard]] bool admitted_earlier() const noexcept;
  /// Adds a filter that may inspect or rewrite the result before it is sent. The filter object
  /// is destroyed when the call ends, whatever its outcome: state captured in it is released
  /// then (a concurrency slot, a timer).
  void on_result(std::function<void(call_tool_result&)> filter) const;
  /// Requests the handler's stop token (the handler should stop soon).
  void request_stop() const noexcept;

 private:
  friend struct detail::tool_call_access;
  std::shared_ptr<detail::call_state> state_;
};

/// An interceptor. `intercept` must either call `next()` exactly once (to pass the call on) or
/// finish the call. It runs on the thread that dispatches the call; keep it short. `next` may
/// also be called later, from any thread (an interceptor that queues calls): keep a copy of
/// `call` until then, since `next` does not keep the call alive by itself.
class call_interceptor {
 public:
  virtual ~call_interceptor() = default;
  /// Sees `call` before the handler runs: calls `next()` once to pass it on, or finishes it
  /// (`call.finish`, `call.fail`) to refuse it. Must not throw.
  virtual void intercept(const tool_call& call, const std::function<void()>& next) = 0;
  /// Whether `who` sees `tool` in tools/list. An interceptor that refuses some callers a tool
  /// whatever the arguments (access control, a policy) says so here, so that a caller sees
  /// only what it may call. Default: true. Must be fast and thread-safe.
  [[nodiscard]] virtual bool visible(const principal& who, const tool_spec& tool) const {
    (void)who;
    (void)tool;
    return true;
  }
  /// Why `who` may not read the resource at `uri` (empty: it may). An interceptor that also
  /// governs resources (a policy) says so here: resources/read is refused with -32602 and the
  /// reason, and resources/list leaves the resource out for that caller. Default: empty. Must
  /// be fast and thread-safe.
  [[nodiscard]] virtual std::string resource_refusal(const principal& who,
                                                     std::string_view uri) const {
    (void)who;
    (void)uri;
    return {};
  }
  /// The same for prompts/get and prompts/list, by prompt name.
  [[nodiscard]] virtual std::string prompt_refusal(const principal& who,
                                                   std::string_view name) const {
    (void)who;
    (void)name;
    return {};
  }
};

/// Token-bucket rate limit keyed by the caller's principal (and by tool when `per_tool`). With
/// `server_options::shared` the buckets are shared by every process of the service (this
/// process's own bucket decides while the shared state cannot be reached).
/// A denied call gets `isError: true` saying when to retry.
struct rate_limit_options {
  double per_second = 10;            ///< refill rate
  double burst = 20;                 ///< bucket size
  bool per_tool = false;             ///< one bucket per (principal, tool) instead of per principal
  std::vector<std::string> tools{};  ///< limit only these tools (empty: all)
  std::size_t max_keys = 100000;     ///< bound on tracked buckets (oldest evicted)
};
/// The rate-limit interceptor: a token bucket per caller (or per caller and tool).
[[nodiscard]] std::shared_ptr<call_interceptor> rate_limit(rate_limit_options opts);

/// How `concurrency_limit` shares its slots.
///
/// The caller is the requestor tasks are bound to (`session_options::task_owner`): the
/// authenticated principal (every session of it together), else the Streamable HTTP session,
/// over stdio the local user (one caller), in process each session. Where callers cannot be
/// told apart (stateless HTTP without an authenticator) each request's session is a caller.
///
/// The fair rule (the default, `per_caller` = 0): a caller runs at most max / (n + 1) calls at
/// once (at least 1), n being the callers with calls running or queued, itself included. A
/// running handler cannot be preempted, so a share can only be guaranteed by not handing it
/// out: one caller alone runs at most half the slots, and whatever the present callers do, a
/// share stays free for a caller that has no call running yet. As calls end the shares even
/// out; a queued task goes to the waiting caller that runs the fewest calls (max-min fair).
struct concurrency_limit_options {
  std::size_t max = 64;  ///< calls running at once, all callers together (> 0)
  /// Calls one caller may run at once; 0: its fair share (above). `max` makes one pool shared
  /// by every caller (first come, first served).
  std::size_t per_caller = 0;
  /// Task-augmented calls waiting for a slot, all callers together; one beyond is refused with
  /// `isError: true`. Per caller, `server_options::max_tasks_per_owner` bounds a caller's
  /// unfinished tasks (running or queued): beyond it tools/call is -32600.
  std::size_t max_queued = 10000;
};

/// At most `opts.max` tool calls run at once, each caller within its share (see
/// concurrency_limit_options). A plain call beyond the limit or its caller's share is answered
/// at once with `isError: true` saying which (its client waits for the answer: it is never
/// queued, never hangs). A task-augmented call is work accepted for later: beyond the limit it
/// is still accepted (CreateTaskResult), and its task waits, status `working` with a
/// statusMessage saying it is queued, until a slot frees; then it runs. A deadline interceptor
/// counts from when it starts to run. Throws std::invalid_argument when `max` is 0.
/// Thread-safe.
[[nodiscard]] std::shared_ptr<call_interceptor> concurrency_limit(concurrency_limit_options opts);
/// `concurrency_limit({.max = max})`.
[[nodiscard]] std::shared_ptr<call_interceptor> concurrency_limit(std::size_t max);

/// A call still running after `limit` is answered with `isError: true` and its stop token is
/// requested; the handler's late result is dropped. It applies to calls that run on the
/// executor (or complete later through their responder); a `run_inline` handler holds the I/O
/// thread until it returns, so its result is sent whenever that is (inline handlers must not
/// block).
[[nodiscard]] std::shared_ptr<call_interceptor> deadline(std::chrono::milliseconds limit);

/// Output checks and sanitisation applied to every result.
struct output_limit_options {
  std::size_t max_bytes = std::size_t{4} << 20U;  ///< serialized content + structuredContent
  bool repair_utf8 = true;   ///< replace invalid UTF-8 in text with U+FFFD (else: error)
  bool check_binary = true;  ///< image/audio/blob must be valid base64 with a type/subtype mimeType
  /// Remove from text (text blocks and embedded text resources) what a terminal or a log viewer
  /// would act on instead of showing: escape sequences (CSI `ESC [ … final`, OSC `ESC ] … BEL`
  /// or `ESC \`, and two-character ones), other C0 controls except tab, line feed and carriage
  /// return, DEL, and C1 controls (U+0080–U+009F). structuredContent is data and stays as is.
  bool strip_control_sequences = true;
};
/// A result that breaks a limit becomes `isError: true` naming the limit.
[[nodiscard]] std::shared_ptr<call_interceptor> output_limits(output_limit_options opts = {});

/// Denies calls for which `allow(principal, tool_name)` is false, with `isError: true`, and
/// hides those tools from that caller's tools/list.
[[nodiscard]] std::shared_ptr<call_interceptor> access_control(
    std::function<bool(const principal&, std::string_view tool)> allow);

}  // namespace mcp
