// File: mcp/client_types.hpp
//
// What a client reads from a server, as plain C++ values: the InitializeResult
// (`initialize_result`), listed tools, resources, resource templates and prompts (`tool_info`,
// `resource_info`, `resource_template_info`, `prompt_info`), and the requests a server makes of
// the client with their answers (`elicitation_request`/`elicitation_answer`,
// `sampling_request`/`sampling_answer`, `root_info`). Each is described with MCP_FIELDS
// (mcp/reflect.hpp), so `from_json<T>` decodes it and `to_json` writes it under the wire's
// names. The results a server's handlers return (`read_resource_result`, `get_prompt_result`,
// `tool_annotations`, `icon`, `prompt_argument`) are described here too, so that the client
// decodes into the very types the server produces.
//
// Decoding is tolerant of what servers add (unknown members are ignored) and strict about what
// the schema (2025-11-25) requires: a missing `name`, `uri`, `inputSchema`, ... is an
// `errc::invalid_params` error naming it ("/tools/3/inputSchema: required property is
// missing"). Used by mcp/client.hpp (`client_session::list_tools`, `server_info`, ...).
//
// Thread-safety: all of them are plain values, safe to copy and to read from several threads;
// their member functions never throw.
//
// Example:
//
//   auto tools = client.list_tools();  // result<std::vector<mcp::tool_info>>
//   if (!tools) return fail(tools.error().message);
//   for (const auto& t : *tools) {
//     std::cout << t.name << ": " << t.description.value_or("") << "\n";
//     if (t.annotations && t.annotations->read_only_hint.value_or(false)) std::cout << " (ro)";
//   }
//   auto info = client.server_info();  // result<mcp::initialize_result>
//   if (info && info->capabilities.resources) { /* ... */ }
#pragma once

#include <mcp/content.hpp>
#include <mcp/json.hpp>
#include <mcp/prompt.hpp>
#include <mcp/reflect.hpp>
#include <mcp/resource.hpp>
#include <mcp/tool.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mcp {

// ---- the server's own types, described for decoding (declared in tool.hpp, resource.hpp,
// prompt.hpp, content.hpp) ----

MCP_FIELDS(icon, (src), (mime_type, {.name = "mimeType"}), (sizes, {.defaulted = true}), (theme))
MCP_FIELDS(tool_annotations, (title), (read_only_hint, {.name = "readOnlyHint"}),
           (destructive_hint, {.name = "destructiveHint"}),
           (idempotent_hint, {.name = "idempotentHint"}),
           (open_world_hint, {.name = "openWorldHint"}))
MCP_FIELDS(content_annotations, (audience), (priority), (last_modified, {.name = "lastModified"}))
MCP_FIELDS(prompt_argument, (name), (title), (description), (required, {.defaulted = true}))
MCP_FIELDS(resource_contents, (uri), (mime_type, {.name = "mimeType"}), (text), (blob),
           (meta, {.name = "_meta", .defaulted = true}))
MCP_FIELDS(read_resource_result, (contents), (meta, {.name = "_meta", .defaulted = true}))
MCP_FIELDS(prompt_message, (role), (content))
MCP_FIELDS(get_prompt_result, (description), (messages),
           (meta, {.name = "_meta", .defaulted = true}))

// ---- the InitializeResult ----

/// `Implementation`: who the server (or client) is. A plain value.
struct implementation_info {
  std::string name;                          ///< programmatic name
  std::string version;                       ///< its version
  std::optional<std::string> title{};        ///< display name for people
  std::optional<std::string> description{};  ///< what it is for
  std::optional<std::string> website_url{};  ///< `websiteUrl`
  std::vector<icon> icons{};                 ///< icons a client may show
};
MCP_FIELDS(implementation_info, (name), (version), (title), (description),
           (website_url, {.name = "websiteUrl"}), (icons, {.defaulted = true}))

/// A capability whose only flag is `listChanged` (tools, prompts).
struct list_capability {
  std::optional<bool> list_changed{};  ///< `listChanged`: list changes are announced
};
MCP_FIELDS(list_capability, (list_changed, {.name = "listChanged"}))

/// The `resources` capability.
struct resources_capability {
  std::optional<bool> subscribe{};     ///< resources/subscribe is offered
  std::optional<bool> list_changed{};  ///< `listChanged`: list changes are announced
};
MCP_FIELDS(resources_capability, (subscribe), (list_changed, {.name = "listChanged"}))

/// `ServerCapabilities`: a member is set exactly when the server declared that capability.
/// Those with structure the SDK does not model (`tasks`, `experimental`) stay JSON.
struct server_capabilities {
  std::optional<list_capability> tools{};           ///< tools are offered
  std::optional<resources_capability> resources{};  ///< resources are offered
  std::optional<list_capability> prompts{};         ///< prompts are offered
  std::optional<json::object> logging{};            ///< logging/setLevel and log messages
  std::optional<json::object> completions{};        ///< completion/complete
  std::optional<json::object> tasks{};              ///< tasks (2025-11-25), as declared
  std::optional<json::object> experimental{};       ///< non-standard capabilities, as declared
};
MCP_FIELDS(server_capabilities, (tools), (resources), (prompts), (logging), (completions), (tasks),
           (experimental))

