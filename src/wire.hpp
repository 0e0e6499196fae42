// Internal: the wire module. Writes the protocol objects (Tool, Resource, ResourceTemplate,
// Prompt, Implementation, Icon, Annotations) and shapes results for a negotiated era, reading
// the era table (protocol.hpp). Nothing else in the SDK decides which field an era has.
#pragma once

#include <mcp/content.hpp>
#include <mcp/prompt.hpp>
#include <mcp/resource.hpp>
#include <mcp/server.hpp>
#include <mcp/tool.hpp>

#include <string>

#include "protocol.hpp"

namespace mcp::detail::wire {

/// `Icon[]`.
[[nodiscard]] json::array icons(const std::vector<icon>& icons);
/// `Annotations` of content and resources; `lastModified` only for eras that have it.
[[nodiscard]] json::object annotations(const content_annotations& a, era e = latest_era);
/// `ToolAnnotations` (unset hints are left out).
[[nodiscard]] json::object tool_annotations(const tool_annotations& a);
/// `Implementation` (the serverInfo of an InitializeResult).
[[nodiscard]] json::object implementation(const server_info& info, era e);

/// The `Tool` object, serialized.
[[nodiscard]] std::string tool(const tool_spec& s, era e);
/// `Resource`, `ResourceTemplate`, `Prompt`.
[[nodiscard]] json::object resource(const resource_spec& s, era e);
[[nodiscard]] json::object resource_template(const resource_template_spec& s, era e);
[[nodiscard]] json::object prompt(const prompt_spec& s, era e);

/// Appends the `CallToolResult` `r` (its structuredContent given apart, as a value) as era `e`
/// has it: without `structuredContent`, `_meta` or content blocks the era lacks. `meta_member`
/// (a `"key":value` text) is added to its `_meta` (2026-07-28: the server's identity), and the
/// object is left open for more fields when `open` (the caller closes it).
void append_tool_result(std::string& out, const call_tool_result& r, const json::value* structured,
                        era e, std::string_view meta_member = {}, bool open = false);
/// `append_tool_result` of a result holding only `text_content(text)`, from the text.
void append_text_result(std::string& out, std::string_view text, std::string_view meta_member = {},
                        bool open = false);
/// Removes from a content array the blocks era `e` does not know.
void drop_unknown_content(json::array& content, era e);

/// `execution.taskSupport` names.
[[nodiscard]] std::string_view task_support_name(task_support t) noexcept;

}  // namespace mcp::detail::wire
