// File: mcp/context.hpp
//
// What a running request handler sees, the same for tools, resources and prompts:
// `request_context` gives the request's cancellation token, progress and logging, the caller,
// the protocol revision and the client's capabilities, and requests back to the client
// (elicitation, sampling, roots) in a blocking and a callback form (mcp/asio.hpp adds
// completion tokens and `co_await`). `reply<Out>` completes a request later, from any thread.
//
// Asking the client for input works the same in both protocol eras. With a 2025-11-25 (or older)
// client the request goes to the client and the call waits for its answer. With a 2026-07-28
// client the server may not send requests: the first time a handler asks, `request` returns at
// once with `errc::input_required`; the handler returns (with that error, or anything else), and
// the round ends with an `input_required` result carrying every question the handler asked. The
// client answers them and sends the request again; the handler runs again from the start, and
// this time each question is answered at once, in the order they were asked. A handler must
// therefore ask its questions in the same order for the same answers, and should not repeat
// work that has effects before a question: it can keep what it did in `save_round_state`, which
// comes back sealed (encrypted and authenticated under the server's key) in the next round.
//
// Example:
//
//   server.add_prompt({.name = "greet", .description = "Greets someone"},
//                     [](const greet_args& a, mcp::request_context& ctx) ->
//                     mcp::result<std::string> {
//                       ctx.log(mcp::log_level::info, "greeting " + a.name);
//                       auto ok = ctx.elicit<confirm>("Greet " + a.name + "?");
//                       if (!ok) return ok.error();   // 2026-07-28: the client answers first
//                       return ok->accepted() ? "Hello, " + a.name : "Goodbye";
//                     });
#pragma once

#include <mcp/checked_json.hpp>
#include <mcp/detail/elicitation.hpp>
#include <mcp/detail/unique_function.hpp>
#include <mcp/error.hpp>
#include <mcp/json.hpp>
#include <mcp/reflect.hpp>
#include <mcp/transport.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

namespace mcp {

class executor;

/// Log levels of `notifications/message` (RFC 5424), least to most severe.
enum class log_level { debug, info, notice, warning, error, critical, alert, emergency };

/// The wire name of a level ("warning", ...).
[[nodiscard]] std::string_view to_string(log_level l) noexcept;
/// Parses a wire level name.
[[nodiscard]] std::optional<log_level> parse_log_level(std::string_view s) noexcept;

/// What the user did with an elicitation form.
enum class elicit_action { accept, decline, cancel };

/// The answer to a typed elicitation (`request_context::elicit<T>`).
template <class T>
struct elicit_result {
  elicit_action action = elicit_action::cancel;  ///< accepted, declined or cancelled
  /// The submitted form, decoded and validated against `schema_for<T>()`; set exactly when
  /// the user accepted.
  std::optional<T> content{};

  /// True when the user submitted the form.
  [[nodiscard]] bool accepted() const noexcept { return action == elicit_action::accept; }
};

/// How a handler asks the client something (`request_context::request`, `elicit<T>`,
/// `list_roots`).
struct ask_options {
  /// 2026-07-28: the question's key in the round's `inputRequests` (unique within the request).
  /// Empty: "<kind>-<n>" ("elicitation-1", "sampling-2", ...) by the order of asking.
  std::string key{};
  /// Older revisions: how long to wait for the client's answer.
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
};

/// How `request_context::sample` asks the client's model.
struct sampling_options {
  std::string system_prompt{};                ///< `systemPrompt`, sent when not empty
  std::int64_t max_tokens = 1000;             ///< `maxTokens`
  std::optional<double> temperature{};        ///< `temperature`
  std::vector<std::string> model_hints{};     ///< `modelPreferences.hints[].name`
  std::chrono::milliseconds timeout{60'000};  ///< how long to wait for the answer
  std::string key{};                          ///< the question's key (see `ask_options::key`)
};

namespace detail {
class request_state;

/// An elicitation answer before decoding (see request_context::elicit<T>).
struct form_answer {
  elicit_action action = elicit_action::cancel;
  json::value content{};  ///< the `content` object when accepted ({} when the client sent none)
};

/// Decodes a form answer as `T` (see request_context::elicit<T>).
template <class T>
result<elicit_result<T>> decode_form(result<form_answer>&& answer) {
  if (!answer) return answer.error();
  elicit_result<T> out{.action = answer->action, .content = std::nullopt};
  if (out.accepted()) {
    result<T> content = from_json_checked<T>(answer->content);
    if (!content) {
      error e = std::move(content.error());
      e.message = "the client's elicitation answer does not match the form: " + e.message;
      return e;
    }
    out.content = std::move(*content);
  }
  return out;
}
}  // namespace detail

/// What a running request handler sees (tools, resources, prompts). Valid until the request is
/// answered (a handler completing later may keep it, or a copy, until then); copies share the
/// request.
///
/// Thread-safety: every member may be called from any thread while the request runs.
class request_context {
 public:
  /// Made by the SDK for each request; handlers receive it.
  explicit request_context(std::shared_ptr<detail::request_state> state) noexcept
      : state_(std::move(state)) {}

