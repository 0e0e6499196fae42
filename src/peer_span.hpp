// A span's hand-over between the places an incoming request's span waits (the dispatching
// thread's stack, the request's record, the answering slot): peer.cpp and peer_observe.cpp. And
// how an answer sent as text ended (peer_answer.cpp).
#pragma once

#include <mcp/observe.hpp>

#include <string_view>
#include <utility>

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

/// How an answer written as text ended: read past its id (jsonrpc_text.hpp) for an error's
/// code, and a tools/call result's `isError` at its top level (only a tools/call result has
/// that member there). Thread-safe.
[[nodiscard]] observe::outcome answer_outcome(std::string_view message);

}  // namespace mcp::detail
