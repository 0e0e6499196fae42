// Internal: the state behind mcp::client_session (client.cpp: requests, tools; client_tasks.cpp:
// tasks), on the peer core the server face shares.
#pragma once

#include <mcp/client.hpp>
#include <mcp/executor.hpp>
#include <mcp/json_schema.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>

#include "peer.hpp"

namespace mcp {

struct client_session::impl final : detail::peer {
  impl(std::shared_ptr<connection> conn, client_options o)
      : peer(std::move(conn), o.limits), opts(std::move(o)) {
    if (opts.observer) set_observer(opts.observer, observe::kind::client);
    adopt_typed_handlers();
    init_memory();
  }

  /// Turns `on_elicitation`, `on_sampling` and `roots` into request handlers and declared
  /// capabilities (client_typed.cpp). Throws std::invalid_argument for a method handled twice.
  void adopt_typed_handlers();
  /// The roots offered (`client_options::roots`, then `set_roots`); guarded by `mu`.
  std::vector<root_info> roots;
  ~impl() override { close_peer(); }

  /// The negotiated version (for observation), written once before `version_known` is set.
  std::string version;
  std::atomic<bool> version_known{false};
  [[nodiscard]] std::string_view observed_version() const noexcept override {
    return version_known.load() ? std::string_view(version) : std::string_view{};
  }

  client_options opts;
  std::mutex mu;

  // ---- 2026-07-28 (client_modern.cpp) ----
  /// Set once server/discover succeeded: every request from then on is stamped (`stamp`) and
  /// its answer read for `resultType` (input rounds). Written before `version_known`.
  std::atomic<bool> modern{false};
  /// The revision stamped on requests while probing and after (guarded by `mu`).
  std::string modern_version;
  /// `_meta` logLevel sent with every request (`set_log_level` in 2026-07-28); guarded by `mu`.
  std::string log_level;

