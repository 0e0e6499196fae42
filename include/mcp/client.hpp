// File: mcp/client.hpp
//
// The client side of an MCP session, over any connection: initialize and version negotiation,
// requests with timeouts and cancellation, notifications, and the handlers a server may call
// back into (sampling, elicitation, roots). Calls block the calling thread until the answer
// arrives, which suits tests, tools and command-line programs.
//
// Like the server session it is sans-I/O: feed every received message text to `receive`.
//
// Example:
//
//   auto [server_end, client_end] = mcp::make_memory_pair();
//   auto session = server.open_session(server_end);
//   server_end->on_receive([session](std::string_view m) { session->receive(m); });
//   mcp::client_session client(client_end, {.info = {.name = "demo", .version = "1"}});
//   client_end->on_receive([&client](std::string_view m) { client.receive(m); });
//   auto init = client.initialize();
//   auto r = client.call_tool("echo", {{"text", "hi"}});
//
//   // Typed views of what the server says (mcp/client_types.hpp); JSON forms stay beside them:
//   auto info = client.server_info();  // result<initialize_result>: server_info.name, ...
//   auto tools = client.list_tools();  // result<std::vector<tool_info>>, every page
//   auto page = client.read_resource_contents("config://app");  // contents[i].text / .blob
//   auto msgs = client.get_prompt_messages("greet", {{"who", "Ada"}});
//
//   // The server's requests, typed; each handler declares its capability:
//   mcp::client_options opts{
//       .on_elicitation = [](const mcp::elicitation_request& q, std::stop_token) {
//         return mcp::result<mcp::elicitation_answer>(mcp::elicitation_answer::decline());
//       },
//       .roots = std::vector<mcp::root_info>{{.uri = "file:///work"}}};
//   // Over HTTP, connected and initialized in one step: mcp::connect_http (mcp/http_client.hpp).
//
//   // Typed: arguments encoded from a described struct, structuredContent checked against the
//   // tool's outputSchema and decoded (a tool error is not a protocol error):
//   auto f = client.call_tool<forecast_out>("forecast", forecast_in{.city = "Oslo"});
//   if (!f) { /* protocol error: f.error() */ }
//   else if (!f->ok()) { /* the tool said no: f->tool_error() */ }
//   else { use(f->value().high); }
#pragma once

#include <mcp/checked_json.hpp>
#include <mcp/client_types.hpp>
#include <mcp/content.hpp>
#include <mcp/executor.hpp>
#include <mcp/protocol.hpp>
#include <mcp/task_store.hpp>
#include <mcp/transport.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace mcp {
namespace observe {
class observer;
}
class result_cache;

/// `clientInfo` of initialize: who the client is.
struct client_info {
  std::string name = "mcp-cpp-client";  ///< programmatic name
  std::string version = "0.0.0";        ///< the client's own version
};

/// Answers a request the server sends (sampling/createMessage, elicitation/create, roots/list).
/// `stop` is requested when the server cancels the request (notifications/cancelled) or the
/// session ends: the answer will be dropped, so a handler that waits (for a person, say)
/// should give up then.
using client_request_handler =
    std::function<result<json::object>(const json::object& params, std::stop_token stop)>;

/// Answers elicitation/create with the request decoded (`client_options::on_elicitation`).
/// `stop` as for `client_request_handler`. An error it returns is the JSON-RPC error answer.
using elicitation_handler =
    std::function<result<elicitation_answer>(const elicitation_request&, std::stop_token stop)>;
/// Answers sampling/createMessage with the request decoded (`client_options::on_sampling`).
/// `stop` as for `client_request_handler`. An error it returns is the JSON-RPC error answer.
using sampling_handler =
    std::function<result<sampling_answer>(const sampling_request&, std::stop_token stop)>;

