// Internal: a per-request session kept for the next request. A 2026-07-28 request over HTTP
// needs no state a session keeps between requests: once its answer is sent, the session that
// served it (opened by `server::open_session` with `assume_initialized`) holds nothing, and the
// next request of the same client connection is served by it as by a new one, for its own
// caller. This spares opening and destroying a session per request. And the members of the
// request's `_meta` the transport found while checking its headers are handed to the session,
// which does not look for them again.
#pragma once

#include <mcp/json.hpp>
#include <mcp/server.hpp>

#include <string>

namespace mcp::detail {

/// Whether `s`, a per-request session of a server of this process, may serve another request:
/// open, no request in flight either way, no feature state, no twin. Thread-safe.
[[nodiscard]] bool session_reusable(server_session& s);

/// Readies `s` (`session_reusable` said so, and no other thread uses it) for the next request,
/// of caller `who` whose tasks belong to `task_owner`: what a new session would be given.
void reuse_session(server_session& s, principal&& who, std::string&& task_owner);

/// The members of a 2026-07-28 request's `_meta` (null: absent), and that object itself.
struct request_meta_members {
  const json::object* meta = nullptr;
  const json::value* version = nullptr;
  const json::value* caps = nullptr;
  const json::value* level = nullptr;
};

/// Finds the members of `meta` a 2026-07-28 request is served by, in one pass.
[[nodiscard]] request_meta_members find_meta_members(const json::object& meta) noexcept;

/// Hands `m` (found in the `_meta` of the request this thread passes to a session next) to that
/// session, which takes them when it receives a request with this very `_meta` object, and
/// reads them there again otherwise. Lasts while the object lives: the transport clears it
/// (`forget_request_meta`) once the session has the request.
void note_request_meta(const request_meta_members& m) noexcept;
void forget_request_meta() noexcept;

}  // namespace mcp::detail