  /// Requested when the client cancels the request, a deadline passes or the session ends.
  [[nodiscard]] std::stop_token stop_token() const noexcept;
  /// Shorthand for `stop_token().stop_requested()`.
  [[nodiscard]] bool cancelled() const noexcept { return stop_token().stop_requested(); }
  /// The W3C trace id (32 lowercase hex digits) of the trace this request runs in, for log
  /// lines: set when the server has an observer that traces (`server_options::observer`), else
  /// empty. Thread-safe; throws only std::bad_alloc.
  [[nodiscard]] std::string trace_id() const;

  /// Sends `notifications/progress` when the client asked for progress (a progressToken);
  /// otherwise does nothing. Values that do not increase are dropped (the spec requires
  /// increasing progress), as are calls after the request was answered.
  void progress(double progress, std::optional<double> total = std::nullopt,
                std::string_view message = {}) const;

  /// Sends `notifications/message` if `level` passes the client's level (2025-11-25: set with
  /// logging/setLevel; 2026-07-28: the request's `_meta` logLevel, and nothing without one).
  void log(log_level level, const json::value& data, std::string_view logger = {}) const;

  /// Who is calling.
  [[nodiscard]] const principal& caller() const noexcept;
  /// The request's `_meta` (may be empty).
  [[nodiscard]] const json::object& request_meta() const noexcept;
  /// The client's declared capabilities: from initialize (2025-11-25 and older) or from this
  /// request's `_meta` (2026-07-28). A copy.
  [[nodiscard]] json::object client_capabilities() const;
  /// The protocol revision the request is served in ("2025-11-25", "2026-07-28", ...).
  [[nodiscard]] std::string protocol_version() const;

  /// Asks the client (`elicitation/create`, `sampling/createMessage`, `roots/list`) and waits
  /// for its result, blocking this thread (see the banner for 2026-07-28 rounds).
  /// Errors: `errc::not_supported` when the client did not declare the capability the method
  /// needs, or the handler runs inline; `errc::input_required` (2026-07-28: return, the client
  /// answers first); `errc::request_timeout`; `errc::cancelled` when this request was
  /// cancelled; the client's JSON-RPC error otherwise.
  [[nodiscard]] result<json::object> request(
      std::string_view method, json::object params,
      std::chrono::milliseconds timeout = std::chrono::seconds(60)) const {
    return request(method, std::move(params), ask_options{.key = {}, .timeout = timeout});
  }
  /// The same with a key for the question (see `ask_options`).
  [[nodiscard]] result<json::object> request(std::string_view method, json::object params,
                                             const ask_options& opts) const;
  /// `request` without waiting: `done` gets the same outcome exactly once, on some thread (the
  /// one receiving the answer, a timer's, or this one before returning). `done` must not block
  /// for long. Holds no thread while the client thinks.
  void request_async(std::string_view method, json::object params,
                     unique_function<void(result<json::object>)> done,
                     std::chrono::milliseconds timeout = std::chrono::seconds(60)) const {
    request_async(method, std::move(params), std::move(done),
                  ask_options{.key = {}, .timeout = timeout});
  }
  /// The same with a key for the question (see `ask_options`).
  void request_async(std::string_view method, json::object params,
                     unique_function<void(result<json::object>)> done,
                     const ask_options& opts) const;

  /// `sampling/createMessage` (needs the client's `sampling` capability).
  [[nodiscard]] result<json::object> create_message(json::object params) const {
    return request("sampling/createMessage", std::move(params));
  }
  /// `elicitation/create` (needs the client's `elicitation` capability).
  [[nodiscard]] result<json::object> elicit(json::object params) const {
    return request("elicitation/create", std::move(params));
  }
  /// `roots/list` (needs the client's `roots` capability).
  [[nodiscard]] result<json::object> list_roots(const ask_options& opts = {}) const {
    return request("roots/list", {}, opts);
  }

