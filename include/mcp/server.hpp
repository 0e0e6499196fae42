// File: mcp/server.hpp
//
// An MCP server: a registry of tools, resources, resource templates and prompts shared by any
// number of cheap sessions. A `server` holds them, the call pipeline and the options;
// `open_session` attaches one connection (one client) to it. `serve_stdio` is the whole main
// loop for a stdio server.
//
// Protocol: revision 2025-11-25, and 2025-06-18, 2025-03-26 and 2024-11-05 when a client asks
// for them (each session speaks the version it negotiated: older clients do not receive fields
// their revision lacks).
//
// Threading: registering, removing, enabling and disabling tools is thread-safe at any time,
// also while serving; each change notifies initialized sessions with a debounced
// `notifications/tools/list_changed`. Handlers run on the server's executor (a small thread
// pool by default) unless the tool is declared `run_inline`. Resources and prompts are likewise
// thread-safe to register and remove; their handlers (read, get, complete) run on the executor.
//
// Tasks (2025-11-25): a tool declared with `.task_support_mode = mcp::task_support::optional`
// (or `required`) may be called with `params.task`; the server answers at once with a task the
// client polls or waits on (tasks/get, tasks/result), kept in `server_options::task_store` (in
// memory by default; `make_sqlite_task_store` in mcp/task_store.hpp keeps tasks across restarts).
//
// Example:
//
//   mcp::server server({.info = {.name = "weather", .version = "1.0.0"}});
//   server.add_tool({.name = "echo", .description = "Echo the text"},
//                   [](const echo_in& in) { return echo_out{in.text}; });
//   return server.serve_stdio();
#pragma once

#include <mcp/executor.hpp>
#include <mcp/pipeline.hpp>
#include <mcp/prompt.hpp>
#include <mcp/protocol.hpp>
#include <mcp/resource.hpp>
#include <mcp/shared_state.hpp>
#include <mcp/tool.hpp>
#include <mcp/typed_tool.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <type_traits>
#include <vector>

