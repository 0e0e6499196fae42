// File: mcp/policy.hpp
//
// A declarative tool policy, written by whoever deploys the server (a JSON file) or in C++: per
// tool (and who may read which resources and get which prompts), who may call it (scopes, roles, an
// explicit grant for destructive tools, or nobody) and its limits (rate per caller, concurrent
// calls, deadline, output size), with defaults and per-caller overrides. It is one call interceptor
// (mcp/pipeline.hpp): a call it refuses gets `isError: true` with the reason, and a caller sees in
// tools/list only the tools it may call. The file can be reloaded while serving: the next call uses
// it, sessions stay; a file that does not parse is refused with the reason and the policy in force
// stays.
//
// The file (every member optional; unknown members are refused, so a typo is not a silent hole):
//
//   {
//     "defaults": {"rate": {"per_second": 10, "burst": 20}, "max_concurrent": 16,
//                  "deadline_ms": 30000, "max_output_bytes": 1048576},
//     "destructive_tools_need_grant": true,
//     "tools": {
//       "admin.*":    {"roles": ["ops"]},
//       "delete_row": {"grant": true, "scopes": ["db.write"], "rate": {"per_second": 1}},
//       "debug_dump": {"deny": true}
//     },
//     "principals": {
//       "https://auth.example.com ci-bot": {"roles": ["ops"], "rate": {"per_second": 100}}
//     },
//     "resources": {"file:///secrets/*": {"scopes": ["secrets.read"]}},
//     "prompts":   {"incident_*": {"roles": ["ops"]}}
//   }
//
// Example:
//
//   auto policy = mcp::make_tool_policy("policy.json", {.watch = true,
//       .on_change = [&server] { server.notify_tools_changed(); }});
//   if (!policy) return fail(policy.error().message);
//   server.use(*policy);
#pragma once

#include <mcp/error.hpp>
#include <mcp/pipeline.hpp>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcp {

/// A token bucket per caller and tool.
struct rate_rule {
  double per_second = 10;  ///< refill rate, > 0
  double burst = 20;       ///< bucket size, >= 1 (the file: default 2 × per_second, at least 1)
};

/// What applies to one tool (or, as `policy_rules::defaults`, to every tool). Unset members
/// fall back to the defaults.
struct tool_rule {
  /// false: nobody may call the tool ("deny": true); true: an explicit grant ("grant": true),
  /// which destructive tools need when `destructive_tools_need_grant`.
  std::optional<bool> allow{};
  /// OAuth scopes the caller needs, all of them (only callers whose principal carries scopes).
  std::vector<std::string> scopes{};
  /// Roles of which the caller needs one: the principal's `roles` claim (an array of strings)
  /// and the roles `policy_rules::principals` grants it.
  std::vector<std::string> roles{};
  std::optional<rate_rule> rate{};                      ///< per caller (principal key)
  std::optional<std::size_t> max_concurrent{};          ///< across callers, > 0
  std::optional<std::chrono::milliseconds> deadline{};  ///< "deadline_ms", > 0
  std::optional<std::size_t> max_output_bytes{};        ///< content + structuredContent, > 0
};

/// What the policy grants one caller on top of the tool rules.
struct principal_rule {
  std::vector<std::string> roles{};  ///< added to the caller's roles
  std::optional<rate_rule> rate{};   ///< replaces the tools' rate for this caller
};

/// Who may read a resource or get a prompt ("resources" and "prompts" in the file).
struct access_rule {
  bool deny = false;                  ///< nobody ("deny": true)
  std::vector<std::string> scopes{};  ///< OAuth scopes the caller needs, all of them
  std::vector<std::string> roles{};   ///< roles of which the caller needs one (as for tools)
};

