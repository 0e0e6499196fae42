// File: mcp/resource.hpp
//
// Resources (MCP 2025-11-25 server/resources) and argument completion (server/utilities/
// completion). Defines what a server registers with `server::add_resource` and
// `server::add_resource_template`, what their read handlers see and return, and the completion
// callback shared with prompts (`completion_handler`).
//
// Example:
//
//   server.add_resource({.uri = "config://app", .name = "app-config", .mime_type =
//   "application/json"},
//                       [](const mcp::resource_request& r) ->
//                       mcp::result<mcp::read_resource_result> {
//                         return mcp::read_resource_result{{mcp::resource_contents::text_of(
//                             r.uri, R"({"debug":true})", "application/json")}};
//                       });
//   server.add_resource_template(
//       {.uri_template = "users://{id}/profile", .name = "user-profile",
//        .complete = [](const mcp::completion_request& c) {
//          return mcp::completion_result{.values = {"alice", "bob"}};
//        }},
//       [](const mcp::resource_request& r) -> mcp::result<mcp::read_resource_result> {
//         const auto& id = r.variables.at("id");
//         if (id != "alice") return mcp::resource_not_found(r.uri);   // -32002
//         return mcp::read_resource_result{{mcp::resource_contents::text_of(r.uri, "Alice")}};
//       });
//   server.notify_resource_updated("config://app");   // to every subscribed session
#pragma once

#include <mcp/content.hpp>
#include <mcp/error.hpp>
#include <mcp/json.hpp>
#include <mcp/tool.hpp>
#include <mcp/transport.hpp>
#include <mcp/uri_template.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace mcp {

// ---------------------------------------------------------------------------------------------
// Completion (shared by prompts and resource templates)

/// What `completion/complete` asks: the argument (or template variable) being completed, its
/// partial value, and the values of the other arguments already resolved (`context.arguments`).
struct completion_request {
  std::string argument;
  std::string value;
  uri_variables context{};
};

/// Candidate values. At most 100 are sent (the spec's limit); `has_more` is then set.
struct completion_result {
  std::vector<std::string> values{};
  std::optional<std::size_t> total{};
  bool has_more = false;
};

/// Completes one argument. Runs on the server's executor (the handler pool), like a tool; it
/// should still be quick (clients complete while the user types). Must be thread-safe (several
/// sessions may complete at once).
using completion_handler = std::function<completion_result(const completion_request&)>;

// ---------------------------------------------------------------------------------------------
// Resources

/// A resource the server lists (`Resource`).
struct resource_spec {
  std::string uri;   ///< unique in the server
  std::string name;  ///< programmatic name, required
  std::optional<std::string> title{};
  std::optional<std::string> description{};
  std::optional<std::string> mime_type{};
  std::optional<std::uint64_t> size{};  ///< bytes, before base64
  std::vector<icon> icons{};
  std::optional<content_annotations> annotations{};
  json::object meta{};  ///< `_meta`
};

/// A parameterised family of resources (`ResourceTemplate`), read through URIs that match
/// `uri_template` (RFC 6570; see mcp/uri_template.hpp).
struct resource_template_spec {
  std::string uri_template;  ///< unique in the server
  std::string name;
  std::optional<std::string> title{};
  std::optional<std::string> description{};
  std::optional<std::string> mime_type{};
  std::vector<icon> icons{};
  std::optional<content_annotations> annotations{};
  json::object meta{};
  /// Completes template variables (`ref/resource`); unset: no suggestions.
  completion_handler complete{};
};

/// One item of `contents` (`TextResourceContents` or `BlobResourceContents`).
struct resource_contents {
  std::string uri;
  std::optional<std::string> mime_type{};
  std::optional<std::string> text{};  ///< set for text contents
  std::optional<std::string> blob{};  ///< base64, set for binary contents
  json::object meta{};

  /// Text contents.
  [[nodiscard]] static resource_contents text_of(std::string uri, std::string text,
                                                 std::optional<std::string> mime_type = {});
  /// Binary contents (`bytes` are base64-encoded here).
  [[nodiscard]] static resource_contents blob_of(std::string uri, std::span<const std::byte> bytes,
                                                 std::optional<std::string> mime_type = {});
  /// The wire form.
  [[nodiscard]] json::object to_json() const;
};

/// The result of `resources/read`.
struct read_resource_result {
  std::vector<resource_contents> contents{};
  json::object meta{};
};

/// What a read handler sees.
struct resource_request {
  std::string uri;                    ///< as the client sent it
  uri_variables variables{};          ///< template variables (empty for a plain resource)
  const principal* caller = nullptr;  ///< who is reading; valid during the call
};

/// Reads a resource. Runs on the server's executor (the handler pool), like a tool, so it may
/// take its time without holding up the connection. Must be thread-safe. Return
/// `resource_not_found(uri)` for a URI that does not exist; other errors go to the client as
/// JSON-RPC errors as they are. A thrown exception becomes -32603 (internal error).
using resource_handler = std::function<result<read_resource_result>(const resource_request&)>;

/// The -32002 error for `uri` (`data: {"uri": ...}`).
[[nodiscard]] error resource_not_found(std::string_view uri);

}  // namespace mcp
