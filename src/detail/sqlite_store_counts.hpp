// Internal: what tests and benchmarks may ask a SQLite task store (make_sqlite_task_store) about
// its writer: how many transactions committed how many writes, and how many checkpoints ran.
#pragma once

#include <mcp/task_store.hpp>

#include <cstdint>
#include <optional>

namespace mcp::detail {

struct sqlite_task_store_counts {
  std::uint64_t transactions = 0;  ///< transactions the writer committed
  std::uint64_t writes = 0;        ///< writes it ran (in those, or in failed ones)
  std::uint64_t waiting = 0;       ///< writes submitted whose transaction has not ended
  std::uint64_t checkpoints = 0;   ///< checkpoints its checkpointer ran
};

/// The counts of `store` when it is a SQLite task store, else nothing. Thread-safe.
[[nodiscard]] std::optional<sqlite_task_store_counts> sqlite_task_store_counts_of(
    task_store& store);

}  // namespace mcp::detail