namespace mcp {
namespace observe {
class observer;
}
class task_store;  // mcp/task_store.hpp

/// `Implementation`: who the server is.
struct server_info {
  std::string name = "mcp-cpp-server";       ///< programmatic name, e.g. "weather"
  std::string version = "0.0.0";             ///< the server's own version
  std::optional<std::string> title{};        ///< display name for people
  std::optional<std::string> description{};  ///< what the server is for (2025-11-25 and later)
  std::vector<icon> icons{};                 ///< icons a client may show
  std::optional<std::string> website_url{};  ///< `websiteUrl`: where to read about it
};

/// 2026-07-28 input rounds: how the state a round hands the client (`requestState`) is sealed.
struct input_round_options {
  /// The AES-256-GCM key (32 bytes). Empty: a random key made when the server is (retries must
  /// then reach this process). Give the same key to every process that may serve a retry.
  std::string key{};
  /// Or read the key from this file (32 bytes, or 64 hex digits); used when `key` is empty.
  std::string key_file{};
  /// A round's state is refused after this long.
  std::chrono::milliseconds expiry{std::chrono::minutes(10)};
  /// Refuse a state that was used once already (kept until it expires), so a retry cannot be
  /// replayed. Off: the same state may be retried (a client that lost the answer retries).
  bool single_use = false;
};

/// How a server behaves: what it says of itself, where handlers run, limits, tasks, caching,
/// input rounds and observation. Every member has a usable default.
struct server_options {
  server_info info{};  ///< sent in the initialize result (and 2026-07-28 results' `_meta`)
  /// Sent in the initialize result and server/discover: how a model should use the server.
  std::optional<std::string> instructions{};
  std::size_t page_size = 100;  ///< items per page of tools/, resources/, templates/, prompts/list
  /// list_changed notifications of changes this close together are sent once.
  std::chrono::milliseconds list_changed_debounce{20};
  /// Where handlers run. Default: a pool sized for blocking handlers (4 threads, up to 64 while
  /// all are busy; mcp/executor.hpp).
  std::shared_ptr<executor> handler_executor{};
  json_limits limits{};                                ///< per incoming message
  std::size_t max_line_bytes = std::size_t{4} << 20U;  ///< stdio: longest accepted line
  /// stdio: once stdin ends (or `serve_stdio`'s stop is requested), how long `serve_stdio`
  /// waits for the calls still running to be answered before it cancels them and returns
  /// (naming the ones it dropped on stderr). 0: cancel them at once. The default, 1 s, is
  /// within the 2 s a launcher commonly waits after closing a server's stdin before SIGTERM
  /// (`process_options::grace`); a batch fed from a file may want longer.
  std::chrono::milliseconds stdio_drain_timeout{std::chrono::seconds(1)};
  log_level default_log_level = log_level::info;  ///< before the client sets one
  /// Tasks (tools with `task_support_mode` optional or required): where they are kept.
  /// Default: in memory. A durable store (make_sqlite_task_store) keeps tasks and results
  /// across restarts; the server fails the tasks it finds unfinished when it starts.
  std::shared_ptr<mcp::task_store> task_store{};
  std::chrono::milliseconds task_default_ttl{std::chrono::hours(1)};  ///< when none is asked
  std::chrono::milliseconds task_max_ttl{std::chrono::hours(24)};     ///< asked ttls are capped
  std::chrono::milliseconds task_poll_interval{1000};                 ///< `pollInterval` suggested
  std::size_t max_tasks_per_owner = 1000;  ///< unfinished tasks one requestor may have at once
  /// Where task handlers run (e.g. your own job runner); default: `handler_executor`.
  std::shared_ptr<executor> task_executor{};
  /// The output checks and sanitisation every tool result goes through (mcp/pipeline.hpp
  /// `output_limits`), always installed first: size, UTF-8, base64 and MIME types, control
  /// sequences in text. Each rule can be turned off here.
  output_limit_options output{};
  /// 2026-07-28 caching hints. Lists may differ between callers (policies, scopes): private by
  /// default. A resource may set its own (`resource_spec::cache`).
  cache_policy discover_cache{.ttl = std::chrono::minutes(1)};  ///< server/discover
  cache_policy list_cache{.ttl = std::chrono::minutes(1)};      ///< the four lists
  cache_policy read_cache{};                                    ///< resources/read
  input_round_options input_rounds{};  ///< 2026-07-28 input rounds: the sealing key, expiry
  /// Several processes serving one service (mcp/shared_state.hpp; Redis:
  /// `make_redis_shared_state` in mcp/redis.hpp): the task store (unless `task_store` is set),
  /// Streamable HTTP's events and sessions, the input-round key (unless `input_rounds` names
  /// one) and single-use records, and `rate_limit`'s buckets are kept there. Null (the default):
  /// all of it stays in this process.
  std::shared_ptr<mcp::shared_state> shared{};
  /// Observation (mcp/observe.hpp): every request and notification of every session is
  /// reported to it, trace context in `_meta` is honoured and passed on. The SDK's sinks are in
  /// target mcp::observe (metrics, Prometheus, OTLP). Null (the default): nothing is observed.
  std::shared_ptr<observe::observer> observer{};
};

class server_session;

/// What a request needs that its caller lacks (see `server::missing_scopes`).
struct scope_shortfall {
  std::string needed_by;            ///< what needs them, e.g. "tool admin.reset"
  std::vector<std::string> scopes;  ///< the scopes the caller lacks
};

/// How a session is opened.
struct session_options {
  principal who{};  ///< the caller, from the transport (stdio: "local")
  /// Stateless serving: the session starts initialized at this protocol version, with no
  /// client capabilities (so no requests to the client). Used by transports that serve
  /// requests without an initialize handshake per connection. Such a session lives for its
  /// requests only: it is not told of list changes or resource updates.
  std::optional<std::string> assume_initialized{};
  /// Whose tasks the session sees and creates (tasks are bound to their requestor): the
  /// transport sets it (Streamable HTTP: the authenticated principal, else the HTTP session;
  /// stdio: the local user, so a restarted stdio server still serves the tasks it stored).
  /// Unset: a random key of this session's own.
  std::optional<std::string> task_owner{};
  /// True when `task_owner` is shared by callers that cannot be told apart (stateless HTTP
  /// without an authenticator): task ids stay unguessable, but the session does not declare
  /// `tasks.list` and answers tasks/list with -32601, so no caller can list another's tasks.
  bool shared_task_owner = false;
  /// A session another process opened: its record from `server_options::shared`
  /// (`shared_state::load_session`). The session starts initialized in the state the record
  /// holds (version, client capabilities, log level, subscriptions). Set by transports; a
  /// record that does not parse (within `server_options::limits`), or that another caller than
  /// `who` opened, leaves the session uninitialized.
  std::optional<std::string> resume{};
};

namespace detail {
class server_core;
}

/// An MCP server: the registry of tools, resources, prompts and their handlers, shared by every
/// session (stdio, HTTP, in process) opened on it. Thread-safety: every member may be called
/// from any thread, also while sessions serve (registrations take effect for later requests).
class server {
 public:
  /// A server with `opts`. Throws `std::invalid_argument` for an input-round key that is not 32
  /// bytes (or a key file that cannot be read).
  explicit server(server_options opts = {});
  ~server();
  /// A server stays where it was made (handlers and transports refer to it): it is neither
  /// copied nor moved. Hold it in a std::unique_ptr to hand it around.
  server(const server&) = delete;
  server& operator=(const server&) = delete;
  server(server&&) = delete;
  server& operator=(server&&) = delete;