  /// initialize in the old era: asks for `version`; `exact` refuses another answer.
  result<json::object> legacy_initialize(const std::string& wanted, bool exact,
                                         const request_options& ro);
  /// server/discover in revision `version`: on success the session is in the new era.
  result<json::object> discover(const std::string& rev, const request_options& ro,
                                std::chrono::milliseconds timeout);
  /// `initialize` as `opts.negotiate` says.
  result<json::object> negotiate(const request_options& ro);
  /// Adds the per-request `_meta` to `params` and returns the headers that describe request
  /// `method` (Mcp-Method, Mcp-Name, Mcp-Param-*).
  /// `tasks_ext` declares the tasks extension in the request's client capabilities.
  std::vector<std::pair<std::string, std::string>> stamp(std::string_view method,
                                                         json::object& params,
                                                         bool tasks_ext = false);
  /// A request, in either era: in 2026-07-28 stamped, its answer's resultType read, input rounds
  /// answered (bounded), each retry a new request.
  /// `tasks_ext`: the request declares the tasks extension and may be answered with a task
  /// (resultType "task", returned as it came).
  result<json::object> send_request(std::string_view method, json::object params,
                                    detail::outbound_options o, bool tasks_ext = false);
  /// `send_request` without waiting: `done` as `peer::request_async` says; the handlers of an
  /// input round run on the request executor.
  std::int64_t send_request_async(std::string method, json::object params,
                                  detail::outbound_options o, detail::outbound_callback done,
                                  int round = 0, json::object responses = {},
                                  std::optional<json::value> state = std::nullopt);
  /// What an answer in 2026-07-28 asks for next.
  struct round_step {
    bool complete = true;                ///< the answer is the result
    json::object requests;               ///< else: the input requests to answer
    std::optional<json::value> state{};  ///< and the requestState to echo
  };
  /// Reads `r`, the answer to `method` in round `round`. Errors: an unknown resultType, an
  /// input_required answer to another method or without content, too many rounds.
  /// `task_ok`: a task ("task") is an answer too.
  result<round_step> read_answer(std::string_view method, const json::object& r, int round,
                                 bool task_ok = false) const;
  /// Answers every input request (key → {method, params}) with the client's handlers: the
  /// inputResponses. Errors: a request no handler answers, or a handler's error.
  result<json::object> answer_inputs(const json::object& requests);
  /// 2026-07-28 over HTTP: removes from a tools/list result the tools whose `x-mcp-header`
  /// annotations are invalid (the spec's rejection), each with a warning to `opts.on_warning`.
  void drop_invalid_header_tools(std::vector<json::object>& tools) const;
  // ---- the tasks extension of 2026-07-28 (client_tasks_modern.cpp) ----
  /// True when the server's DiscoverResult declares io.modelcontextprotocol/tasks.
  bool server_offers_tasks_extension();
  /// A tasks/* request of the extension (declaring it), its answer as it came.
  result<json::object> task_request(std::string_view method, std::string_view task_id,
                                    json::object extra = {});
  /// `client_session::call_tool_as_task` in 2026-07-28.
  result<task_info> call_as_task_modern(std::string_view name, json::object arguments,
                                        const detail::outbound_options& o);
  /// `client_session::wait_task` in 2026-07-28: polls tasks/get, answering the questions of an
  /// input_required task through the handlers (tasks/update).
  result<task_info> wait_task_modern(std::string_view task_id, std::chrono::milliseconds timeout);
  // ---- what is remembered beyond one request (client_remember.cpp) ----
  std::shared_ptr<result_cache> cache;  ///< null: `cache_results` is off
  std::string cache_context;            ///< the authorization context of private entries
  /// One count per cached method (`stale_slot`), bumped by every notification that makes that
  /// method's cached results stale: a result whose request began before one is not kept. Per
  /// method, so that a tools/list_changed arriving during a resources/read does not keep the
  /// read's fresh result out of the cache.
  std::array<std::atomic<std::uint64_t>, 5> staleness{};
  /// The origin entries are kept under: `opts.origin`, else this session's context (a cache
  /// shared by sessions that say not where their servers are never mixes them).
  [[nodiscard]] const std::string& cache_origin() const {
    return opts.origin.empty() ? cache_context : opts.origin;
  }
  /// `method` as the result cache keys it: with the negotiated revision after a space, so that
  /// a result kept under one revision is never served to a session of another (results are
  /// kept only once `version` is known: `modern` is set after it).
  [[nodiscard]] std::string cache_method(std::string_view method) const {
    std::string m(method);
    m += ' ';
    m += version;
    return m;
  }
  /// Sets up `cache` and `cache_context` from `opts`.
  void init_memory();
  /// `negotiate`, going straight to the era remembered for `opts.origin` (and probing again
  /// when the server proves it wrong); remembers what it found.
  result<json::object> negotiate_remembered(const request_options& ro);
  /// `negotiate_remembered` but the listen.
  result<json::object> negotiate_or_recall(const request_options& ro);
  /// A request as `client_session::request` sends it: answered from the cache while fresh,
  /// kept when the server allows; a tools/call refused -32020 is sent again once after the
  /// tools were listed anew; an error that proves the remembered era wrong forgets it.
  result<json::object> send_checked(std::string_view method, json::object params,
                                    detail::outbound_options o);
  /// `send_request_async` with the same retry after -32020 (the listing on the handler executor).
  std::int64_t send_checked_async(std::string method, json::object params,
                                  detail::outbound_options o, detail::outbound_callback done);
  /// Lists the tools anew (not from the cache) and keeps the listing. Errors: the listing's.
  result<void> relist_tools();
  /// Drops what notification `method` makes stale (cached lists and reads).
  void forget_stale(std::string_view method, const json::object& params);
  /// Forgets the remembered era when error `e`, in the new era, says the server does not speak
  /// it (any more).
  void check_verdict(const error& e);