/// What a confirmation hook is asked before a tools/call (the Tools page: a human in the loop).
struct call_confirmation {
  std::string_view tool;          ///< the tool about to be called
  const json::object& arguments;  ///< the arguments it would get
  /// The Tool as the server listed it (annotations, schemas), decoded; null when it is not
  /// listed (or its listing does not decode).
  const tool_info* definition = nullptr;
  /// `client_options::trust_server_annotations`: whether the hints in `definition` are to be
  /// believed.
  bool server_trusted = false;
};
/// Allows a call (true) or denies it (false: the call fails with `errc::user_rejected`).
using confirm_handler = std::function<bool(const call_confirmation&)>;

/// The rule the Tools page asks of hosts: a tool the server marks `readOnlyHint: true` runs
/// without asking when the server is trusted; anything else, and anything from an untrusted
/// server, is put to `ask` (a person, say).
[[nodiscard]] confirm_handler confirm_unless_read_only(confirm_handler ask);

/// One tools/call as the client saw it, for an audit log.
struct call_record {
  std::string server;      ///< serverInfo.name
  std::string tool;        ///< the tool called
  json::object arguments;  ///< the arguments sent
  /// "ok", "tool_error" (isError), "denied" (the confirmation hook), "task" (started as a
  /// task), "timeout", "cancelled" or "error" (any other protocol or connection error).
  std::string outcome;
  std::chrono::milliseconds duration{0};         ///< from the call to its answer (or its end)
  std::string detail{};                          ///< the error's message or why it was denied
  std::chrono::system_clock::time_point time{};  ///< when the call started (or was refused)
};
/// `r` as one JSON line (no newline), for an audit file (`make_audit_file`, mcp/audit.hpp):
/// `time` (RFC 3339, UTC, milliseconds), `server`, `tool`, `arguments`, `outcome`,
/// `duration_ms`, and `message` when `detail` is not empty. Never throws beyond std::bad_alloc.
[[nodiscard]] std::string audit_line(const call_record& r);
/// Receives every tools/call record after the call: on the calling thread for `call_tool`, on
/// the thread that received the answer for `call_tool_async` (possibly several at once). Must
/// not throw.
using call_audit_sink = std::function<void(const call_record&)>;

/// How a client picks the protocol revision it speaks (`client_options::negotiate`).
enum class negotiation {
  /// `initialize` asking for `client_options::protocol_version`; the server may answer with
  /// another revision it speaks (the handshake of 2025-11-25 and before).
  legacy,
  /// 2026-07-28 when the server speaks it, else `legacy`: the client sends `server/discover` in
  /// 2026-07-28; a DiscoverResult, or an error that only a 2026-07-28 server sends (-32022 naming
  /// the revisions it speaks: one both speak is tried), means the new era; any other error, an
  /// HTTP 400 with an empty or unknown body, or no answer within `probe_timeout`, means a server
  /// of the old one, and the client falls back to `initialize`. A transport failure
  /// (`errc::connection_closed`: the process exited, no HTTP answer came) tells of no era: it
  /// is the error.
  automatic,
  /// Exactly `client_options::protocol_version`: "2026-07-28" (discover, no fallback) or a
  /// revision of `initialize` (an answer with another revision is an error).
  pinned,
};

/// Reads `--protocol`'s forms: "auto", "legacy", or a revision this SDK speaks (pinned). The
/// mode and, for a pinned one, its revision. Errors: `errc::invalid_params` for anything else.
[[nodiscard]] result<std::pair<negotiation, std::string>> parse_negotiation(std::string_view text);

/// The era a session speaks, once negotiated (`client_session::era`).
enum class protocol_era {
  none,    ///< not negotiated yet
  legacy,  ///< initialize and a session (2025-11-25 and before)
  modern,  ///< stateless, every request carrying its revision (2026-07-28)
};

