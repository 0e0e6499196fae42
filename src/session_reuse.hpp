// Internal: a per-request session kept for the next request. A 2026-07-28 request over HTTP
// needs no state a session keeps between requests: once its answer is sent, the session that
// served it (opened by `server::open_session` with `assume_initialized`) holds nothing, and the
// next request of the same client connection is served by it as by a new one, for its own
// caller. This spares opening and destroying a session per request. And the members of the
// request's `_meta` the transport found while checking its headers are handed to the session
// with the request, which does not look for them again.
#pragma once

#include <mcp/json.hpp>
#include <mcp/server.hpp>

#include <string>
#include <string_view>

namespace mcp::detail {

/// Makes `s` (a per-request session of a server of this process that has received nothing
/// yet) one that may be kept: it records every request it serves until nothing holds it, which
/// `session_reusable` asks. Thread-safe.
void allow_reuse(server_session& s);

/// Whether `s`, a per-request session of a server of this process made keepable
/// (`allow_reuse`), may serve another request: open, no request in flight either way and
/// nothing still holding one it served, no feature state, no twin. Thread-safe.
[[nodiscard]] bool session_reusable(server_session& s);

/// Readies `s` (`session_reusable` said so, and no other thread uses it) for the next request,
/// of caller `who` whose tasks belong to `task_owner`: what a new session would be given.
void reuse_session(server_session& s, principal&& who, std::string&& task_owner);

/// The members of a 2026-07-28 request's `_meta` (null: absent), and that object itself; or,
/// when the request's `_meta` was kept as text (detail/call_scan.hpp), that text, which is not
/// in its `params` (`meta` null), and these members read from it.
struct request_meta_members {
  const json::object* meta = nullptr;
  const json::value* version = nullptr;
  const json::value* caps = nullptr;
  const json::value* level = nullptr;
  std::string_view text;
};

/// The text of the `_meta` of `req`, the request this thread hands to a tool's handler, when
/// it was kept as text (request_meta_members); empty otherwise.
[[nodiscard]] std::string_view kept_meta_text(const jsonrpc::request& req) noexcept;

/// Finds the members of `meta` a 2026-07-28 request is served by, in one pass.
[[nodiscard]] request_meta_members find_meta_members(const json::object& meta) noexcept;

/// Hands 2026-07-28 request `req` to `s` (a session of a server of this process serving that
/// revision), with `m`: the members of `req`'s own `_meta`, found by the caller. Otherwise as
/// `s.receive(jsonrpc::message(std::move(req)))`.
void receive_request(server_session& s, jsonrpc::request&& req, const request_meta_members& m);

}  // namespace mcp::detail
