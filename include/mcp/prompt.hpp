// File: mcp/prompt.hpp
//
// Prompts (MCP 2025-11-25 server/prompts): templated messages a client offers to its user.
// Defines `prompt_spec` (what `server::add_prompt` registers, with its arguments and an optional
// completion callback), `prompt_request` (what the handler sees) and `get_prompt_result`
// (the messages it returns; any content block of mcp/content.hpp may be used).
//
// Example:
//
//   server.add_prompt(
//       {.name = "review", .description = "Review a diff",
//        .arguments = {{.name = "diff", .description = "The diff", .required = true}}},
//       [](const mcp::prompt_request& r) -> mcp::result<mcp::get_prompt_result> {
//         return mcp::get_prompt_result{
//             .messages = {mcp::prompt_message::user(
//                 mcp::text_content("Please review:\n" + r.arguments.at("diff")))}};
//       });
#pragma once

#include <mcp/content.hpp>
#include <mcp/error.hpp>
#include <mcp/json.hpp>
#include <mcp/resource.hpp>
#include <mcp/tool.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mcp {

/// One argument of a prompt (`PromptArgument`).
struct prompt_argument {
  std::string name;
  std::optional<std::string> title{};
  std::optional<std::string> description{};
  bool required = false;
};

/// A prompt the server lists (`Prompt`).
struct prompt_spec {
  std::string name;  ///< unique in the server
  std::optional<std::string> title{};
  std::optional<std::string> description{};
  std::vector<prompt_argument> arguments{};
  std::vector<icon> icons{};
  json::object meta{};  ///< `_meta`
  /// Completes argument values (`ref/prompt`); unset: no suggestions.
  completion_handler complete{};
};

/// One message of a prompt (`PromptMessage`): a role and one content block.
struct prompt_message {
  std::string role;  ///< "user" or "assistant"
  json::object content;

  [[nodiscard]] static prompt_message user(json::object content) {
    return {"user", std::move(content)};
  }
  [[nodiscard]] static prompt_message assistant(json::object content) {
    return {"assistant", std::move(content)};
  }
};

/// The result of `prompts/get`.
struct get_prompt_result {
  std::optional<std::string> description{};
  std::vector<prompt_message> messages{};
  json::object meta{};
};

/// What a prompt handler sees. Required arguments are checked before the handler runs
/// (a missing one is answered with -32602).
struct prompt_request {
  std::string name;
  uri_variables arguments{};
  const principal* caller = nullptr;  ///< valid during the call
};

/// Produces a prompt's messages. Runs on the server's executor (the handler pool), like a
/// tool; must be thread-safe. Errors go to the client as JSON-RPC errors as they are; a thrown
/// exception becomes -32603.
using prompt_handler = std::function<result<get_prompt_result>(const prompt_request&)>;

}  // namespace mcp