/// How a client session behaves: who it says it is, what it declares and answers, timeouts,
/// limits, confirmation, audit and observation. Every member has a usable default.
struct client_options {
  client_info info{};                                            ///< sent as `clientInfo`
  std::string protocol_version{latest_legacy_protocol_version};  ///< requested in initialize
  json::object capabilities{};  ///< declared as-is (e.g. {"sampling":{}, "elicitation":{}})
  std::chrono::milliseconds timeout{30000};  ///< default per request
  json_limits limits{};                      ///< per message received from the server
  /// Handlers for server requests by method; a request without one gets -32601. They run on
  /// `handler_executor`, never on the thread that received the request.
  std::vector<std::pair<std::string, client_request_handler>> request_handlers{};
  /// Runs the request handlers. Default: one thread of the client's own, started on first use.
  std::shared_ptr<executor> handler_executor{};
  /// Called for every notification from the server (method, params). Any thread, including one
  /// blocked in a call of this session (the HTTP transport reads a call's answer stream on the
  /// calling thread): it must not wait for a lock that such a caller holds. Must not throw (an
  /// exception is ignored). A task's notification reaches it before it wakes `wait_task`.
  /// In 2026-07-28, set, it makes the client keep a subscriptions/listen open for the list
  /// changes the server offers (and the resources `subscribe`d to), opened again when it ends:
  /// what arrives on it comes here as the same notifications as in the old era.
  std::function<void(std::string_view, const json::object&)> on_notification{};
  /// Asked before every tools/call (also as a task), with the tool's listed definition (the
  /// list is fetched first when not cached). Null: every call proceeds.
  confirm_handler confirm{};
  /// Whether this server's annotations (readOnlyHint, destructiveHint, ...) are believed.
  bool trust_server_annotations = false;
  /// Receives a record of every tools/call. Null: none.
  call_audit_sink audit{};
  /// Observation (mcp/observe.hpp): the client's requests and notifications (spans of kind
  /// CLIENT, trace context written into `_meta`), the server's requests, and the session. Null
  /// (the default): nothing is observed.
  std::shared_ptr<observe::observer> observer{};
  /// Answers elicitation/create; set, it declares the `elicitation` capability (`form`, and
  /// `url` when `elicitation_url`). A request that does not decode (no `message`, say) is
  /// answered -32602 without calling it. Runs on `handler_executor` (several at once when it
  /// has several threads); it must not throw (an exception is answered -32603).
  elicitation_handler on_elicitation{};
  /// Whether `on_elicitation` also takes URL-mode requests (2025-11-25): declared as `url`.
  bool elicitation_url = false;
  /// Answers sampling/createMessage; set, it declares the `sampling` capability. As
  /// `on_elicitation` otherwise.
  sampling_handler on_sampling{};
  /// The roots offered to the server; set (even to none), it declares the `roots` capability
  /// with `listChanged` and answers roots/list; `client_session::set_roots` changes them.
  std::optional<std::vector<root_info>> roots{};
  // `on_elicitation`, `on_sampling` and `roots` take the place of a `request_handlers` entry
  // and a `capabilities` member: giving both for one method is an error (the constructor
  // throws std::invalid_argument); a capability already in `capabilities` is kept as given.
  /// How `initialize` picks the revision (see `negotiation`). Default: `legacy`.
  negotiation negotiate = negotiation::legacy;
  /// `automatic`: how long the probe waits for an answer before taking the server for one of
  /// the old era (a stdio server that ignores requests before initialize).
  std::chrono::milliseconds probe_timeout{10000};
  /// 2026-07-28: the input rounds one tools/call, prompts/get or resources/read may take (each
  /// answers the server's input requests through the handlers above and sends the request
  /// again); one more is `errc::limit_exceeded`.
  int max_input_rounds = 8;
  /// Receives the client's warnings, one sentence each: in 2026-07-28 over Streamable HTTP, a
  /// tool left out of the tools/list result because an `x-mcp-header` annotation of its
  /// inputSchema is invalid (naming the tool and why). Called on the thread that lists; it must
  /// not throw. Null (the default): the tool is still left out, silently.
  std::function<void(std::string_view)> on_warning{};
  /// Where the server is, for what outlives this session (mcp/client_cache.hpp): the
  /// negotiation verdict (`automatic` goes straight to the era remembered for it) and shared
  /// cached results. When it is empty, `connect_http` sets the endpoint's URL (without query)
  /// and `launch_server` "stdio:" and each argument after a space ("stdio: node server.mjs");
  /// left empty: nothing is remembered beyond this session.
  std::string origin{};
  /// Whether results the server says may be kept (`ttlMs`, `cacheScope`: server/discover, the
  /// lists, resources/read) are answered from a cache while fresh. False: every request goes out.
  bool cache_results = true;
  /// The cache they are kept in (sessions may share one: `make_result_cache`); null: one of this
  /// session's own, bounded as `result_cache_options{}` says.
  std::shared_ptr<result_cache> cache{};
  /// Whom the session acts for, as far as "private" cached results go: sessions sharing `cache`
  /// with the same non-empty context share them; empty: this session alone.
  std::string authorization_context{};
};

