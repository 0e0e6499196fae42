// The task store contract (unit/task_store_contract.hpp) run against the memory and the SQLite
// store, the latter at both durabilities (SQLite alone: task_store_sqlite_test.cpp; Redis:
// tests/redis).
#include <mcp/task_store.hpp>

#include <gtest/gtest.h>

#include "unit/task_store_contract.hpp"

namespace {

using mcp::test::contract::store_maker;
using mcp::test::contract::task_store_contract;

std::shared_ptr<mcp::task_store> sqlite_store(const mcp::test::temp_db& db) {
  auto s = mcp::make_sqlite_task_store(db.path());
  if (!s) ADD_FAILURE() << s.error().message;
  return s ? *s : nullptr;
}

std::shared_ptr<mcp::task_store> sqlite_full_store(const mcp::test::temp_db& db) {
  auto s = mcp::make_sqlite_task_store(
      {.path = db.path(), .durability = mcp::sqlite_durability::power_loss});
  if (!s) ADD_FAILURE() << s.error().message;
  return s ? *s : nullptr;
}

INSTANTIATE_TEST_SUITE_P(both, task_store_contract,
                         ::testing::Values(store_maker{"memory",
                                                       [](const auto&) {
                                                         return mcp::make_memory_task_store();
                                                       }},
                                           store_maker{"sqlite", sqlite_store},
                                           store_maker{"sqlite_full", sqlite_full_store}),
                         mcp::test::contract::maker_name);

}  // namespace
