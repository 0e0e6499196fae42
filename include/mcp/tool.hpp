// File: mcp/tool.hpp
//
// What a tool is (MCP 2025-11-25 `Tool`) and what its handler sees. `tool_spec` is an aggregate
// meant for designated initializers; `tool_context` gives a running handler its cancellation
// token, progress and logging, the caller's principal, and requests back to the client
// (sampling, elicitation, roots) when the client declared them.
//
// Example:
//
//   struct confirm {
//     bool proceed = false;
//     std::string note;
//   };
//   MCP_FIELDS(confirm, (proceed, {.title = "Go ahead?", .defaulted = true}), (note))
//
//   server.add_tool({.name = "deploy", .title = "Deploy a service",
//                    .annotations = {.destructive_hint = true}},
//                   [](mcp::tool_context& ctx, const deploy_in& in) -> mcp::result<std::string> {
//                     auto answer = ctx.elicit<confirm>("Deploy " + in.service + " now?");
//                     if (!answer) return answer.error();  // e.g. no elicitation capability
//                     if (!answer->accepted() || !answer->content->proceed) return "Not deployed";
//                     ctx.progress(0.5, 1.0, "deploying");
//                     return "Deployed " + in.service;
//                   });
#pragma once

#include <mcp/checked_json.hpp>
#include <mcp/content.hpp>
#include <mcp/detail/elicitation.hpp>
#include <mcp/error.hpp>
#include <mcp/json.hpp>
#include <mcp/reflect.hpp>
#include <mcp/transport.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mcp {

/// An icon (`Icon`): an https or data: URI with optional MIME type, sizes and theme.
struct icon {
  std::string src;
  std::optional<std::string> mime_type{};
  std::vector<std::string> sizes{};    ///< e.g. "48x48", "any"
  std::optional<std::string> theme{};  ///< "light" or "dark"
};

/// Behaviour hints (`ToolAnnotations`). Unset stays distinct from false on the wire.
struct tool_annotations {
  std::optional<std::string> title{};
  std::optional<bool> read_only_hint{};
  std::optional<bool> destructive_hint{};
  std::optional<bool> idempotent_hint{};
  std::optional<bool> open_world_hint{};
};

/// `execution.taskSupport`.
enum class task_support { forbidden, optional, required };

/// The declaration of a tool. `input_schema`/`output_schema` left empty are inferred by the
/// typed `server::add_tool`; a schema given here is never overwritten.
struct tool_spec {
  std::string name;  ///< 1-128 characters of [A-Za-z0-9_.-], unique in the server
  std::optional<std::string> title{};
  std::string description{};
  std::vector<icon> icons{};
  std::optional<json::object> input_schema{};
  std::optional<json::object> output_schema{};
  tool_annotations annotations{};
  std::optional<task_support> task_support_mode{};  ///< absent = not sent (means forbidden)
  /// A task of this tool that was still running when the server stopped is run again (same
  /// arguments, same caller) when the server next starts, instead of being failed. Only for
  /// tools that are safe to run twice (idempotent), and only with a durable task store.
  bool rerun_after_restart = false;
  json::object meta{};  ///< `_meta`
  /// OAuth scopes a caller needs, all of them, to see and call the tool. A caller whose
  /// principal carries scopes (a verified bearer token) and lacks one does not see the tool in
  /// tools/list, and its tools/call gets -32602 naming the missing scopes; over Streamable HTTP
  /// with a protected resource the call is refused earlier with 403 `insufficient_scope`, so the
  /// client can ask for them (step-up). Callers without scope information (stdio) are not
  /// affected.
  std::vector<std::string> scopes{};
  /// Run the handler on the I/O thread instead of the executor. Only for handlers that never
  /// block; such handlers cannot send requests to the client.
  bool run_inline = false;
};

/// A tool execution error: becomes a result with `isError: true` and this text.
struct tool_error {
  std::string message;
};

/// What a typed handler returns: its output, or a tool error.
template <class T>
using tool_result = std::variant<T, tool_error>;

/// Log levels of `notifications/message` (RFC 5424), least to most severe.
enum class log_level { debug, info, notice, warning, error, critical, alert, emergency };