/// Per-request options.
struct request_options {
  std::chrono::milliseconds timeout{0};  ///< 0: the client's default
  /// When set, a progressToken is sent and progress notifications are reported here, on any
  /// thread, the calling one included (see `client_options::on_notification`).
  std::function<void(const json::object& progress)> on_progress{};
  /// Receives the request's id as soon as it is sent (to cancel it from another thread).
  std::function<void(std::int64_t id)> on_sent{};
  /// When true, `timeout` counts from the last progress notification (a long call that keeps
  /// reporting progress goes on); `max_total` then bounds the whole wait (0: no bound).
  bool reset_on_progress = false;
  std::chrono::milliseconds max_total{0};  ///< with `reset_on_progress`: the whole wait's bound
};

/// The answer of a typed tools/call: the decoded result, or the tool's own error (an `isError`
/// result, which the model is meant to read; protocol errors are the outer `result`'s error).
/// A plain value; safe to copy between threads.
template <class Out>
class tool_reply {
 public:
  /// A reply: `value` when the tool succeeded, else its error text; `raw` as received.
  tool_reply(std::optional<Out> value, std::string tool_error, json::object raw)
      : value_(std::move(value)), tool_error_(std::move(tool_error)), raw_(std::move(raw)) {}
  /// True when the tool succeeded and `value()` holds its decoded result.
  [[nodiscard]] bool ok() const noexcept { return value_.has_value(); }
  /// The decoded result. Precondition: `ok()`.
  [[nodiscard]] const Out& value() const& { return *value_; }
  /// The decoded result, moved out. Precondition: `ok()`.
  [[nodiscard]] Out&& value() && { return std::move(*value_); }
  /// The text of the tool's error result (its text blocks, joined by newlines); empty if `ok()`.
  [[nodiscard]] const std::string& tool_error() const noexcept { return tool_error_; }
  /// The CallToolResult as received.
  [[nodiscard]] const json::object& raw() const noexcept { return raw_; }

 private:
  std::optional<Out> value_;
  std::string tool_error_;
  json::object raw_;
};

/// A task as the server reports it (CreateTaskResult, tasks/get, tasks/list, status
/// notifications; in 2026-07-28 the tasks extension's flat Task and DetailedTask). Times are
/// the server's RFC 3339 strings. A plain value.
struct task_info {
  std::string id;                                  ///< `taskId` (empty: no task, see `call_result`)
  task_status status = task_status::working;       ///< `status`
  std::string status_message{};                    ///< `statusMessage` (empty: none)
  std::string created_at{};                        ///< `createdAt`
  std::string last_updated_at{};                   ///< `lastUpdatedAt`
  std::optional<std::int64_t> ttl_ms{};            ///< `ttl` / `ttlMs`; nothing: unlimited
  std::optional<std::int64_t> poll_interval_ms{};  ///< `pollInterval` / `pollIntervalMs`
  /// 2026-07-28: a completed task's result (tasks/get inlines it); also the answer itself when
  /// the server ran a `call_tool_as_task` at once (then `id` is empty).
  std::optional<json::object> call_result{};
  /// 2026-07-28: a failed task's JSON-RPC error object (`error`, inlined by tasks/get).
  std::optional<json::object> failure{};
  /// 2026-07-28: what an input_required task asks the client (`inputRequests`, key → request).
  json::object input_requests{};

