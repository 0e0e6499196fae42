// A span's hand-over between the places an incoming request's span waits (the dispatching
// thread's stack, the request's record) and the answering slot that points at a record's span
// until its answer: peer.cpp and peer_observe.cpp. And how an answer sent ended (peer_answer.cpp
// reads it from the text).
#pragma once

#include <mcp/jsonrpc.hpp>
#include <mcp/observe.hpp>

#include <string_view>
#include <utility>

#include "detail/hot_tls.hpp"
#include "detail/read_clock.hpp"

namespace mcp::detail {

/// Moves span `from` into `to` (which holds no active span) and leaves `from` inactive. The
/// strings and the observer's state move only when one side has any (a span of the metrics
/// alone has none), which a member-wise move assignment does not skip.
inline void hand_over(observe::span& to, observe::span& from) noexcept {
  to.context.trace_id = from.context.trace_id;
  to.context.span_id = from.context.span_id;
  to.context.flags = from.context.flags;
  if (!from.context.trace_state.empty() || !to.context.trace_state.empty()) {
    to.context.trace_state = std::move(from.context.trace_state);
  }
  if (!from.baggage.empty() || !to.baggage.empty()) to.baggage = std::move(from.baggage);
  to.start = from.start;
  to.word = from.word;
  if (from.state || to.state) to.state = std::move(from.state);
  to.active = from.active;
  from.active = false;
}

class peer;

/// A tracked request after `untrack`, until its answer is sent on this thread: where its id and
/// span are (in the record, which the caller of `untrack` holds until the answer). The
/// next answer sent on this thread, the next request dispatched on it, and the record's end
/// with its span unanswered clear the slot, so that it never points at a record a caller let
/// go without answering.
struct answering {
  const peer* owner = nullptr;  ///< null: empty
  const jsonrpc::request_id* id = nullptr;
  observe::span* span = nullptr;
};
MCP_HOT_TLS inline thread_local answering answering_slot;  // trivial: no guard on access

/// How an answer written as text ended: read past its id (jsonrpc_text.hpp) for an error's
/// code, and a tools/call result's `isError` at its top level (only a tools/call result has
/// that member there). Thread-safe.
[[nodiscard]] observe::outcome answer_outcome(std::string_view message);

/// How answer `message` ended: `known`, or read from it (`answer_outcome`), with its end now
/// (this thread's clock reading, read_clock.hpp).
[[gnu::always_inline]] inline observe::outcome answer_ended(const observe::outcome* known,
                                                            std::string_view message) {
  // Field by field: a copy of the whole is a `rep movs` in a function optimized for size.
  auto o = known != nullptr ? observe::outcome{.status = known->status,
                                               .code = known->code,
                                               .message = known->message,
                                               .error_type = known->error_type}
                            : answer_outcome(message);
  o.end = this_thread_read_clock.end_now();
  return o;
}

}  // namespace mcp::detail
