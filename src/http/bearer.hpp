// File: src/http/bearer.hpp
//
// The server as an OAuth 2.1 protected resource (MCP 2025-11-25 authorization), sans-I/O: the
// Protected Resource Metadata document (RFC 9728), the bearer token check of every request and
// the `WWW-Authenticate` challenges of 401 and 403 (RFC 6750 §3, scope step-up). The request
// handler (handler.cpp) calls it; token verification itself is `protected_resource_options::
// verify` (mcp/auth.hpp has a JWT verifier).
#pragma once

#include <mcp/http_server.hpp>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "http/handler.hpp"

namespace mcp::http_detail {

class bearer_gate {
 public:
  /// Checks `o`: throws `std::invalid_argument` when `resource` is not an absolute http(s)
  /// URI, no authorization server is listed, a scope is not a scope token, or `verify` is
  /// empty. `endpoint` is the MCP endpoint's path (its metadata path is served too).
  bearer_gate(protected_resource_options o, std::string_view endpoint);

  /// The metadata document, when `path` is one of its paths; nullopt otherwise.
  [[nodiscard]] std::optional<http_response> metadata(std::string_view method,
                                                      std::string_view path) const;

  /// The caller named by the request's bearer token, or the 401/403 answer. Never throws.
  [[nodiscard]] std::variant<principal, http_response> admit(const http_request& req) const;

  /// 403 `insufficient_scope` when `who` lacks scopes a request among `messages` needs (the
  /// server says which: `server::missing_scopes`; nothing when `srv` is null).
  [[nodiscard]] std::optional<http_response> check_requests(
      const server* srv, std::span<const jsonrpc::message> messages, const principal& who) const;

  /// The `resource_metadata` URL given in challenges.
  [[nodiscard]] const std::string& metadata_url() const { return metadata_url_; }

 private:
  [[nodiscard]] http_response challenge(unsigned status, std::string_view error,
                                        std::string_view description,
                                        const std::vector<std::string>& scopes) const;

  protected_resource_options opts_;
  std::string metadata_url_;
  std::vector<std::string> metadata_paths_;
  std::string metadata_body_;
};

}  // namespace mcp::http_detail