  // ---- subscriptions/listen in 2026-07-28 (client_listen.cpp); guarded by `mu` ----
  bool listen_wanted = false;  ///< keep one listen open (re-opened when it ends)
  std::set<std::string, std::less<>> listen_uris;  ///< resourceSubscriptions
  /// taskIds: the tasks a wait_task waits for (one entry per waiter), named only when the server
  /// declared the tasks extension.
  std::multiset<std::string, std::less<>> listen_tasks;
  std::uint64_t listen_generation = 0;  ///< bumped by every (re-)open: older ends are ignored
  std::int64_t listen_id = 0;           ///< the open listen's request id (0: none)
  bool listen_acked = false;            ///< its acknowledgement arrived
  json::object listen_honoured;         ///< what the acknowledgement said it honours
  int listen_failures = 0;              ///< ends in a row without an acknowledgement between
  std::chrono::steady_clock::time_point listen_opened{};  ///< when the open listen was sent
  std::condition_variable listen_cv;                      ///< woken by an acknowledgement
  /// Opens a listen for what the server offers (list changes, `listen_uris`) in place of the
  /// open one; returns its generation.
  std::uint64_t start_listening();
  /// The listen of `generation` ended with `r`: opened again (backing off after failures)
  /// unless the session closed or the server cannot listen.
  void listen_ended(std::uint64_t generation, const result<json::object>& r);
  /// True when `n` is the listen's own (its acknowledgement), which goes no further.
  bool listen_notification(const jsonrpc::notification& n);
  /// resources/subscribe and unsubscribe in 2026-07-28: `uri` added to (or taken from) the
  /// listen, which is opened anew; waits for its acknowledgement.
  result<void> listen_subscribe(std::string_view uri, bool add);
  /// Names task `id` in the listen (opened anew) when the server declared the tasks extension,
  /// and waits up to `timeout` for the acknowledgement (without one the waiter only polls).
  void listen_for_task(std::string_view id, std::chrono::milliseconds timeout);
  /// A waiter of task `id` is done: when no other waits for it, the listen is opened anew
  /// without it (or, with nothing left to hear, ends).
  void unlisten_task(std::string_view id);

  json::object server_result;
  std::shared_ptr<executor> exec;  ///< runs the server's requests; made on first use

  /// A listed tool's outputSchema, compiled (or why it did not compile).
  struct output_schema {
    std::optional<json_schema::validator> validator;
    std::string compile_error;
  };
  /// From the last complete tools/list; dropped on notifications/tools/list_changed.
  std::map<std::string, std::shared_ptr<const output_schema>, std::less<>> output_schemas;
  bool tools_listed = false;
  std::vector<json::object> listed_tools;  ///< the same listing, whole
  std::uint64_t tools_changes = 0;         ///< list_changed notifications so far
  /// Tasks: the tool each task this client started calls (to check its result), and how many
  /// status notifications said a task ended or wants input (wait_task wakes on a change and
  /// asks again).
  std::map<std::string, std::string, std::less<>> task_tools;
  std::uint64_t tasks_ended = 0;
  std::condition_variable task_cv;

  /// Compiles the outputSchema of every listed tool (a server's schema is untrusted input: one
  /// that does not compile is remembered as such, and calls of that tool report it).
  /// `changes_before`: `tools_changes` when the listing started; a list_changed since then
  /// makes the listing stale, and it is not kept (the next `tools()` lists again).
  void remember_output_schemas(const std::vector<json::object>& tools,
                               std::uint64_t changes_before) {
    std::map<std::string, std::shared_ptr<const output_schema>, std::less<>> schemas;
    for (const auto& tool : tools) {
      const auto* name = tool.if_contains("name");
      const auto* schema = tool.if_contains("outputSchema");
      if (name == nullptr || !name->is_string() || schema == nullptr) continue;
      auto entry = std::make_shared<output_schema>();
      auto compiled = json_schema::validator::compile(*schema);
      if (compiled) {
        entry->validator.emplace(std::move(*compiled));
      } else {
        entry->compile_error = compiled.error().message;
      }
      schemas.insert_or_assign(std::string(name->get_string()), std::move(entry));
    }
    std::lock_guard lock(mu);
    if (tools_changes != changes_before) return;
    output_schemas = std::move(schemas);
    listed_tools = tools;
    tools_listed = true;
  }

  /// The server's requests run off the receiving thread (a handler may wait for a user), in
  /// flight so that the server can cancel them.
  void on_request(jsonrpc::request&& req) override {
    const client_request_handler* handler = nullptr;
    for (const auto& [method, h] : opts.request_handlers) {
      if (method == req.method) handler = &h;
    }
    if (handler == nullptr) {
      if (req.method == "ping") return reply(req.id, json::object{});
      return reply_error(req.id, error{errc::method_not_found, "Method not found: " + req.method});
    }
    auto in_flight = std::make_shared<detail::inbound_request>(req.id);
    if (!track(in_flight)) return;
    executor_for_requests().post([self = std::static_pointer_cast<impl>(shared_from_this()),
                                  in_flight, h = *handler, req = std::move(req)] {
      result<json::object> r = error{errc::internal_error, "no result"};
      try {
        r = h(req.params, in_flight->stop_source().get_token());
      } catch (const std::exception& e) {
        r = error{errc::internal_error, req.method + " failed: " + e.what()};
      }
      if (!self->untrack(*in_flight)) return;  // cancelled by the server
      if (r) return self->reply(req.id, *r);
      self->reply_error(req.id, r.error());
    });
  }

