// Internal: 2026-07-28 input rounds at the request's edges. Before a tools/call, prompts/get or
// resources/read runs in that revision, `open_round` gathers what the client has answered so far
// (the sealed `requestState` of the round before, and this retry's `inputResponses`) into the
// request's input round; when it is done, `close_round` decides the answer: a handler that asked
// something unanswered ends the round with an InputRequiredResult (the questions, and a new
// sealed state), and one that failed for a capability the request did not declare gets -32021.
#pragma once

#include <mcp/jsonrpc.hpp>
#include <mcp/transport.hpp>

#include <memory>
#include <optional>
#include <string>

#include "detail/input_round.hpp"

namespace mcp::detail {

class server_session_impl;
class server_core;
class request_state;

/// The input round of request `req` of caller `who` (its params intact), with the client's
/// capabilities `caps`; null when the request carries nothing into it (no `requestState`, no
/// `inputResponses`) and declares no capability a question needs: the caller then defers it
/// (request_state::defer_round), and a handler that asks nothing opens none. Errors: -32602 for
/// `inputResponses` that is not an object of objects, or a `requestState` the sealer refuses
/// (altered, expired, another caller's or request's).
[[nodiscard]] result<std::shared_ptr<input_round>> open_round(server_core& core,
                                                              const jsonrpc::request& req,
                                                              const principal& who,
                                                              const json::object& caps);

/// The message answering request `r` (on session `s`) when its round decides it, or nothing
/// (the handler's own outcome stands): an InputRequiredResult when it asked something
/// unanswered; -32021 naming the capability when it `failed` after asking for one the client
/// did not declare.
[[nodiscard]] std::optional<std::string> close_round(server_session_impl& s, const request_state& r,
                                                     bool failed);

}  // namespace mcp::detail
