// Internal: the tools feature. Tools live in a `catalog` of immutable entries, each stored
// once with its compiled schemas and its Tool object pre-serialized per era, so tools/list
// pages are assembled from ready strings. Registers tools/list and tools/call; a call runs
// through the pipeline (tool_call.cpp) and its outcome is delivered to a `call_sink`: the
// tools/call answer itself, or (for task-augmented calls) a task.
#pragma once

#include <mcp/json_schema.hpp>
#include <mcp/server.hpp>

#include <array>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <variant>
#include <vector>

#include "catalog.hpp"
#include "features.hpp"
#include "param_headers.hpp"
#include "protocol.hpp"

namespace mcp::detail {

class call_state;
class server_core;
class server_session_impl;

/// The calls of one tool not yet released (their handler done and the call answered), linked
/// through their states: `remove_tool` waits for them, or stops them first. Shared by the
/// entry's copies.
struct tool_runs {
  std::mutex mu;
  std::condition_variable cv;
  call_state* head = nullptr;  ///< guarded by mu
  std::size_t count = 0;       ///< guarded by mu
  std::size_t waiters = 0;     ///< guarded by mu: `remove_tool` calls waiting on cv
  std::atomic<bool> removed{false};
};

struct tool_entry {
  tool_spec spec;
  std::array<std::string, era_count> wire;  ///< serialized Tool object per era
  std::shared_ptr<const json_schema::validator> input_validator;
  std::shared_ptr<const json_schema::validator> output_validator;  ///< null: no outputSchema
  /// Shared by the entry's copies (enabling and disabling copies an entry; handlers may be
  /// move-only).
  std::shared_ptr<const async_tool_handler> handler;
  std::shared_ptr<tool_runs> runs = std::make_shared<tool_runs>();
  /// Input properties annotated with `x-mcp-header` (2026-07-28 Streamable HTTP).
  std::vector<param_header> param_headers;
  bool enabled = true;
};

/// The scopes in `needed` that `who` lacks (none when `who` carries no scopes).
[[nodiscard]] std::vector<std::string> missing_scopes(const std::vector<std::string>& needed,
                                                      const principal& who);

/// A principal as JSON (a task stored to run again after a restart keeps its caller), and back.
[[nodiscard]] json::object principal_to_json(const principal& who);
[[nodiscard]] principal principal_from_json(const json::object& o);

/// Where a tool call answers: the tools/call response itself (tools_feature), or a task
/// (tasks.cpp), which also routes the call's notifications and requests differently.
class call_sink {
 public:
  virtual ~call_sink() = default;
  /// Delivers the outcome once the result filters ran.
  virtual void deliver(call_state& call, std::variant<call_tool_result, error> outcome) = 0;
  /// Delivers a result of one text block holding `text` (call_state::complete_text). Default:
  /// `deliver` of that result, built.
  virtual void deliver_text(call_state& call, std::string&& text);
  /// The incoming request the call's notifications and requests relate to (transports route
  /// by it); none: standalone messages. Default: the tools/call request.
  [[nodiscard]] virtual std::optional<jsonrpc::request_id> related(const call_state& call) const;
  /// Adds what every notification and request of the call carries in its params (a task's
  /// related-task `_meta`). Default: nothing.
  virtual void annotate(const call_state& call, json::object& params) const;
  /// The executor the handler runs on; null drops the call (its session ended and nobody
  /// waits). Default: the session's server's, while the session lives.
  [[nodiscard]] virtual executor* exec(const call_state& call) const;
  /// Sends a request to the client for the call and waits for the answer (elicitation,
  /// sampling, roots). Default: on the call's session, related to the tools/call request.
  /// `key`: the question's name (a 2026-07-28 task keeps it until tasks/update answers it).
  virtual result<json::object> request_client(call_state& call, std::string_view method,
                                              json::object params,
                                              std::chrono::milliseconds timeout,
                                              std::string_view key);
  /// The same without waiting: `done` runs once, on some thread. Default: on the call's
  /// session, holding no thread while the client answers.
  virtual void request_client_async(call_state& call, std::string_view method, json::object params,
                                    std::chrono::milliseconds timeout, std::string_view key,
                                    unique_function<void(result<json::object>)> done);
  /// A call that waited, parked, for a slot (call_state::hold) starts: the sink lets go of what
  /// kept it alive meanwhile (a task's record holds it). Default: nothing.
  virtual void resumed(call_state& call);
};

class tools_feature final : public feature,
                            public call_sink,
                            public std::enable_shared_from_this<tools_feature> {
 public:
  /// Registers tools/list and tools/call with `core`, which owns this feature.
  explicit tools_feature(server_core& core);

  /// Validates the spec, compiles its schemas and adds it. Throws std::invalid_argument.
  void add(tool_spec spec, async_tool_handler handler);
  /// Removes tool `name`, then waits until no call of it runs (except one running on this
  /// thread), first stopping them when `cancel`. False when there was none.
  bool remove(std::string_view name, bool cancel);
  /// Tells initialized sessions that tools/list may have changed (debounced).
  void changed();
  /// See `server::check_param_headers`.
  [[nodiscard]] std::optional<error> check_param_headers(
      const jsonrpc::request& req,
      const std::function<std::optional<std::string_view>(std::string_view)>& header) const;
  /// The scopes a tools/call `req` needs that `who` lacks (see `server::missing_scopes`).
  [[nodiscard]] std::optional<scope_shortfall> shortfall(const jsonrpc::request& req,
                                                         const principal& who) const;
  bool set_enabled(std::string_view name, bool enabled);
  [[nodiscard]] std::vector<std::string> names() const;
  /// True when a registered tool declares task support (optional or required).
  [[nodiscard]] bool offers_tasks() const;
  /// The enabled tool called `name`, or null.
  [[nodiscard]] std::shared_ptr<const tool_entry> find(std::string_view name) const;

  [[nodiscard]] std::optional<std::pair<std::string, json::object>> capability(
      const server_session_impl& s) const override;

  /// Runs a call through the pipeline, input validation and the handler (tool_call.cpp).
  void run(const std::shared_ptr<call_state>& call) const;
  /// The plain answer: output checks, era trimming, the response (tool_call.cpp).
  void deliver(call_state& call, std::variant<call_tool_result, error> outcome) override;
  /// The same for a text result, written from the text when no check needs the result.
  void deliver_text(call_state& call, std::string&& text) override;

 private:
  void list(server_session_impl& s, const jsonrpc::request& req) const;
  void call(server_session_impl& s, jsonrpc::request&& req);

  server_core& core_;
  catalog<tool_entry> tools_;
  std::size_t list_index_;
  /// Set once a tool marking an input property with x-mcp-header was added (never cleared):
  /// until then no request has Mcp-Param-* headers to check and no tool is looked up for it.
  std::atomic<bool> any_param_headers_{false};
};

/// Why a successful result breaks the tool's outputSchema (-32603 naming the tool), or nothing.
[[nodiscard]] std::optional<error> output_problem(const call_state& call, const call_tool_result& r,
                                                  const std::optional<json::value>& structured);

/// Throws std::invalid_argument unless `name` is 1-128 characters of [A-Za-z0-9_.-].
void check_tool_name(std::string_view name);

}  // namespace mcp::detail