/// The wire name of a level ("warning", ...).
[[nodiscard]] std::string_view to_string(log_level l) noexcept;
/// Parses a wire level name.
[[nodiscard]] std::optional<log_level> parse_log_level(std::string_view s) noexcept;

/// What the user did with an elicitation form.
enum class elicit_action { accept, decline, cancel };

/// The answer to a typed elicitation (`tool_context::elicit<T>`).
template <class T>
struct elicit_result {
  elicit_action action = elicit_action::cancel;
  /// The submitted form, decoded and validated against `schema_for<T>()`; set exactly when
  /// the user accepted.
  std::optional<T> content{};

  /// True when the user submitted the form.
  [[nodiscard]] bool accepted() const noexcept { return action == elicit_action::accept; }
};

/// How `tool_context::sample` asks the client's model.
struct sampling_options {
  std::string system_prompt{};                ///< `systemPrompt`, sent when not empty
  std::int64_t max_tokens = 1000;             ///< `maxTokens`
  std::optional<double> temperature{};        ///< `temperature`
  std::vector<std::string> model_hints{};     ///< `modelPreferences.hints[].name`
  std::chrono::milliseconds timeout{60'000};  ///< how long to wait for the answer
};

namespace detail {
class call_state;

/// An elicitation answer before decoding (see tool_context::elicit<T>).
struct form_answer {
  elicit_action action = elicit_action::cancel;
  json::value content{};  ///< the `content` object when accepted ({} when the client sent none)
};
}  // namespace detail

/// What a running handler sees. Valid for the duration of the call (an asynchronous handler
/// may keep it until it completes its responder).
///
/// Thread-safety: all member functions may be called from any thread while the call runs.
class tool_context {
 public:
  explicit tool_context(std::shared_ptr<detail::call_state> state) noexcept
      : state_(std::move(state)) {}

  /// Requested when the client cancels the call, the deadline passes or the session ends.
  [[nodiscard]] std::stop_token stop_token() const noexcept;
  /// Shorthand for `stop_token().stop_requested()`.
  [[nodiscard]] bool cancelled() const noexcept { return stop_token().stop_requested(); }

  /// Sends `notifications/progress` when the client asked for progress (a progressToken);
  /// otherwise does nothing. Values that do not increase are dropped (the spec requires
  /// increasing progress), as are calls after the call completed.
  void progress(double progress, std::optional<double> total = std::nullopt,
                std::string_view message = {}) const;

  /// Sends `notifications/message` if `level` passes the level the client set.
  void log(log_level level, const json::value& data, std::string_view logger = {}) const;

  /// Who is calling.
  [[nodiscard]] const principal& caller() const noexcept;
  /// The request's `_meta` (may be empty).
  [[nodiscard]] const json::object& request_meta() const noexcept;
  /// The id of the task this call runs as (a task-augmented tools/call), else empty. The
  /// request's `_meta` carries it as `io.modelcontextprotocol/related-task` too, so audit and
  /// pipeline code sees it.
  [[nodiscard]] std::string_view task_id() const noexcept;
  /// The client's declared capabilities (from initialize).
  [[nodiscard]] const json::object& client_capabilities() const noexcept;
  /// The negotiated protocol version.
  [[nodiscard]] const std::string& protocol_version() const noexcept;

  /// Sends a request to the client and waits for its result (blocking this handler thread).
  /// Errors: `errc::not_supported` when the client did not declare the capability the method
  /// needs (sampling, elicitation, roots) or when called from an inline handler;
  /// `errc::request_timeout`; `errc::cancelled` when this call was cancelled; the client's
  /// JSON-RPC error otherwise.
  [[nodiscard]] result<json::object> request(
      std::string_view method, json::object params,
      std::chrono::milliseconds timeout = std::chrono::seconds(60)) const;

