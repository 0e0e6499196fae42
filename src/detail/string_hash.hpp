// Internal: a transparent string hash, so that maps keyed by std::string are searched with a
// std::string_view without building a string.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

namespace mcp::detail {

struct string_hash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept {
    return std::hash<std::string_view>{}(s);
  }
};

}  // namespace mcp::detail