/// A whole policy.
struct policy_rules {
  tool_rule defaults{};  ///< every tool's starting rule; what its `tools` entry sets wins
  /// By tool name; a name ending in `*` matches every tool starting with what comes before it.
  /// An exact name wins over patterns; of two patterns, the longer wins.
  std::map<std::string, tool_rule, std::less<>> tools{};
  /// By principal key ("issuer subject", see `principal::key`), or by subject alone for callers
  /// without an issuer (stdio, custom authenticators).
  std::map<std::string, principal_rule, std::less<>> principals{};
  /// By resource URI, or a URI prefix ending in `*` ("file:///secrets/*"); matched as tools
  /// are. A resource no rule names is open to every caller.
  std::map<std::string, access_rule, std::less<>> resources{};
  /// By prompt name, or a prefix ending in `*`.
  std::map<std::string, access_rule, std::less<>> prompts{};
  /// Tools that may destroy (annotations: not read-only, `destructiveHint` true or unset) are
  /// refused and hidden unless their rule has `allow = true` ("grant": true).
  bool destructive_tools_need_grant = false;
};

/// Parses a policy document. Errors: `errc::invalid_params` naming the member and the problem
/// (e.g. `tools.delete_row.rate.per_second: must be a number > 0`), `errc::parse_error` for
/// text that is not JSON.
[[nodiscard]] result<policy_rules> parse_policy(std::string_view json_text);

/// How a file-backed policy behaves.
struct policy_file_options {
  /// Check the file's modification time every `watch_interval` and reload it when it changed.
  bool watch = false;
  std::chrono::milliseconds watch_interval{1000};  ///< with `watch`: how often to check
  /// Called after rules were replaced (e.g. `server::notify_tools_changed`). From the thread
  /// that reloaded: the watcher or the caller of `reload`/`set`. Must not throw. What it
  /// captures must outlive the policy: the server holds the policy, so the policy (and its
  /// watcher) may live until the server is destroyed.
  std::function<void()> on_change{};
  /// Called when a reload failed (the old rules stay), with the reason. Must not throw.
  std::function<void(const error&)> on_error{};
};

class tool_policy;
/// A policy from rules given in C++ (no rules: `make_tool_policy(mcp::policy_rules{})`; a bare
/// `{}` would also match the file form). Thread-safety: may be called from any thread.
[[nodiscard]] std::shared_ptr<tool_policy> make_tool_policy(policy_rules rules);
/// A policy read from a file (watched when `opts.watch`). Thread-safety: may be called from any
/// thread. Errors: the file's path and the reason when it cannot be read or parsed.
[[nodiscard]] result<std::shared_ptr<tool_policy>> make_tool_policy(std::filesystem::path path,
                                                                    policy_file_options opts = {});

/// The interceptor. Put it first among the interceptors (`server::use`) so that what it
/// refuses costs nothing else.
///
/// Thread-safety: every member may be called from any thread; a call in flight keeps the rules
/// it started with.
class tool_policy final : public call_interceptor {
 public:
  /// Made by `make_tool_policy`.
  friend std::shared_ptr<tool_policy> make_tool_policy(policy_rules rules);
  friend result<std::shared_ptr<tool_policy>> make_tool_policy(std::filesystem::path path,
                                                               policy_file_options opts);
  ~tool_policy() override;
  tool_policy(const tool_policy&) = delete;
  tool_policy& operator=(const tool_policy&) = delete;

  /// Replaces the rules; the next call uses them. Rate buckets start full again.
  void set(policy_rules rules);
  /// Reads the file again (policies read from a file). On an error the rules in force stay.
  result<void> reload();
  /// The rules in force.
  [[nodiscard]] std::shared_ptr<const policy_rules> rules() const;
  /// Why `who` may not call `tool` under the rules in force (the defaults, the tool's rule and
  /// the caller's override together); empty when it may.
  [[nodiscard]] std::string refusal(const principal& who, const tool_spec& tool) const;

  /// Applies the rules in force to a tools/call: a refusal, an exceeded rate or too many
  /// concurrent calls finish it with an `isError` result saying why; otherwise `next` runs it.
  /// A call admitted earlier (`tool_call::admitted_earlier`) gets only the rule's deadline and
  /// output limit.
  void intercept(const tool_call& call, const std::function<void()>& next) override;
  [[nodiscard]] bool visible(const principal& who, const tool_spec& tool) const override;
  [[nodiscard]] std::string resource_refusal(const principal& who,
                                             std::string_view uri) const override;
  [[nodiscard]] std::string prompt_refusal(const principal& who,
                                           std::string_view name) const override;

  struct state;

 private:
  tool_policy() = default;
  std::shared_ptr<state> state_;
};

}  // namespace mcp
