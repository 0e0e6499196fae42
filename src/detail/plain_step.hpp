// Internal: the straight path of a tool call through the SDK's own interceptors. Each built-in
// interceptor (pipeline.cpp, concurrency.cpp) is also a `plain_step`: the same admission and the
// same result filter as its `intercept`, reached by a direct call instead of through a
// `tool_call` handle, the chain's `next` function and a stored filter function. The server
// decides once per pipeline (server_core::add_interceptor) whether every interceptor in it has a
// plain step; when one does not (a user's interceptor, a policy, an audit log), every call takes
// the general path.
#pragma once

#include <mcp/pipeline.hpp>

#include <memory>
#include <string>
#include <vector>

namespace mcp::detail {

class call_state;

class plain_step {
 public:
  /// Before the handler, what `intercept` does up to calling `next`: true to pass the call on,
  /// false when it answered the call instead (a refusal).
  virtual bool admit(call_state& call) = 0;
  /// On a result, what the filter `intercept` adds does (it runs only for calls this step
  /// admitted, in reverse order of the steps). Default: nothing.
  virtual void filter(const call_state& call, call_tool_result& r) const;
  /// `filter` on a result of one text block holding `text` (call_state::complete_text), on the
  /// text alone: true when done (`text` as `filter` would leave the block), false when `filter`
  /// must run on the result built of `text` as left (it finds a problem, and answers as it
  /// would have from the start: what this may already have done to `text`, `filter` would do
  /// again with no further change). Default: false, so that a step whose `filter` does
  /// something is never skipped; a step without a filter says true.
  virtual bool filter_text(const call_state& call, std::string& text) const;

 protected:
  plain_step() = default;
  plain_step(const plain_step&) = default;
  plain_step& operator=(const plain_step&) = default;
  ~plain_step() = default;
};

/// A server's interceptor chain (replaced, never mutated, on `use`) and, when every interceptor
/// in it is a plain step, those steps in the same order (`plain`). Every call's chain is one
/// (server_core::pipeline), so a call finds its plan from its chain.
struct pipeline_plan : std::vector<std::shared_ptr<call_interceptor>> {
  std::vector<plain_step*> steps;  ///< the interceptors, as plain steps
  bool plain = true;
};

}  // namespace mcp::detail
