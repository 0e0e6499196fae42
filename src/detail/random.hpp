// Internal: unguessable identifiers from the kernel's CSPRNG (getrandom(2)), for HTTP session
// ids and task ids.
#pragma once

#include <cstddef>
#include <string>

namespace mcp::detail {

/// `bytes` random bytes as lowercase hex (2 × `bytes` characters). Thread-safe.
/// Throws `std::system_error` if the kernel refuses (it does not block once seeded at boot).
[[nodiscard]] std::string random_hex(std::size_t bytes);

}  // namespace mcp::detail