  /// Asks the user to fill in a form built from the flat struct `T` (a form-mode
  /// `elicitation/create`: `requestedSchema` is `schema_for<T>()`, so members become fields
  /// with their titles, descriptions, defaults, enums and bounds, and members that are
  /// std::optional or defaulted are not required). Blocks until the user answers or `timeout`
  /// passes. A T that is not a flat struct of primitives, or a field keyword outside the
  /// elicitation subset, is a compile error.
  /// Errors: those of `request`; `errc::invalid_params` when the answer has no valid action or
  /// its content does not match T (the message names the field).
  template <class T>
  [[nodiscard]] result<elicit_result<T>> elicit(
      std::string_view message,
      std::chrono::milliseconds timeout = std::chrono::minutes(10)) const {
    return elicit<T>(message, ask_options{.key = {}, .timeout = timeout});
  }
  /// The same with a key for the question (see `ask_options`).
  template <class T>
  [[nodiscard]] result<elicit_result<T>> elicit(std::string_view message,
                                                const ask_options& opts) const {
    static_assert(detail::check_form<T>());
    static const json::object schema = schema_for<T>();
    return detail::decode_form<T>(elicit_form(message, schema, opts));
  }
  /// `elicit<T>` without waiting: `done` gets the same outcome once (see `request_async`).
  template <class T>
  void elicit_async(std::string_view message, unique_function<void(result<elicit_result<T>>)> done,
                    std::chrono::milliseconds timeout = std::chrono::minutes(10)) const {
    elicit_async<T>(message, std::move(done), ask_options{.key = {}, .timeout = timeout});
  }
  /// The same with a key for the question (see `ask_options`).
  template <class T>
  void elicit_async(std::string_view message, unique_function<void(result<elicit_result<T>>)> done,
                    const ask_options& opts) const {
    static_assert(detail::check_form<T>());
    static const json::object schema = schema_for<T>();
    elicit_form_async(
        message, schema,
        [done = std::move(done)](result<detail::form_answer> a) mutable {
          done(detail::decode_form<T>(std::move(a)));
        },
        opts);
  }

  /// Asks the client's model to answer `prompt` (`sampling/createMessage` with one user text
  /// message) and returns the text of its answer (the text blocks, joined). Blocks until the
  /// answer or `opts.timeout`. Errors: those of `request`; `errc::internal_error` when the
  /// answer holds no text.
  [[nodiscard]] result<std::string> sample(std::string_view prompt,
                                           const sampling_options& opts = {}) const;
  /// `sample` without waiting: `done` gets the same outcome once (see `request_async`).
  void sample_async(std::string_view prompt, const sampling_options& opts,
                    unique_function<void(result<std::string>)> done) const;

  /// 2026-07-28 input rounds: what `save_round_state` stored in the round before this one (a
  /// handler's own progress), or null in the first round and in older revisions.
  [[nodiscard]] const json::value* round_state() const noexcept;
  /// Stores `state` for the next round (sealed into the `requestState` the client echoes), so
  /// that work done before a question is not repeated. Only takes effect when the round ends
  /// with `input_required`; does nothing in older revisions (the handler keeps running there).
  void save_round_state(json::value state) const;

  /// Where the server runs handlers (mcp/asio.hpp runs coroutine handlers there when it is an
  /// Asio executor).
  [[nodiscard]] executor& handler_executor() const noexcept;

 protected:
  std::shared_ptr<detail::request_state> state_;  ///< the request; shared by copies

 private:
  [[nodiscard]] result<detail::form_answer> elicit_form(std::string_view message,
                                                        const json::object& schema,
                                                        const ask_options& opts) const;
  void elicit_form_async(std::string_view message, const json::object& schema,
                         unique_function<void(result<detail::form_answer>)> done,
                         const ask_options& opts) const;
};

namespace detail {
/// Where a `reply<Out>` delivers (made by the SDK for each request answered through one).
template <class Out>
class reply_target {
 public:
  virtual ~reply_target() = default;
  /// The handler's outcome: its value, or a failure (the error rule applies).
  virtual void complete(result<Out>&& r) = 0;
  /// A JSON-RPC error answer instead of a result.
  virtual void fail_request(error&& e) = 0;
};
}  // namespace detail

/// Completes a request later, from any thread: a handler that takes a `reply<Out>` returns void
/// and calls the reply once, when it has the answer. Only the first completion counts; later
/// ones are ignored. A reply that is destroyed without being called leaves the request
/// unanswered until the client cancels it or the session ends. Copies complete the same request.
/// Thread-safety: may be called from any thread.
template <class Out>
class reply {
 public:
  /// Made by the SDK for each request answered through a reply; handlers receive it.
  explicit reply(std::shared_ptr<detail::reply_target<Out>> target) noexcept
      : target_(std::move(target)) {}
  /// Completes with `r`: the value, or a failure (a tool's `isError` result, a resource's or
  /// prompt's JSON-RPC error).
  void operator()(result<Out> r) const { target_->complete(std::move(r)); }
  /// Completes a `reply<void>` successfully.
  void operator()() const requires std::is_void_v<Out> { target_->complete(result<void>{}); }
  /// Answers with the JSON-RPC error `e` instead of a result (the explicit protocol error).
  void fail_request(error e) const { target_->fail_request(std::move(e)); }

 private:
  std::shared_ptr<detail::reply_target<Out>> target_;
};

}  // namespace mcp