  /// Adds a typed tool: `handler` is a function or function object taking the arguments as a
  /// described struct and/or a `tool_context&`, returning a struct, text, content or a
  /// result (the shapes are listed in mcp/typed_tool.hpp). inputSchema and outputSchema are
  /// inferred unless `spec` gives them; arguments are validated against the inputSchema,
  /// then decoded. Throws `std::invalid_argument` on a bad or duplicate name, a null handler,
  /// a schema that does not compile, or an `x-mcp-header` annotation that is not a header name
  /// (an RFC 9110 token, unique in the tool, on a top-level string, integer or boolean
  /// property). A handler of no supported shape is a compile error.
  template <class F>
  requires detail::typed_handler<F>
  void add_tool(tool_spec spec, F&& handler) {
    detail::typed_tool<std::decay_t<F>> tool(spec, std::forward<F>(handler));
    add_async_tool(std::move(spec), std::move(tool));
  }
  /// Adds a typed tool whose handler is the member function `method` of `*object`, e.g.
  /// `server.add_tool(spec, &engine::forecast, &eng)`. `object` must outlive the tool.
  /// Throws like the form above, and on a null `method` or `object`.
  template <class M, class C, class Obj>
  requires std::is_member_function_pointer_v<M C::*> && std::is_base_of_v<C, Obj>
  void add_tool(tool_spec spec, M C::*method, Obj* object) {
    add_tool(std::move(spec), detail::bound_member<M C::*, Obj>(method, object));
  }
  /// Adds a raw tool (see raw_tool_handler). Throws like the typed form.
  void add_tool(tool_spec spec, raw_tool_handler handler);
  /// Adds an asynchronous raw tool. Throws like the typed form.
  void add_async_tool(tool_spec spec, async_tool_handler handler);