/// `InitializeResult`: what the server said about itself on initialize. A plain value.
struct initialize_result {
  std::string protocol_version;               ///< `protocolVersion` the server chose
  server_capabilities capabilities;           ///< what the server offers
  implementation_info server_info;            ///< `serverInfo`
  std::optional<std::string> instructions{};  ///< how a model should use the server
  json::object meta{};                        ///< `_meta`
};
MCP_FIELDS(initialize_result, (protocol_version, {.name = "protocolVersion"}), (capabilities),
           (server_info, {.name = "serverInfo"}), (instructions),
           (meta, {.name = "_meta", .defaulted = true}))

// ---- listings ----

/// `ToolExecution` (2025-11-25).
struct tool_execution {
  /// "forbidden" (also when absent), "optional" or "required"; kept as text so that a value a
  /// later revision adds does not fail the listing (`tool_info::task_mode` reads it).
  std::optional<std::string> task_support{};
};
MCP_FIELDS(tool_execution, (task_support, {.name = "taskSupport"}))

/// `Tool`, as a server lists it. A plain value.
struct tool_info {
  std::string name;                               ///< what tools/call names
  std::optional<std::string> title{};             ///< display name for people
  std::optional<std::string> description{};       ///< what it does, for the model
  json::object input_schema;                      ///< `inputSchema` (required)
  std::optional<json::object> output_schema{};    ///< `outputSchema`
  std::optional<tool_annotations> annotations{};  ///< hints (read-only, destructive, ...)
  std::optional<tool_execution> execution{};      ///< 2025-11-25
  std::vector<icon> icons{};                      ///< icons a client may show
  json::object meta{};                            ///< `_meta`

  /// Whether the tool may be called as a task: `execution.taskSupport`, `forbidden` when absent
  /// or unknown. Never throws.
  [[nodiscard]] task_support task_mode() const noexcept {
    if (!execution || !execution->task_support) return task_support::forbidden;
    if (*execution->task_support == "optional") return task_support::optional;
    if (*execution->task_support == "required") return task_support::required;
    return task_support::forbidden;
  }
  /// The display name: `title`, else `annotations.title`, else `name`.
  [[nodiscard]] const std::string& display_name() const noexcept {
    if (title) return *title;
    if (annotations && annotations->title) return *annotations->title;
    return name;
  }
};
MCP_FIELDS(tool_info, (name), (title), (description), (input_schema, {.name = "inputSchema"}),
           (output_schema, {.name = "outputSchema"}), (annotations), (execution),
           (icons, {.defaulted = true}), (meta, {.name = "_meta", .defaulted = true}))

/// `Resource`, as a server lists it. A plain value.
struct resource_info {
  std::string uri;                                   ///< what resources/read takes
  std::string name;                                  ///< programmatic name
  std::optional<std::string> title{};                ///< display name for people
  std::optional<std::string> description{};          ///< what it holds
  std::optional<std::string> mime_type{};            ///< `mimeType`
  std::optional<std::int64_t> size{};                ///< bytes
  std::optional<content_annotations> annotations{};  ///< audience, priority, last modified
  std::vector<icon> icons{};                         ///< icons a client may show
  json::object meta{};                               ///< `_meta`
};
MCP_FIELDS(resource_info, (uri), (name), (title), (description), (mime_type, {.name = "mimeType"}),
           (size), (annotations), (icons, {.defaulted = true}),
           (meta, {.name = "_meta", .defaulted = true}))

/// `ResourceTemplate`, as a server lists it. A plain value.
struct resource_template_info {
  std::string uri_template;                          ///< RFC 6570 (mcp/uri_template.hpp expands it)
  std::string name;                                  ///< programmatic name
  std::optional<std::string> title{};                ///< display name for people
  std::optional<std::string> description{};          ///< what its resources hold
  std::optional<std::string> mime_type{};            ///< `mimeType` of its resources
  std::optional<content_annotations> annotations{};  ///< audience, priority, last modified
  std::vector<icon> icons{};                         ///< icons a client may show
  json::object meta{};                               ///< `_meta`
};
MCP_FIELDS(resource_template_info, (uri_template, {.name = "uriTemplate"}), (name), (title),
           (description), (mime_type, {.name = "mimeType"}), (annotations),
           (icons, {.defaulted = true}), (meta, {.name = "_meta", .defaulted = true}))

