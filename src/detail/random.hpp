// Internal: unguessable identifiers from the kernel's CSPRNG (getrandom(2)), for HTTP session
// ids, task ids and trace and span ids.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace mcp::detail {

/// Fills `out` with `n` random bytes. Thread-safe.
/// Throws `std::system_error` if the kernel refuses (it does not block once seeded at boot).
void random_bytes(void* out, std::size_t n);

/// `bytes` random bytes as lowercase hex (2 × `bytes` characters). Thread-safe.
/// Throws `std::system_error` if the kernel refuses (it does not block once seeded at boot).
[[nodiscard]] std::string random_hex(std::size_t bytes);

/// A number (never 0) that changes in a forked child: per-thread state drawn from the CSPRNG is
/// drawn again when it moved, so that a child does not repeat its parent's ids. Thread-safe.
[[nodiscard]] std::uint64_t fork_generation() noexcept;

}  // namespace mcp::detail