  /// What `remove_tool` does with calls of the tool that are running.
  enum class running_calls {
    wait,    ///< let them finish, and return when they have
    cancel,  ///< fire their stop tokens, and return when they have finished
  };
  /// Removes a tool (new calls of it get -32602), then returns once no call of it runs any
  /// more, so that what its handler refers to (an object bound with the member-function form)
  /// may go. A call of the tool running on this thread (a tool removing itself) is not waited
  /// for. False if there was no such tool. Thread-safe.
  bool remove_tool(std::string_view name, running_calls running = running_calls::wait);
  /// Enables or disables a tool (disabled tools are not listed and cannot be called); false if
  /// there is no such tool.
  bool set_tool_enabled(std::string_view name, bool enabled);
  /// Sends `notifications/tools/list_changed` (debounced) to initialized sessions although no
  /// tool was added or removed: what callers may see changed (a policy was reloaded).
  /// Thread-safe.
  void notify_tools_changed();
  /// Names of the registered tools, in registration order.
  [[nodiscard]] std::vector<std::string> tool_names() const;
  /// What `req` needs that `who` lacks, for a transport that refuses such a request before it
  /// reaches a session (Streamable HTTP: 403 `insufficient_scope`, so the client can ask for
  /// a token with more scopes). Today a tools/call of a tool with `tool_spec::scopes`.
  /// nullopt when `who` may send it, carries no scopes, or the request names nothing known.
  /// Thread-safe.
  [[nodiscard]] std::optional<scope_shortfall> missing_scopes(const jsonrpc::request& req,
                                                              const principal& who) const;
  /// 2026-07-28 Streamable HTTP: whether the `Mcp-Param-<Name>` headers of tools/call `req`
  /// agree with its arguments, for the input properties the tool marks with `x-mcp-header`
  /// (plain values, or `=?base64?...?=`; integers compared as numbers). `header(name)` gives a
  /// header's value, nothing when it is absent. The -32020 error naming the first header that
  /// is missing, unexpected, malformed or different; nothing when they agree, or `req` is not a
  /// tools/call of a known tool. Thread-safe.
  [[nodiscard]] std::optional<error> check_param_headers(
      const jsonrpc::request& req,
      const std::function<std::optional<std::string_view>(std::string_view name)>& header) const;

  /// Adds a resource; `handler` reads it (its shapes: mcp/resource.hpp). Initialized sessions
  /// get a debounced `notifications/resources/list_changed`. Thread-safe.
  /// Throws `std::invalid_argument` on an empty URI or name, a duplicate URI or an empty handler.
  template <class F>
  void add_resource(resource_spec spec, F&& handler) {
    if constexpr (detail::raw_resource_shaped<std::decay_t<F>>) {
      add_raw_resource(std::move(spec), resource_handler(std::forward<F>(handler)));
    } else {
      detail::typed_resource<std::decay_t<F>> typed(spec, std::forward<F>(handler));
      add_raw_resource(std::move(spec), resource_handler(std::move(typed)));
    }
  }
  /// Adds a resource template; reads of matching URIs that are not plain resources go to
  /// `handler` with the template's variables. Thread-safe. Throws `std::invalid_argument` on an
  /// invalid or duplicate template, an empty name or handler.
  template <class F>
  void add_resource_template(resource_template_spec spec, F&& handler) {
    if constexpr (detail::raw_resource_shaped<std::decay_t<F>>) {
      add_raw_template(std::move(spec), resource_handler(std::forward<F>(handler)));
    } else {
      detail::typed_resource<std::decay_t<F>> typed(spec, std::forward<F>(handler));
      add_raw_template(std::move(spec), resource_handler(std::move(typed)));
    }
  }
  /// Removes a resource (by URI) or a template (by its template text); false if there was none.
  bool remove_resource(std::string_view uri);
  /// Removes the template registered with this template text; false if there was none.
  bool remove_resource_template(std::string_view uri_template);
  /// Sends `notifications/resources/updated` for `uri` to every session subscribed to it.
  /// Thread-safe; never blocks on the network.
  void notify_resource_updated(std::string_view uri);