  /// Reads a Task object of either era. Errors: `errc::invalid_params` naming the missing or
  /// wrong field.
  [[nodiscard]] static result<task_info> from_json(const json::object& task);
};

/// A client's session with one server over a connection: initialize, requests with timeouts,
/// progress and cancellation, the server's requests answered by handlers, typed tool calls,
/// tasks. Thread-safety: all members may be called from any thread.
class client_session {
 public:
  /// Thread-safety: all members may be called from any thread.
  explicit client_session(std::shared_ptr<connection> conn, client_options opts = {});
  ~client_session();
  client_session(const client_session&) = delete;
  client_session& operator=(const client_session&) = delete;

  /// Handles one received message text. Never throws.
  void receive(std::string_view message);

  /// Negotiates the revision as `client_options::negotiate` says. In the old era: initialize,
  /// then notifications/initialized; returns the InitializeResult. In 2026-07-28: server/discover;
  /// returns the DiscoverResult in an InitializeResult's shape (`protocolVersion`,
  /// `capabilities`, `serverInfo` from its `_meta`, empty when absent, `instructions`,
  /// `supportedVersions`), which `server_result` and `server_info` then give. From then on every
  /// request carries the revision, `capabilities` and `info` in `_meta` (over HTTP also the
  /// `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` headers), and the
  /// server's input requests are answered in rounds by the same handlers as its requests are in
  /// the old era. `opts` (e.g. a longer timeout) applies to the negotiation's requests.
  /// Errors: the server's, `errc::request_timeout`, `errc::connection_closed`; pinned to a
  /// revision the server does not speak, `errc::not_supported` saying what it answered. In
  /// `negotiation::automatic`, an `initialize` that fails after the probe fell back names the
  /// probe's error too ("... (server/discover before it: ...)").
  result<json::object> initialize(const request_options& opts = {});
  /// The negotiated revision ("2026-07-28", "2025-11-25", ...); empty before `initialize`.
  [[nodiscard]] std::string protocol_version() const;
  /// The negotiated era (`protocol_era::none` before `initialize`).
  [[nodiscard]] protocol_era era() const;
  /// Sends a request and waits for its result. Errors: the server's JSON-RPC error,
  /// `errc::request_timeout` (a notifications/cancelled is sent), `errc::connection_closed`.
  result<json::object> request(std::string_view method, json::object params,
                               const request_options& opts = {});
  /// Sends a notification.
  void notify(std::string_view method, json::object params = {});
  /// Sends notifications/cancelled for request `id`; its result will not be awaited further.
  void cancel(std::int64_t id, std::string_view reason = "cancelled by the client");

  /// tools/call. A tool error is a successful result with isError: true. When the tool's
  /// outputSchema is known (from an earlier `list_all_tools` since the last
  /// notifications/tools/list_changed), a successful result's structuredContent is validated
  /// against it. Errors: as `request`; `errc::invalid_params` when structuredContent is missing
  /// or does not match the outputSchema (data `{"path": ...}`), or the outputSchema does not
  /// compile.
  result<json::object> call_tool(std::string_view name, json::object arguments = {},
                                 const request_options& opts = {});

  /// Receives the outcome of `call_tool_async`.
  using call_callback = unique_function<void(result<json::object>)>;
  /// tools/call without waiting: `done` receives exactly what `call_tool` would return, once,
  /// on the thread that receives the answer (a transport's reader or worker; the timer thread
  /// at a timeout; the closing thread at `close`), or on this thread before returning (a
  /// denial, a closed session, a transport that answers at once): do not hold a lock `done`
  /// takes. `done` must not block or throw, and must own what it touches (it may run while or
  /// just after the session closes); it may start further calls. The confirmation hook, when
  /// set, runs first on this thread, with the tool's definition when a listing is cached (none
  /// is fetched). Returns the request's id (for `cancel`), 0 when nothing was sent. Errors:
  /// `std::invalid_argument` for an empty `done`. Many calls may be in flight from one thread.
  std::int64_t call_tool_async(std::string_view name, json::object arguments, call_callback done,
                               const request_options& opts = {});