  void on_notification(jsonrpc::notification&& n) override {
    forget_stale(n.method, n.params);
    if (listen_notification(n)) return;
    if (n.method == "notifications/tools/list_changed") {
      std::lock_guard lock(mu);
      output_schemas.clear();
      listed_tools.clear();
      tools_listed = false;
      ++tools_changes;
    }
    // The application hears it first: a wait_task it wakes returns after the handler ran.
    if (opts.on_notification) {
      try {
        opts.on_notification(n.method, n.params);
      } catch (...) {  // documented as not throwing: the waits below are still woken
      }
    }
    // A task's status: notifications/tasks/status in 2025-11-25, notifications/tasks (the
    // DetailedTask, on a listen naming the task) in 2026-07-28. Either wakes wait_task.
    if (n.method == "notifications/tasks/status" || n.method == "notifications/tasks") {
      const auto* s = n.params.if_contains("status");
      const auto status =
          s && s->is_string() ? task_status_from_string(s->get_string()) : std::nullopt;
      if (status && (is_terminal(*status) || *status == task_status::input_required)) {
        std::lock_guard lock(mu);
        ++tasks_ended;
        task_cv.notify_all();
      }
    }
  }

  /// The definition of tool `name` in `tools`, or null.
  static const json::object* definition_of(const std::vector<json::object>& tools,
                                           std::string_view name) {
    for (const auto& t : tools) {
      const auto* n = t.if_contains("name");
      if (n != nullptr && n->is_string() && n->get_string() == name) return &t;
    }
    return nullptr;
  }

  /// Asks `opts.confirm` about a call (true: it may go); `definition`: the tool's, when listed.
  [[nodiscard]] bool confirmed(std::string_view tool, const json::object& arguments,
                               const tool_info* definition) const {
    return opts.confirm(call_confirmation{.tool = tool,
                                          .arguments = arguments,
                                          .definition = definition,
                                          .server_trusted = opts.trust_server_annotations});
  }

  /// `r` (a CallToolResult of tool `name`), or why it breaks the tool's known outputSchema.
  [[nodiscard]] result<json::object> checked_result(std::string_view name, json::object r);
  /// A tools/call's answer `r`, checked against the outputSchema and recorded for the audit.
  result<json::object> finish_call(std::string_view name, const json::object& arguments,
                                   std::chrono::steady_clock::time_point t0,
                                   result<json::object> r);

  /// Gives `opts.audit` (when set) the record of one call that started at `t0`.
  void audit(std::string_view tool, const json::object& arguments,
             std::chrono::steady_clock::time_point t0, std::string outcome, std::string detail) {
    if (!opts.audit) return;
    opts.audit(call_record{.server = server_name(),
                           .tool = std::string(tool),
                           .arguments = arguments,
                           .outcome = std::move(outcome),
                           .duration = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::steady_clock::now() - t0),
                           .detail = std::move(detail),
                           .time = std::chrono::system_clock::now() -
                                   std::chrono::duration_cast<std::chrono::system_clock::duration>(
                                       std::chrono::steady_clock::now() - t0)});
  }

  [[nodiscard]] std::string server_name() {
    std::lock_guard lock(mu);
    const auto* info = server_result.if_contains("serverInfo");
    const auto* n =
        info != nullptr && info->is_object() ? info->get_object().if_contains("name") : nullptr;
    return n != nullptr && n->is_string() ? std::string(n->get_string()) : std::string();
  }

  [[nodiscard]] std::optional<std::string> batch_refused() const override {
    return "Invalid Request: this client accepts no JSON-RPC batches";
  }

  /// A client has no one to report a broken server message to: it is dropped.
  void on_invalid(const error&, const std::optional<jsonrpc::request_id>&) override {}

  executor& executor_for_requests() {
    std::lock_guard lock(mu);
    if (!exec) exec = opts.handler_executor ? opts.handler_executor : make_thread_pool(1);
    return *exec;
  }
};

}  // namespace mcp
