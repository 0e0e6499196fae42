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
/// when not. Thread-safe; never throws but std::bad_alloc.
[[nodiscard]] bool scan_tool_call(std::string_view text, const json_limits& limits,
                                  jsonrpc::message& out);

}  // namespace mcp::detail