  /// tools/call with typed arguments and result. `in` is encoded with `to_json` (a described
  /// struct, or a `json::object`); the tool list is fetched first when the tool's outputSchema is
  /// not known yet; a successful result's structuredContent is validated against the tool's
  /// outputSchema, then decoded with `from_json_checked<Out>` (for `Out = std::string`, a result
  /// without structuredContent gives its text). Errors: as the untyped `call_tool`, and
  /// `errc::invalid_params` when the result cannot be decoded as `Out`. A tool error is not an
  /// error here: it is a `tool_reply` with `ok() == false`.
  template <class Out, class In = json::object>
  result<tool_reply<Out>> call_tool(std::string_view name, const In& in = {},
                                    const request_options& opts = {}) {
    json::value args = to_json(in);
    if (!args.is_object()) {
      return error{errc::invalid_params, "tool arguments must encode as a JSON object"};
    }
    if (auto listed = learn_output_schema(name); !listed) return listed.error();
    return decode_reply<Out>(name, call_tool(name, std::move(args.get_object()), opts));
  }

  /// `call_tool<Out>` without waiting: `done` receives what it would return, once, as
  /// `call_tool_async` says (on the thread receiving the answer, ...). No listing is fetched
  /// first: the outputSchema is checked when a listing of this client knows it. Returns the
  /// request's id (0 when nothing was sent). mcp/asio.hpp has the completion-token form.
  template <class Out, class In = json::object>
  std::int64_t call_tool_async(std::string_view name, const In& in,
                               unique_function<void(result<tool_reply<Out>>)> done,
                               const request_options& opts = {}) {
    json::value args = to_json(in);
    if (!args.is_object()) {
      done(error{errc::invalid_params, "tool arguments must encode as a JSON object"});
      return 0;
    }
    return call_tool_async(
        name, std::move(args.get_object()),
        [tool = std::string(name), done = std::move(done)](result<json::object> r) mutable {
          done(decode_reply<Out>(tool, std::move(r)));
        },
        opts);
  }

  /// Decodes a CallToolResult (or the error of getting one) for the typed calls.
  template <class Out>
  static result<tool_reply<Out>> decode_reply(std::string_view name, result<json::object> r) {
    if (!r) return r.error();
    std::string text = joined_text(*r);
    if (const auto* e = r->if_contains("isError"); e != nullptr && e->is_bool() && e->get_bool()) {
      return tool_reply<Out>(std::nullopt, std::move(text), std::move(*r));
    }
    const auto* sc = r->if_contains("structuredContent");
    if constexpr (std::is_same_v<Out, std::string>) {
      if (sc == nullptr) return tool_reply<Out>(std::move(text), {}, std::move(*r));
    }
    if (sc == nullptr) {
      return error{errc::invalid_params,
                   "tool " + std::string(name) + " returned no structuredContent to decode"};
    }
    auto out = from_json_checked<Out>(*sc);
    if (!out) {
      return error{errc::invalid_params,
                   "structuredContent of tool " + std::string(name) + ": " + out.error().message,
                   out.error().data};
    }
    return tool_reply<Out>(std::move(*out), {}, std::move(*r));
  }

  // ---- tasks (client_tasks.cpp; 2026-07-28's extension: client_tasks_modern.cpp) ----
  // A task's requests to the client while it runs (elicitation, sampling) reach the same
  // `request_handlers` as any other: in 2025-11-25 as the server's requests, in 2026-07-28 as
  // the inputRequests of an input_required task, answered by `wait_task` and `task_result`
  // with tasks/update.

