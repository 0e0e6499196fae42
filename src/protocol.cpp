#include "protocol.hpp"

#include <mcp/protocol.hpp>

#include <algorithm>

namespace mcp {

namespace {
/// Newest first, from the era table.
constexpr auto versions_newest_first = [] {
  std::array<std::string_view, detail::era_count> v{};
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = detail::era_table[detail::era_count - 1 - i].version;
  }
  return v;
}();
static_assert(versions_newest_first[0] == latest_protocol_version);
static_assert(versions_newest_first[1] == latest_legacy_protocol_version);
}  // namespace

std::span<const std::string_view> supported_protocol_versions() noexcept {
  return versions_newest_first;
}

bool is_supported_protocol_version(std::string_view version) noexcept {
  return detail::find_era(version).has_value();
}

}  // namespace mcp
