#include <mcp/protocol.hpp>
#include <mcp/version.hpp>

namespace mcp {

std::string_view version() noexcept { return MCP_VERSION_STRING; }

std::span<const std::string_view> protocol_revisions() noexcept {
  return supported_protocol_versions();
}

}  // namespace mcp