/// `Prompt`, as a server lists it. A plain value.
struct prompt_info {
  std::string name;                          ///< what prompts/get takes
  std::optional<std::string> title{};        ///< display name for people
  std::optional<std::string> description{};  ///< what it is for
  std::vector<prompt_argument> arguments{};  ///< the arguments it takes
  std::vector<icon> icons{};                 ///< icons a client may show
  json::object meta{};                       ///< `_meta`
};
MCP_FIELDS(prompt_info, (name), (title), (description), (arguments, {.defaulted = true}),
           (icons, {.defaulted = true}), (meta, {.name = "_meta", .defaulted = true}))

// ---- what a server asks of the client ----

/// The params of `elicitation/create`: a form (`mode` absent or "form": `message` and
/// `requested_schema`) or, from 2025-11-25, a URL to open (`mode` "url": `url`,
/// `elicitation_id`). A plain value.
struct elicitation_request {
  std::string message;                             ///< what to ask the user
  std::optional<std::string> mode{};               ///< "form" (also when absent) or "url"
  std::optional<json::object> requested_schema{};  ///< `requestedSchema` of the form (form mode)
  std::optional<std::string> url{};                ///< the page to open (URL mode)
  std::optional<std::string> elicitation_id{};     ///< `elicitationId` (URL mode)
  json::object meta{};                             ///< `_meta`

  /// True for a URL-mode request.
  [[nodiscard]] bool is_url() const noexcept { return mode && *mode == "url"; }
};
MCP_FIELDS(elicitation_request, (message), (mode), (requested_schema, {.name = "requestedSchema"}),
           (url), (elicitation_id, {.name = "elicitationId"}),
           (meta, {.name = "_meta", .defaulted = true}))

/// The `ElicitResult`: what the user did, and the form's values when they accepted a form.
struct elicitation_answer {
  std::string action = "cancel";          ///< "accept", "decline" or "cancel"
  std::optional<json::object> content{};  ///< the form's values, with "accept" in form mode

  /// The user submitted the form (`content`: its values; none for URL mode).
  [[nodiscard]] static elicitation_answer accept(std::optional<json::object> content = {}) {
    return {"accept", std::move(content)};
  }
  /// The user said no.
  [[nodiscard]] static elicitation_answer decline() { return {"decline", std::nullopt}; }
  /// The user dismissed the request without choosing.
  [[nodiscard]] static elicitation_answer cancel() { return {"cancel", std::nullopt}; }
};
MCP_FIELDS(elicitation_answer, (action), (content))

/// `SamplingMessage`: a role and its content (one block, or from 2025-11-25 an array of them).
struct sampling_message {
  std::string role;     ///< "user" or "assistant"
  json::value content;  ///< a content block, or an array of them
};
MCP_FIELDS(sampling_message, (role), (content))

/// The params of `sampling/createMessage`. What the SDK does not model (`modelPreferences`,
/// `tools`, `toolChoice`, `metadata`) stays JSON. A plain value.
struct sampling_request {
  std::vector<sampling_message> messages;           ///< the conversation so far
  std::int64_t max_tokens = 0;                      ///< `maxTokens` (required)
  std::optional<std::string> system_prompt{};       ///< `systemPrompt`
  std::optional<std::string> include_context{};     ///< "none", "thisServer", "allServers"
  std::optional<double> temperature{};              ///< sampling temperature
  std::vector<std::string> stop_sequences{};        ///< `stopSequences`
  std::optional<json::object> model_preferences{};  ///< `modelPreferences` (hints and priorities)
  std::optional<json::object> metadata{};           ///< provider-specific metadata
  std::optional<json::array> tools{};               ///< tools the model may call (2025-11-25)
  std::optional<json::object> tool_choice{};        ///< `toolChoice`
  json::object meta{};                              ///< `_meta`
};
MCP_FIELDS(sampling_request, (messages), (max_tokens, {.name = "maxTokens"}),
           (system_prompt, {.name = "systemPrompt"}), (include_context, {.name = "includeContext"}),
           (temperature), (stop_sequences, {.name = "stopSequences", .defaulted = true}),
           (model_preferences, {.name = "modelPreferences"}), (metadata), (tools),
           (tool_choice, {.name = "toolChoice"}), (meta, {.name = "_meta", .defaulted = true}))

/// The `CreateMessageResult`: what the model said.
struct sampling_answer {
  std::string role = "assistant";  ///< "assistant" (or "user")
  json::value content;  ///< a content block, e.g. `text_content("...")` (mcp/content.hpp)
  std::string model;    ///< the model that answered
  std::optional<std::string> stop_reason{};  ///< "endTurn", "stopSequence", "maxTokens", ...
};
MCP_FIELDS(sampling_answer, (role), (content), (model), (stop_reason, {.name = "stopReason"}))

/// `Root`: a directory or file the server may work in (a `file://` URI).
struct root_info {
  std::string uri;                    ///< a `file://` URI
  std::optional<std::string> name{};  ///< a name to show
};
MCP_FIELDS(root_info, (uri), (name))

}  // namespace mcp
