// File: mcp/jsonrpc.hpp
//
// The JSON-RPC 2.0 message model and codec used by every session. It is sans-I/O: it turns a
// parsed JSON value into a request, notification or response, and back into compact text. Custom
// transports and tests use it; tool authors never need it.
//
// Rules enforced (MCP 2025-11-25 basic/index): `"jsonrpc":"2.0"`; ids are strings or integers,
// never null or fractional; `params` is an object when present; a response carries exactly one
// of `result` and `error`; an error for a message whose id cannot be read omits `id`.
//
// Example:
//
//   auto v = mcp::parse_json(R"({"jsonrpc":"2.0","id":7,"method":"ping"})");
//   auto m = mcp::jsonrpc::decode(std::move(*v));
//   if (auto* req = std::get_if<mcp::jsonrpc::request>(&*m))
//     std::string reply = mcp::jsonrpc::encode_result(req->id, mcp::json::object{});
#pragma once

#include <mcp/json.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

namespace mcp::jsonrpc {

/// A request id: a string or an integer, never null.
using request_id = std::variant<std::int64_t, std::string>;

/// Appends the JSON form of `id` to `out`.
void append_id(std::string& out, const request_id& id);

/// A human-readable form of `id` for messages and logs (strings quoted).
[[nodiscard]] std::string to_string(const request_id& id);

/// Reads an id from JSON. Errors: `errc::invalid_request` for null, fractional or other kinds.
[[nodiscard]] result<request_id> id_from_json(const json::value& v);

/// Converts an id to JSON.
[[nodiscard]] json::value id_to_json(const request_id& id);

/// The request a notification gives up: its `requestId` when `method` is
/// `notifications/cancelled` and the id is valid, else nothing (MCP basic/utilities/cancellation).
/// Thread-safe, never throws.
[[nodiscard]] std::optional<request_id> cancelled_request(std::string_view method,
                                                          const json::object& params);

/// A JSON-RPC request: answered with a `response` carrying the same id.
struct request {
  request_id id;        ///< unique among the sender's requests in flight
  std::string method;   ///< e.g. "tools/call"
  json::object params;  ///< empty when absent
};

/// A JSON-RPC notification: a message without an id, never answered.
struct notification {
  std::string method;   ///< e.g. "notifications/progress"
  json::object params;  ///< empty when absent
};

/// A JSON-RPC response: the result or the error of the request with the same id.
struct response {
  request_id id;                      ///< the request's id
  std::optional<json::value> result;  ///< set on success
  std::optional<error> err;           ///< set on failure
};

/// An error response whose id could not be read (its `id` is omitted on the wire).
struct orphan_error {
  error err;  ///< the error the peer sent
};

/// Any decoded message.
using message = std::variant<request, notification, response, orphan_error>;

/// The error produced by `decode`: what to answer, and to which id (absent when unreadable).
struct decode_error {
  error err;                     ///< the error to answer with (`errc::invalid_request`)
  std::optional<request_id> id;  ///< the message's id, when it could be read
};

/// Decodes one message object (not a batch). Moves out of `v`. Thread-safe.
/// Errors: `errc::invalid_request` (-32600) for anything that is not a valid message.
[[nodiscard]] boost::system::result<message, decode_error> decode(json::value&& v);

/// Encodes a success response.
[[nodiscard]] std::string encode_result(const request_id& id, const json::value& result);
/// Encodes an error response; `id` absent means the id could not be read.
[[nodiscard, gnu::cold]] std::string encode_error(const std::optional<request_id>& id,
                                                  const error& e);
/// Encodes a request.
[[nodiscard]] std::string encode_request(const request_id& id, std::string_view method,
                                         const json::object& params);
/// Encodes a notification (`params` omitted when empty).
[[nodiscard]] std::string encode_notification(std::string_view method,
                                              const json::object& params = {});
/// The answer to a batch: the encoded responses as one JSON array. Empty when there are none
/// (a batch of notifications is answered with nothing, never `[]`).
[[nodiscard]] std::string encode_batch(std::span<const std::string> responses);

}  // namespace mcp::jsonrpc