  /// 2025-11-25: tools/call with `params.task` (`ttl` when given): the server starts the tool
  /// as a task and answers at once. 2026-07-28: tools/call declaring the tasks extension
  /// (io.modelcontextprotocol/tasks; `ttl` is not sent, the server decides); the server may
  /// also run it at once, and then the task_info has no `id`, status completed and the
  /// CallToolResult in `call_result`. Errors: as `request`; `errc::not_supported` when the server
  /// did not declare `tasks.requests.tools.call` (2025-11-25) or the extension (2026-07-28);
  /// `errc::invalid_params` for an answer that is not a CreateTaskResult.
  result<task_info> call_tool_as_task(std::string_view name, json::object arguments = {},
                                      std::optional<std::chrono::milliseconds> ttl = {},
                                      const request_options& opts = {});
  /// tasks/get.
  result<task_info> get_task(std::string_view task_id);
  /// tasks/result (2025-11-25), or `wait_task` and the inlined result (2026-07-28): waits (up
  /// to `opts.timeout`, else the session's) until the task ends, then returns exactly the
  /// CallToolResult, checked against the tool's outputSchema as `call_tool` does (for tasks this
  /// client started), or the task's JSON-RPC error (2026-07-28: `errc::cancelled` for a
  /// cancelled task).
  result<json::object> task_result(std::string_view task_id, const request_options& opts = {});
  /// `task_result` decoded as `call_tool<Out>` decodes a CallToolResult.
  template <class Out>
  result<tool_reply<Out>> task_result(std::string_view task_id, const request_options& opts = {}) {
    return decode_reply<Out>("of task " + std::string(task_id), task_result(task_id, opts));
  }
  /// Every page of tasks/list. Errors: `errc::not_supported` in 2026-07-28 (the extension has
  /// no tasks/list).
  result<std::vector<task_info>> list_all_tasks();
  /// tasks/cancel: the task as it is afterwards (cancelled; in 2026-07-28 read with tasks/get
  /// after the acknowledgement, cancellation being cooperative). Errors: -32602 from the server
  /// for a task that already ended (2025-11-25).
  result<task_info> cancel_task(std::string_view task_id);
  /// Waits until the task is terminal, woken by notifications/tasks/status, else reading
  /// tasks/get every pollInterval (default 1 s; 2026-07-28: pollIntervalMs, default 500 ms,
  /// answering an input_required task's questions through the handlers with tasks/update, and
  /// woken by notifications/tasks on the subscriptions/listen, which names the task while a
  /// wait_task waits for it; when the wait ends the listen is sent again without the task, or
  /// closed when nothing else is listened to). Both notifications also reach
  /// `client_options::on_notification`.
  /// Errors: `errc::request_timeout` after `timeout`, or those of `get_task` (and of the
  /// handlers in 2026-07-28).
  result<task_info> wait_task(std::string_view task_id, std::chrono::milliseconds timeout);

  /// Every page of tools/list, concatenated. Remembers each tool's outputSchema for `call_tool`.
  result<std::vector<json::object>> list_all_tools();
  /// The tools from the last complete listing, listed again first when there is none yet or
  /// the server said notifications/tools/list_changed since.
  result<std::vector<json::object>> tools();
  /// Every page of a paginated list (`method` "resources/list", "resources/templates/list",
  /// "prompts/list", ...), the objects under `key` ("resources", "resourceTemplates",
  /// "prompts", ...) concatenated. Errors: as `request`; `errc::limit_exceeded` when the server
  /// repeats a cursor or the pages do not end (100,000).
  result<std::vector<json::object>> list_all(std::string_view method, std::string_view key);
  /// resources/read: the ReadResourceResult (`contents`).
  result<json::object> read_resource(std::string_view uri, const request_options& opts = {});
  /// prompts/get with string arguments: the GetPromptResult (`messages`).
  result<json::object> get_prompt(std::string_view name, json::object arguments = {},
                                  const request_options& opts = {});