  /// Adds a prompt; `handler` produces its messages (its shapes: mcp/prompt.hpp; the arguments
  /// are inferred from a typed handler's struct when `spec.arguments` is empty). Initialized
  /// sessions get a debounced `notifications/prompts/list_changed`. Thread-safe. Throws
  /// `std::invalid_argument` on an empty or duplicate name, an empty or duplicate argument name,
  /// or an empty handler.
  template <class F>
  void add_prompt(prompt_spec spec, F&& handler) {
    if constexpr (detail::raw_prompt_shaped<std::decay_t<F>>) {
      add_raw_prompt(std::move(spec), prompt_handler(std::forward<F>(handler)));
    } else {
      detail::typed_prompt<std::decay_t<F>> typed(spec, std::forward<F>(handler));
      add_raw_prompt(std::move(spec), prompt_handler(std::move(typed)));
    }
  }
  /// Removes a prompt; false if there was none.
  bool remove_prompt(std::string_view name);

  /// Adds an interceptor to the call pipeline (applies to calls that start afterwards).
  void use(std::shared_ptr<call_interceptor> interceptor);

  /// Attaches a connection. The returned session must be fed every received message text
  /// through `receive`. Thread-safe.
  [[nodiscard]] std::shared_ptr<server_session> open_session(std::shared_ptr<connection> conn,
                                                             session_options opts = {});

  /// Serves one client over stdin/stdout until stdin ends or `stop` is requested (from another
  /// thread, a signal handler's std::stop_source, ...). Then every request read before is still
  /// answered: it waits up to `server_options::stdio_drain_timeout` for the calls still running
  /// (a client that closed its end of stdin may still read stdout), cancels those left, writing
  /// one line on stderr naming their ids, and returns the process exit code (0, or 1 after a
  /// read error). Meanwhile a handler's request to the client (elicitation, sampling, roots)
  /// fails at once with `errc::connection_closed`: no answer can come. Ignores SIGPIPE (a client
  /// that went away must not end the process); no other signal is touched. Blocks the calling
  /// thread.
  int serve_stdio(std::stop_token stop = {});

  /// Marks the server as serving: the list changes made from now on (a tool, resource or
  /// prompt added, removed, enabled or disabled) are runtime changes, which the other processes
  /// of a service (`server_options::shared`) are told of; those made before, the registrations
  /// every process makes alike while it starts, are not. `http_server::start`, `serve_stdio`
  /// and the first `open_session` call it; a transport of the application's own calls it when
  /// it starts to serve. Idempotent; thread-safe; never fails.
  void start_serving() noexcept;

  /// The options the server was built with.
  [[nodiscard]] const server_options& options() const noexcept;

 private:
  void add_raw_resource(resource_spec spec, resource_handler handler);
  void add_raw_template(resource_template_spec spec, resource_handler handler);
  void add_raw_prompt(prompt_spec spec, prompt_handler handler);

  std::shared_ptr<detail::server_core> core_;
};

/// One client's session with a server. Created by `server::open_session`.
/// Thread-safety: `receive` may be called from several threads at once.
class server_session {
 public:
  virtual ~server_session() = default;
  /// Handles one received message text (a JSON-RPC message, or a batch when 2025-03-26 was
  /// negotiated). Answers go out through the connection. Never throws.
  virtual void receive(std::string_view message) = 0;
  /// Handles one message that the transport has already decoded (Streamable HTTP decodes each
  /// body to route its answers; this spares parsing it twice). Never throws.
  virtual void receive(jsonrpc::message&& message) = 0;
  /// Ends the session: running calls are cancelled, pending client requests fail.
  virtual void close() = 0;
  /// The negotiated protocol version (empty before initialize).
  [[nodiscard]] virtual std::string protocol_version() const = 0;
  /// True once initialize succeeded.
  [[nodiscard]] virtual bool initialized() const = 0;
  /// Number of calls currently running in this session.
  [[nodiscard]] virtual std::size_t active_calls() const = 0;
  /// Replaces the caller for what the session receives from now on: a transport that checks
  /// each request (Streamable HTTP with bearer tokens) passes the principal of the request's
  /// token, whose scopes may have grown (step-up). The principal's `key()` must stay the same.
  /// Calls already running keep the caller they started with. Thread-safe; never throws
  /// except `std::bad_alloc`.
  virtual void set_caller(principal who) = 0;
};

}  // namespace mcp
