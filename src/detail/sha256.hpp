// Internal: SHA-256 (FIPS 180-4), for digests in the audit log; the core links no crypto library.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace mcp::detail {

/// The SHA-256 of `data`.
[[nodiscard]] std::array<std::uint8_t, 32> sha256(std::string_view data);
/// The same in lowercase hex.
[[nodiscard]] std::string sha256_hex(std::string_view data);

}  // namespace mcp::detail
