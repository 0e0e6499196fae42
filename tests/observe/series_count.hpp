// What the observation tests read back from the metrics: the calls a server's operation-duration
// histogram counted in the series whose attributes match.
#pragma once

#include <mcp/observe/metrics.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace mcp_test {

/// The count of `mcp.server.operation.duration` over its series whose text attributes match
/// every (key, value) of `where`: the key with that value, or (value "") the key absent.
inline std::uint64_t count_where(
    const mcp::observe::metrics& m,
    std::initializer_list<std::pair<std::string_view, std::string_view>> where) {
  std::uint64_t n = 0;
  for (const auto& md : m.snapshot().metrics) {
    if (md.name != "mcp.server.operation.duration") continue;
    for (const auto& p : md.histogram_points) {
      bool all = true;
      for (const auto& [key, want] : where) {
        std::string_view found;
        for (const auto& a : p.attributes) {
          const auto* t = std::get_if<std::string>(&a.value);
          if (t != nullptr && a.key == key) found = *t;
        }
        all = all && found == want;
      }
      if (all) n += p.count;
    }
  }
  return n;
}

}  // namespace mcp_test
