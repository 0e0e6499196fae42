// examples/sqlite_readonly over stdio, on a small database made here: queries with bound
// parameters answer from the file, and nothing that writes gets through.
#include <mcp/json.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "examples/stdio_peer.hpp"
#include <sqlite3.h>
#include <unistd.h>

namespace {

using mcp::json::array;
using mcp::json::object;
using mcp::json::value;
using mcp::test::first_text;
using mcp::test::stdio_peer;

class example_sqlite_readonly : public ::testing::Test {
 protected:
  example_sqlite_readonly() {
    db_ = std::filesystem::temp_directory_path() /
          ("mcp_example_sqlite_" + std::to_string(::getpid()) + ".db");
    std::filesystem::remove(db_);
    EXPECT_EQ(exec("CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT, price REAL);"
                   "INSERT INTO items(name, price) VALUES ('pen', 1.5), ('cup', 4), ('lamp', 20);"),
              SQLITE_OK);
    peer_ = std::make_unique<stdio_peer>(
        std::vector<std::string>{MCP_EXAMPLE_SQLITE_READONLY, db_.string()});
  }
  ~example_sqlite_readonly() override {
    peer_.reset();
    std::filesystem::remove(db_);
  }

  /// Runs `sql` on the database directly (read-write).
  int exec(const std::string& sql) {
    sqlite3* db = nullptr;
    int rc = sqlite3_open(db_.c_str(), &db);
    if (rc == SQLITE_OK) rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
    sqlite3_close(db);
    return rc;
  }
  value query(const std::string& sql, array params = {}) {
    return peer_->call_tool("query", {{"sql", sql}, {"params", std::move(params)}});
  }
  std::int64_t count() {
    const auto r = query("SELECT count(*) FROM items");
    return r.at("result").at("structuredContent").at("rows").at(0).at(0).as_int64();
  }

  std::filesystem::path db_;
  std::unique_ptr<stdio_peer> peer_;
};

TEST_F(example_sqlite_readonly, answers_queries_with_bound_parameters) {
  const auto r = query("SELECT name, price FROM items WHERE price < ? ORDER BY price", {5});
  const auto& s = r.at("result").at("structuredContent");
  EXPECT_EQ(s.at("columns"), (array{"name", "price"})) << r;
  ASSERT_EQ(s.at("rows").as_array().size(), 2U) << r;
  EXPECT_EQ(s.at("rows").at(0).at(0), "pen");
  EXPECT_EQ(s.at("rows").at(0).at(1).to_number<double>(), 1.5);
  EXPECT_EQ(s.at("rows").at(1).at(0), "cup");
  EXPECT_EQ(s.at("truncated"), false);

  // A value is a value, never SQL.
  const auto injected = query("SELECT id FROM items WHERE name = ?", {"x' OR '1'='1"});
  EXPECT_TRUE(injected.at("result").at("structuredContent").at("rows").as_array().empty())
      << injected;
  const auto named = query("SELECT id FROM items WHERE name = ?", {"lamp"});
  EXPECT_EQ(named.at("result").at("structuredContent").at("rows"), (array{value(array{3})}));
  const auto nulls = query("SELECT ? IS NULL, ?", {nullptr, 7});
  EXPECT_EQ(nulls.at("result").at("structuredContent").at("rows"), (array{value(array{1, 7})}));

  const auto many = query(
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n LIMIT 5000) SELECT i FROM n");
  EXPECT_EQ(many.at("result").at("structuredContent").at("rows").as_array().size(), 1000U);
  EXPECT_EQ(many.at("result").at("structuredContent").at("truncated"), true);
}

TEST_F(example_sqlite_readonly, refuses_every_write) {
  for (const char* sql :
       {"DELETE FROM items", "INSERT INTO items(name) VALUES ('x')", "UPDATE items SET price = 0",
        "DROP TABLE items", "CREATE TABLE t(x)", "PRAGMA user_version = 5"}) {
    const auto r = query(sql);
    EXPECT_EQ(r.at("result").at("isError"), true) << sql << ": " << r;
    EXPECT_EQ(first_text(r), "this database is read-only") << sql;
  }
  const auto attach = query("ATTACH ? AS other", {(db_.string() + "-other")});
  EXPECT_EQ(attach.at("result").at("isError"), true) << attach;
  EXPECT_FALSE(std::filesystem::exists(db_.string() + "-other"));
  const auto two = query("SELECT 1; DELETE FROM items");
  EXPECT_EQ(first_text(two), "one statement only");
  EXPECT_EQ(first_text(query("SELECT ?")), "the statement has 1 parameters");
  EXPECT_EQ(first_text(query("SELECT ?", {value(array{1})})),
            "parameter 1: not a string, number or null");
  EXPECT_EQ(query("SELEC 1").at("result").at("isError"), true);

  EXPECT_EQ(count(), 3);
  // What the file holds is unchanged, and its writer still writes.
  EXPECT_EQ(exec("INSERT INTO items(name, price) VALUES ('desk', 99)"), SQLITE_OK);
  EXPECT_EQ(count(), 4);
}

}  // namespace
