// Internal: a reader for the commonest message there is, a plain `tools/call` request, that builds
// the request without building the message's JSON document first (docs/design.md, "A plain tool
// call read without a document"). Anything it does not recognise is left to the general path
// (parse_json, then jsonrpc::decode), which reads it exactly as before: the scanner never
// answers, it only says "this is that request" or "not mine".
#pragma once

#include <mcp/json.hpp>
#include <mcp/jsonrpc.hpp>

#include <string_view>

namespace mcp::detail {

/// The keys of a 2026-07-28 request's `_meta` a server reads on every request.
inline constexpr std::string_view meta_version_key = "io.modelcontextprotocol/protocolVersion";
inline constexpr std::string_view meta_caps_key = "io.modelcontextprotocol/clientCapabilities";
inline constexpr std::string_view meta_level_key = "io.modelcontextprotocol/logLevel";
inline constexpr std::string_view meta_info_key = "io.modelcontextprotocol/clientInfo";

/// A request's `_meta` kept as text, not put in its `params` (scan_tool_call's `lazy`): views
/// into the scanned text. `whole` empty: there is none (`_meta` absent, or in `params`).
struct meta_text {
  std::string_view whole;    ///< `_meta`'s object, braces included
  std::string_view version;  ///< its protocolVersion (a string's contents, no escapes)
  std::string_view caps;     ///< its clientCapabilities' object, braces included
  std::size_t caps_members = 0;
  std::string_view level;  ///< its logLevel's contents, when `has_level`
  bool has_level = false;
};

/// Reads the request `text` is when it is a plain `tools/call`: an object with exactly the members
/// `jsonrpc` ("2.0"), `id` (an integer in int64's range, or a string), `method` ("tools/call")
/// and `params`, in any order, whose `params` has exactly `name` (a string) and `arguments` (an
/// object whose members are strings, integers, true, false or null), and may have `_meta` (an
/// object whose members are such values or objects of the same, nested at most four deep with
/// `_meta`, at most 32 entries with each object's end: what a 2026-07-28 request's `_meta`
/// carries), with every string ASCII from space up without escapes, and nothing but JSON
/// whitespace around the tokens. The request is the one parse_json and jsonrpc::decode make of
/// the same text: the same id, the same members in the same order and of the same kinds, in
/// the storage of one message (make_message_storage). Nothing (the general path's work) for
/// anything else: other members (`task`), a duplicate member, an escape, a non-ASCII byte, a
/// fraction, an array, nesting inside `arguments`, bad input, or a text `limits` would refuse
/// or that comes near them. True with the request in `out` when it is; false, `out` untouched,
/// when not. With `lazy`, a `_meta` that is the last member of `params`, has no duplicate key,
/// and has only the revision (a string) and the client's capabilities (an object), and maybe its
/// info and a log level (a string), is not put in `params`: `lazy` says where it is (its `whole`
/// empty otherwise), and `put_meta_text` puts it there as the general path would have, where it
/// would have been. Thread-safe; never throws but std::bad_alloc.
[[nodiscard]] bool scan_tool_call(std::string_view text, const json_limits& limits,
                                  jsonrpc::message& out, meta_text* lazy = nullptr);

/// The object `text` is (a `_meta` scan_tool_call kept as text), in `sp`'s storage.
[[nodiscard]] json::object meta_object(std::string_view text, json::storage_ptr sp = {});

/// Puts `_meta` of text `text` (nothing when empty) at the end of `params`, in its storage.
void put_meta_text(json::object& params, std::string_view text);

}  // namespace mcp::detail