  /// completion/complete: suggestions for argument `argument` of `ref` (a prompt,
  /// {"type":"ref/prompt","name":…}, or a resource template, {"type":"ref/resource","uri":…})
  /// from what was typed so far (`value`); `context` holds the arguments already chosen
  /// (name → string). The CompleteResult's `completion` (`values`, `total`, `hasMore`).
  /// Errors: `errc::not_supported` when the server did not declare `completions`; as `request`;
  /// `errc::invalid_request` when the answer has no `completion` object.
  result<json::object> complete(json::object ref, std::string_view argument, std::string_view value,
                                json::object context = {});
  /// resources/subscribe: the server sends notifications/resources/updated for `uri` (to
  /// `client_options::on_notification`) until `unsubscribe`. In 2026-07-28 the client's
  /// subscriptions/listen names `uri` from now on (it is opened anew, and this waits for its
  /// acknowledgement, up to `client_options::timeout`). Errors: `errc::not_supported` when the
  /// server did not declare `resources.subscribe` (or, in 2026-07-28, did not acknowledge
  /// `uri`); `errc::request_timeout` when no acknowledgement came; as `request`.
  result<void> subscribe(std::string_view uri);
  /// resources/unsubscribe (in 2026-07-28: the listen without `uri`). Errors: as `subscribe`.
  result<void> unsubscribe(std::string_view uri);
  /// logging/setLevel: the server sends notifications/message at `level` ("debug", "info",
  /// "notice", "warning", "error", "critical", "alert", "emergency") and above. Errors:
  /// `errc::invalid_params` for another level (nothing is sent); `errc::not_supported` when the
  /// server did not declare `logging`; as `request`.
  result<void> set_log_level(std::string_view level);

  /// The server's InitializeResult (empty before initialize).
  [[nodiscard]] json::object server_result() const;
  /// The cache this session keeps results in (mcp/client_cache.hpp; `clear()` empties it); null
  /// when `client_options::cache_results` is false.
  [[nodiscard]] std::shared_ptr<result_cache> cache() const;

  // ---- typed (client_typed.cpp; the types are in mcp/client_types.hpp) ----
  // Decoding ignores members the types do not know; a missing required one is
  // `errc::invalid_params` naming the method and its JSON Pointer ("tools/list:
  // /tools/2/inputSchema: required property is missing"; indices count across pages).

  /// The server's InitializeResult, decoded. Errors: `errc::invalid_request` before initialize;
  /// `errc::invalid_params` when it lacks a required member.
  [[nodiscard]] result<initialize_result> server_info() const;
  /// Every page of tools/list, decoded; remembers each outputSchema as `list_all_tools` does.
  /// Errors: as `list_all`, and decoding errors.
  result<std::vector<tool_info>> list_tools();
  /// Every page of resources/list, decoded. Errors: as `list_tools`.
  result<std::vector<resource_info>> list_resources();
  /// Every page of resources/templates/list, decoded. Errors: as `list_tools`.
  result<std::vector<resource_template_info>> list_resource_templates();
  /// Every page of prompts/list, decoded. Errors: as `list_tools`.
  result<std::vector<prompt_info>> list_prompts();
  /// resources/read, decoded: each content's uri, mime_type and text or blob (base64). Errors:
  /// as `request`, and decoding errors.
  result<read_resource_result> read_resource_contents(std::string_view uri,
                                                      const request_options& opts = {});
  /// prompts/get with string arguments, decoded (description, messages). Errors: as
  /// `read_resource_contents`.
  result<get_prompt_result> get_prompt_messages(std::string_view name, json::object arguments = {},
                                                const request_options& opts = {});
  /// Replaces the roots offered (`client_options::roots`) and, once initialized, sends
  /// notifications/roots/list_changed. Errors: `errc::invalid_request` when the client was not
  /// made with `roots` (it declared no such capability).
  result<void> set_roots(std::vector<root_info> roots);
  /// Closes the connection; waiting requests fail with connection_closed.
  void close();

 private:
  /// Lists the tools when `name`'s outputSchema is not known and no listing is current.
  result<bool> learn_output_schema(std::string_view name);
  /// Asks the confirmation hook about a tools/call: the refusal to return (recorded for the
  /// audit) when it denies it. The hook sees the tool's definition from the cached listing,
  /// listed first when `may_list`.
  std::optional<error> denial(std::string_view name, const json::object& arguments, bool may_list);

 public:
  /// The text blocks of a CallToolResult, joined by newlines.
  static std::string joined_text(const json::object& call_result);

 private:
  struct impl;
  std::shared_ptr<impl> impl_;
};

}  // namespace mcp
