// File: mcp/tool.hpp
//
// What a tool is (MCP `Tool`) and what its handler sees. `tool_spec` is an aggregate meant for
// designated initializers; `tool_context` is the `request_context` of mcp/context.hpp
// (cancellation, progress, logging, the caller, requests to the client) plus what only a tool
// call has (its task, SSE polling).
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
//                     if (!answer) return answer.error();  // an isError result saying why
//                     if (!answer->accepted() || !answer->content->proceed) return "Not deployed";
//                     ctx.progress(0.5, 1.0, "deploying");
//                     return "Deployed " + in.service;
//                   });
#pragma once

#include <mcp/content.hpp>
#include <mcp/context.hpp>
#include <mcp/detail/unique_function.hpp>
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
  std::string src;                         ///< https: or data: URI of the image
  std::optional<std::string> mime_type{};  ///< e.g. "image/png"; unset: not said
  std::vector<std::string> sizes{};        ///< e.g. "48x48", "any"
  std::optional<std::string> theme{};      ///< "light" or "dark"
};

/// Behaviour hints (`ToolAnnotations`). Unset stays distinct from false on the wire.
struct tool_annotations {
  std::optional<std::string> title{};      ///< display name
  std::optional<bool> read_only_hint{};    ///< the tool does not change its environment
  std::optional<bool> destructive_hint{};  ///< may make destructive updates; false: only additive
  std::optional<bool> idempotent_hint{};   ///< a repeated call (same arguments) has no more effect
  std::optional<bool> open_world_hint{};   ///< it deals with an open world (e.g. web search)
};

/// `execution.taskSupport`.
enum class task_support { forbidden, optional, required };

/// The declaration of a tool. `input_schema`/`output_schema` left empty are inferred by the
/// typed `server::add_tool`; a schema given here is never overwritten.
struct tool_spec {
  std::string name;                    ///< 1-128 characters of [A-Za-z0-9_.-], unique in the server
  std::optional<std::string> title{};  ///< display name
  std::string description{};           ///< what it does, for the model
  std::vector<icon> icons{};           ///< for a client's UI
  /// JSON Schema of the arguments, checked before the handler runs (a mismatch is an isError
  /// result). Unset: inferred by the typed `add_tool`, else `{"type":"object"}`.
  std::optional<json::object> input_schema{};
  /// JSON Schema of `structured_content`: a non-error result without it, or not matching it,
  /// becomes an internal error. Unset: inferred by the typed `add_tool`, else none.
  std::optional<json::object> output_schema{};
  tool_annotations annotations{};                   ///< behaviour hints for the client
  std::optional<task_support> task_support_mode{};  ///< absent = not sent (means forbidden)
  /// A task of this tool that was still running when the server stopped is run again (same
  /// arguments, same caller) when the server next starts, instead of being failed; with a task
  /// queue shared by several processes (mcp/task_queue.hpp), a task whose process was lost is
  /// run again by another. Only for tools that are safe to run twice (idempotent), and only
  /// with a durable task store. Without it such a task is failed, its status message saying
  /// why.
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
  /// A call that may run as a task starts as a plain call, and becomes one when its handler
  /// calls `tool_context::become_task` (after asking the client what it needs: in 2026-07-28
  /// those questions are answered in input rounds, before any task exists). Default: the task
  /// starts before the handler runs.
  bool deferred_task = false;
};

/// A tool execution error: becomes a result with `isError: true` and this text. Converts to an
/// `mcp::error` (code `errc::tool_failed`), so a handler returning `result<T>` may return it.
struct tool_error {
  std::string message;  ///< the text the model reads
  /// An `mcp::error` with code `errc::tool_failed` and this message.
  // NOLINTNEXTLINE(google-explicit-constructor): returned where a result<T> is expected
  operator error() const& { return error{errc::tool_failed, message}; }
  /// The same, moving the message.
  // NOLINTNEXTLINE(google-explicit-constructor)
  operator error() && { return error{errc::tool_failed, std::move(message)}; }
};

/// What a typed handler returns: its output, or a failure. The same as `result<T>` (the error
/// rule of mcp/typed_tool.hpp: any error becomes an `isError` result).
template <class T>
using tool_result = result<T>;

/// What a running tool handler sees: the request context (mcp/context.hpp) plus what only a
/// tool call has. Valid until the call is answered (an asynchronous handler may keep it, or a
/// copy, until it completes).
///
/// Thread-safety: all member functions may be called from any thread while the call runs.
class tool_context : public request_context {
 public:
  /// Made by the SDK for each call; handlers receive it.
  explicit tool_context(std::shared_ptr<detail::request_state> state) noexcept
      : request_context(std::move(state)) {}

  /// The id of the task this call runs as (a task-augmented tools/call), else empty.
  [[nodiscard]] std::string_view task_id() const noexcept;
  /// For a tool with `deferred_task`: turns the call into a task now. The request is answered
  /// with the task at once, and the handler goes on as the task (its result is the task's;
  /// later questions to the client wait with the task: tasks/result in 2025-11-25, tasks/update
  /// in 2026-07-28). False, leaving the call as it is, when the client cannot take a task here
  /// (it did not ask for one, or did not declare the tasks extension), when it is one already,
  /// or when questions of this round are still unanswered. Call it from the handler's thread.
  bool become_task();

  /// Streamable HTTP: closes the connection that carries this call's SSE stream now, while the
  /// call keeps running; the client reconnects with `Last-Event-ID` and receives the rest
  /// (progress, the result). Lets a long call hold no connection (SSE polling). Returns false,
  /// doing nothing, where that is not possible: stdio, a stateless server or a 2026-07-28
  /// request, a client older than 2025-11-25 (no priming event to resume from), or a call that
  /// already finished.
  bool close_sse_stream() const;
};

/// The -32042 error (URL elicitation required, 2025-11-25) with `data.elicitations`: each item is
/// the params of an `elicitation/create` in URL mode (`mode: "url"`, `elicitationId`, `url`,
/// `message`). A JSON-RPC error, not a tool failure: `throw mcp::protocol_error(
/// url_elicitation_required(...))` from any handler, or `responder::fail` (returned as a
/// `result<T>` error it would be an isError result, like every other returned error).
[[nodiscard]] error url_elicitation_required(
    json::array elicitations, std::string message = "This request requires more information.");

namespace detail {
class call_state;
struct responder_access;
}  // namespace detail

/// Completes an asynchronous raw call. Exactly the first `finish` or `fail` counts; later ones
/// are ignored. Thread-safe; may be completed from any thread, after the handler returned.
class responder {
 public:
  /// Made by the SDK for each asynchronous call; handlers receive it.
  explicit responder(std::shared_ptr<detail::call_state> state) noexcept
      : state_(std::move(state)) {}
  /// Completes the call with `r` (an isError result is a tool failure the model reads).
  void finish(call_tool_result r) const;
  /// Completes the call with a JSON-RPC error instead of a result: the explicit protocol error.
  void fail(error e) const;

 private:
  friend struct detail::responder_access;
  std::shared_ptr<detail::call_state> state_;
};

/// A raw handler: JSON arguments in, a result out. No argument decoding (the inputSchema is
/// still enforced by the pipeline). May be move-only.
using raw_tool_handler = unique_function<call_tool_result(tool_context&, const json::object&)>;
/// An asynchronous raw handler: completes through the responder, possibly later, from any
/// thread. May be move-only.
using async_tool_handler = unique_function<void(tool_context&, const json::object&, responder)>;

}  // namespace mcp
