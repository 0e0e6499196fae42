// Internal: the resources feature. Resources and resource templates live in catalogs
// (catalog.hpp) of immutable entries; read handlers run on the executor through the session's
// `answer_later`. resources/read tries the plain resources first (exact URI), then the
// templates in registration order. Subscriptions are per session (a state slot).
#pragma once

#include <mcp/resource.hpp>
#include <mcp/uri_template.hpp>

#include <memory>
#include <string>
#include <vector>

#include "catalog.hpp"
#include "features.hpp"

namespace mcp::detail {

class server_core;
class server_session_impl;
class pending_answer;

struct resource_entry {
  resource_spec spec;
  resource_handler handler;
};

struct template_entry {
  resource_template_spec spec;
  uri_template tmpl;
  resource_handler handler;
};

class resources_feature final : public feature {
 public:
  /// Registers the resources/* methods with `core`, which owns this feature.
  explicit resources_feature(server_core& core);

  /// Throw std::invalid_argument as server::add_resource and add_resource_template document.
  void add(resource_spec spec, resource_handler handler);
  void add_template(resource_template_spec spec, resource_handler handler);
  bool remove(std::string_view uri);
  bool remove_template(std::string_view uri_template);
  /// Sends notifications/resources/updated to the sessions subscribed to `uri`.
  void updated(std::string_view uri) const;
  /// The URIs session `s` subscribed to (for its shared record).
  [[nodiscard]] std::vector<std::string> subscribed(const server_session_impl& s) const;
  /// Subscribes session `s` to `uris` (a session resumed from its shared record).
  void restore_subscriptions(server_session_impl& s, const std::vector<std::string>& uris) const;
  /// Why an interceptor refuses `who` the resource `uri` (read, subscribe, complete), matched
  /// in its normal form (RFC 3986: case, percent-encoding, dot segments), so another spelling
  /// of a refused URI is refused too; empty when none does.
  [[nodiscard]] std::string refusal(const principal& who, std::string_view uri) const;

  [[nodiscard]] std::optional<std::pair<std::string, json::object>> capability(
      const server_session_impl& s) const override;

  catalog<resource_entry> resources;
  catalog<template_entry> templates;  ///< keyed by the template text

 private:
  void read(const jsonrpc::request& req, const std::shared_ptr<pending_answer>& p) const;
  void subscribe(server_session_impl& s, const jsonrpc::request& req, bool on) const;

  server_core& core_;
  std::size_t list_index_;
  std::size_t subscriptions_slot_;
};

}  // namespace mcp::detail
