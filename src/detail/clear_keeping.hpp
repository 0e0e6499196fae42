// Internal: emptying a buffer that is reused from one message to the next, so that it keeps
// the room an ordinary message needs, not what the largest one took.
#pragma once

#include <cstddef>

namespace mcp::detail {

/// Empties `storage` (a std::string or std::vector); frees its memory too when its capacity is
/// above `most` elements.
template <class Container>
void clear_keeping(Container& storage, std::size_t most) noexcept {
  if (storage.capacity() > most) {
    Container().swap(storage);
  } else {
    storage.clear();
  }
}

}  // namespace mcp::detail
