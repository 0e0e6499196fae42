// File: mcp/audit.hpp
//
// An audit trail of tool calls: one JSON line per call, written when the call ends. A line
// holds the time the call started (UTC), the caller (subject, issuer, client id; never a token
// or claims), the tool, the arguments' SHA-256 or the arguments themselves (by option), the
// outcome (`ok`, `tool_error`, `denied` when an interceptor refused it, `error` for a JSON-RPC
// error or a cancelled call), the refusal or error text, the duration, for a task its id, and
// `trace_id` when the server's observer traces the call (`server_options::observer`).
//
//   {"time":"2026-11-25T15:20:01.123Z","subject":"alice","issuer":"https://auth.example.com",
//    "tool":"delete_row","arguments_sha256":"9f86d0…","outcome":"denied",
//    "message":"Access denied: …","duration_ms":0.04}
//
// Example:
//
//   auto file = mcp::make_audit_file({.path = "/var/log/mcp/audit.jsonl"});
//   if (!file) return fail(file.error().message);
//   server.use(mcp::audit({.sink = std::move(*file)}));
//   server.use(policy);  // after the audit: its refusals are recorded too
#pragma once

#include <mcp/pipeline.hpp>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <string_view>

namespace mcp {

/// What a line says of the call's arguments.
enum class audit_arguments {
  none,    ///< nothing
  digest,  ///< `arguments_sha256`: the SHA-256 of the arguments as sent on (compact JSON)
  full,    ///< `arguments`: the arguments themselves
};

/// Where the audit interceptor writes its lines, and how much of the arguments they show.
struct audit_options {
  /// Receives each line (without a newline). Called from the thread that ends the call; must
  /// be thread-safe and must not throw (an exception is swallowed and the line lost).
  std::function<void(std::string_view line)> sink{};
  audit_arguments arguments = audit_arguments::digest;  ///< what a line says of the arguments
};

/// The audit interceptor. Add it first (`server::use`) so that it sees what every later
/// interceptor refuses. Throws `std::invalid_argument` when `sink` is empty.
[[nodiscard]] std::shared_ptr<call_interceptor> audit(audit_options opts);

/// A file sink with rotation: lines are appended to `path` (created 0600); when it would pass
/// `max_bytes` it becomes `path.1` (`path.1` becomes `path.2`, ... up to `keep` files) and a new
/// `path` is started.
struct audit_file_options {
  std::filesystem::path path{};                    ///< the file written to (required)
  std::size_t max_bytes = std::size_t{64} << 20U;  ///< size at which the file is rotated
  std::size_t keep = 5;  ///< rotated files kept, `path.1` the newest (0 counts as 1)
};

/// Opens the file sink (also the client's: `audit_line`, mcp/client.hpp). The sink is
/// thread-safe; a write that fails is dropped (the sink never throws). Errors:
/// `errc::invalid_params` when the file cannot be opened (the message names it and says why).
[[nodiscard]] result<std::function<void(std::string_view line)>> make_audit_file(
    audit_file_options opts);

}  // namespace mcp