  /// `sampling/createMessage` (needs the client's `sampling` capability).
  [[nodiscard]] result<json::object> create_message(json::object params) const {
    return request("sampling/createMessage", std::move(params));
  }
  /// `elicitation/create` (needs the client's `elicitation` capability).
  [[nodiscard]] result<json::object> elicit(json::object params) const {
    return request("elicitation/create", std::move(params));
  }
  /// Asks the user to fill in a form built from the flat struct `T` (a form-mode
  /// `elicitation/create`: `requestedSchema` is `schema_for<T>()`, so members become fields
  /// with their titles, descriptions, defaults, enums and bounds, and members that are
  /// std::optional or defaulted are not required). Blocks this handler thread until the user
  /// answers or `timeout` passes. A T that is not a flat struct of primitives, or a field
  /// keyword outside the elicitation subset, is a compile error.
  /// Errors: those of `request` (`errc::not_supported` without the client's `elicitation`
  /// capability, `errc::request_timeout`, `errc::cancelled`, ...); `errc::invalid_params`
  /// when the answer has no valid action or its content does not match T (the message names
  /// the field). Thread-safe.
  template <class T>
  [[nodiscard]] result<elicit_result<T>> elicit(
      std::string_view message,
      std::chrono::milliseconds timeout = std::chrono::minutes(10)) const {
    static_assert(detail::check_form<T>());
    static const json::object schema = schema_for<T>();
    result<detail::form_answer> answer = elicit_form(message, schema, timeout);
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

  /// Asks the client's model to answer `prompt` (`sampling/createMessage` with one user text
  /// message) and returns the text of its answer (the text blocks, joined). Blocks this
  /// handler thread until the answer or `opts.timeout`.
  /// Errors: those of `request` (`errc::not_supported` without the client's `sampling`
  /// capability, ...); `errc::internal_error` when the answer holds no text. Thread-safe.
  [[nodiscard]] result<std::string> sample(std::string_view prompt,
                                           const sampling_options& opts = {}) const;

  /// `roots/list` (needs the client's `roots` capability).
  [[nodiscard]] result<json::object> list_roots() const { return request("roots/list", {}); }

  /// Streamable HTTP: closes the connection that carries this call's SSE stream now, while the
  /// call keeps running; the client reconnects with `Last-Event-ID` and receives the rest
  /// (progress, the result). Lets a long call hold no connection (SSE polling). Returns false,
  /// doing nothing, where that is not possible: stdio, a stateless server, a client older than
  /// 2025-11-25 (no priming event to resume from), or a call that already finished.
  bool close_sse_stream() const;

 private:
  /// Sends a form-mode `elicitation/create` and reads the action (and content) of the answer.
  [[nodiscard]] result<detail::form_answer> elicit_form(std::string_view message,
                                                        const json::object& schema,
                                                        std::chrono::milliseconds timeout) const;

  std::shared_ptr<detail::call_state> state_;
};

/// The -32042 error (URL elicitation required) with `data.elicitations`: each item is the params
/// of an `elicitation/create` in URL mode (`mode: "url"`, `elicitationId`, `url`, `message`).
/// A tool returns it as a JSON-RPC error with `responder::fail`, or by throwing
/// `error_exception(url_elicitation_required(...))` from any handler (other thrown errors become
/// tool errors).
[[nodiscard]] error url_elicitation_required(
    json::array elicitations, std::string message = "This request requires more information.");

/// Completes an asynchronous call. Exactly the first `finish` counts; later ones are ignored.
/// Thread-safe; may be completed from any thread, after the handler returned.
class responder {
 public:
  explicit responder(std::shared_ptr<detail::call_state> state) noexcept
      : state_(std::move(state)) {}
  /// Completes the call with `r`.
  void finish(call_tool_result r) const;
  /// Completes the call with a JSON-RPC error instead of a result (protocol errors only).
  void fail(error e) const;

 private:
  std::shared_ptr<detail::call_state> state_;
};

/// A raw handler: JSON arguments in, a result out. No argument decoding (the inputSchema is
/// still enforced by the pipeline).
using raw_tool_handler = std::function<call_tool_result(tool_context&, const json::object&)>;
/// An asynchronous raw handler: completes through the responder, possibly later, from any thread.
using async_tool_handler = std::function<void(tool_context&, const json::object&, responder)>;

}  // namespace mcp
