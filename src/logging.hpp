// Internal: the logging feature: logging/setLevel sets the session's level; the `logging`
// capability is always declared (any handler may log).
#pragma once

#include "features.hpp"

namespace mcp::detail {

class server_core;

/// logging/setLevel; the `logging` capability is always declared.
class logging_feature final : public feature {
 public:
  explicit logging_feature(server_core& core);
  [[nodiscard]] std::optional<std::pair<std::string, json::object>> capability(
      const server_session_impl& s) const override;
};

}  // namespace mcp::detail
