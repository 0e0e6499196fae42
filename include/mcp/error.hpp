// File: mcp/error.hpp
//
// The error model of mcp-cpp. Runtime paths never throw across the API: fallible calls return
// `mcp::result<T>`, which holds either a value or an `mcp::error`. An `mcp::error` carries a
// JSON-RPC error code (or an SDK-local code), a one-sentence message and optional data, so it
// can be put on the wire as it is.
//
// Registration-time programmer errors (an invalid tool name, a duplicate, a schema that does
// not compile) throw `std::invalid_argument` instead: they are bugs, found at start-up.
//
// Names across include/mcp/ follow one convention (docs/design.md, "Names and errors of the
// public API"): factories are free functions `make_<thing>(options)`, returning
// `result<...>` when they can fail (`make_http_client_connection`, `make_process_connection`,
// `make_audit_file`); calls named for an action (`connect_http`, `connect_in_process`,
// `launch_server`) return a session already connected and initialized, as a `result`.
//
// In a tool handler, every failure becomes a result with `isError: true` (the error rule of
// mcp/typed_tool.hpp); `throw mcp::protocol_error(e)` is the one way to answer a request with a
// JSON-RPC error instead.
//
// Example:
//
//   mcp::result<int> parse_port(std::string_view s) {
//     int v = 0;
//     if (std::from_chars(s.data(), s.data() + s.size(), v).ec != std::errc{})
//       return mcp::error{mcp::errc::invalid_params, "port must be an integer"};
//     return v;
//   }
//   auto r = parse_port("80");
//   if (!r) std::cerr << r.error().message;
#pragma once

#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <optional>
#include <stdexcept>
#include <string>

namespace mcp {

/// Error codes. Negative codes are the JSON-RPC and MCP codes sent on the wire; positive codes
/// are SDK-local conditions (a closed connection, a timeout) that are never sent as they are.
enum class errc : int {
  parse_error = -32700,
  invalid_request = -32600,
  method_not_found = -32601,
  invalid_params = -32602,
  internal_error = -32603,
  resource_not_found = -32002,
  url_elicitation_required = -32042,  ///< 2025-11-25 (removed in 2026-07-28)
  header_mismatch = -32020,           ///< 2026-07-28: an HTTP header disagrees with the body
  /// 2026-07-28: the request needs a client capability it did not declare
  /// (`data.requiredCapabilities`).
  missing_required_client_capability = -32021,
  /// 2026-07-28: the server does not serve the requested revision (`data.supported`,
  /// `data.requested`).
  unsupported_protocol_version = -32022,
  user_rejected = -1,

  connection_closed = 1,  ///< the peer or the transport went away
  request_timeout = 2,    ///< an outgoing request got no answer in time
  cancelled = 3,          ///< the operation was cancelled locally
  limit_exceeded = 4,     ///< a size, depth or rate limit was hit
  not_supported = 5,      ///< the peer did not declare the needed capability
  /// 2026-07-28: the client must answer an input request first; the handler returns, and its
  /// round ends with an `input_required` result (see `request_context::request`).
  input_required = 6,
  tool_failed = 7,  ///< a tool's own failure (`tool_error`): sent as an `isError` result
};

/// An error: a code, a one-sentence message and optional free-form data.
/// A plain value type; safe to copy between threads.
struct error {
  /// An `errc` value, or any other JSON-RPC code a peer sent (negative: on the wire).
  int code = static_cast<int>(errc::internal_error);
  std::string message;                       ///< one sentence, for people
  std::optional<boost::json::value> data{};  ///< the JSON-RPC error's `data`; unset: none

  error() = default;
  /// An error with any integer code (e.g. one a peer sent).
  error(int c, std::string m, std::optional<boost::json::value> d = std::nullopt)
      : code(c), message(std::move(m)), data(std::move(d)) {}
  /// An error with a known code.
  error(errc c, std::string m, std::optional<boost::json::value> d = std::nullopt)
      : code(static_cast<int>(c)), message(std::move(m)), data(std::move(d)) {}

  /// True when the code is `c`.
  [[nodiscard]] bool is(errc c) const noexcept { return code == static_cast<int>(c); }
  friend bool operator==(const error& a, const error& b) {
    return a.code == b.code && a.message == b.message && a.data == b.data;
  }
};

/// A value or an error. `r.value()` on an error throws `mcp::error_exception`.
template <class T>
using result = boost::system::result<T, error>;

/// The exception thrown by `result<T>::value()` when it holds an error.
class error_exception : public std::runtime_error {
 public:
  /// Carries `e`; `what()` is its message.
  explicit error_exception(error e) : std::runtime_error(e.message), error_(std::move(e)) {}
  /// The error, with its code and data.
  [[nodiscard]] const error& get() const noexcept { return error_; }

 private:
  error error_;
};

/// Thrown by a handler to answer its request with the JSON-RPC error `e` instead of a result: the
/// one explicit way out of the error rule (mcp/typed_tool.hpp), e.g.
/// `throw mcp::protocol_error(mcp::url_elicitation_required(...))`. Resource and prompt
/// handlers may throw it too (their returned errors are JSON-RPC errors already).
class protocol_error : public error_exception {
 public:
  /// Carries `e`, the JSON-RPC error the request is answered with.
  using error_exception::error_exception;
};

/// Found by boost::system::result through ADL; throws `error_exception`.
[[noreturn]] void throw_exception_from_error(const error& e, const boost::source_location& loc);

}  // namespace mcp
