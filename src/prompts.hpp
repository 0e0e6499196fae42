// Internal: the prompts and completion features. Prompts live in a catalog (catalog.hpp);
// prompts/get checks required arguments before its handler runs on the executor.
// completion/complete completes prompt arguments and resource template variables.
#pragma once

#include <mcp/prompt.hpp>

#include <memory>
#include <string>

#include "catalog.hpp"
#include "features.hpp"
#include "resources.hpp"

namespace mcp::detail {

class server_core;
class server_session_impl;
class pending_answer;

struct prompt_entry {
  prompt_spec spec;
  prompt_handler handler;
};

class prompts_feature final : public feature {
 public:
  /// Registers prompts/list and prompts/get with `core`, which owns this feature.
  explicit prompts_feature(server_core& core);

  /// Throws std::invalid_argument as server::add_prompt documents.
  void add(prompt_spec spec, prompt_handler handler);
  bool remove(std::string_view name);
  /// Why an interceptor refuses `who` the prompt `name` (get, list, complete); empty: none.
  [[nodiscard]] std::string refusal(const principal& who, std::string_view name) const;

  [[nodiscard]] std::optional<std::pair<std::string, json::object>> capability(
      const server_session_impl& s) const override;

  catalog<prompt_entry> prompts;

 private:
  void get(const jsonrpc::request& req, const std::shared_ptr<pending_answer>& p) const;

  server_core& core_;
  std::size_t list_index_;
};

/// completion/complete for prompt arguments and template variables.
class completion_feature final : public feature {
 public:
  completion_feature(server_core& core, const resources_feature& resources,
                     const prompts_feature& prompts);
  [[nodiscard]] std::optional<std::pair<std::string, json::object>> capability(
      const server_session_impl& s) const override;

 private:
  [[nodiscard]] result<json::value> complete(const server_session_impl& s,
                                             const jsonrpc::request& req) const;

  const resources_feature& resources_;
  const prompts_feature& prompts_;
};

}  // namespace mcp::detail
