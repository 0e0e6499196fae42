// A SQLite database offered read-only: the `query` tool runs one SELECT the model writes, with
// its values bound as parameters (`?`, sqlite3_bind_*), never spliced into the SQL. Read-only is
// enforced by SQLite, not by inspecting the text: the file is opened with SQLITE_OPEN_READONLY,
// a statement that would write is refused before it runs (sqlite3_stmt_readonly), ATTACH is
// off, and a cancelled or timed-out call interrupts its query (the progress handler).
//
//   build/ci/examples/sqlite_readonly shop.db
//   mcp-cpp tools call query --args '{"sql":"SELECT * FROM items WHERE price < ?","params":[5]}'
//     -- build/ci/examples/sqlite_readonly shop.db
#include <mcp/server.hpp>

#include <memory>
#include <string>
#include <vector>

#include <sqlite3.h>

using mcp::tool_error;
using mcp::json::value;

struct query_in {
  std::string sql;
  std::vector<value> params;
};
MCP_FIELDS(query_in, (sql, {.description = "One SELECT statement; values as ? parameters"}),
           (params, {.description = "Values of the ? parameters, in order", .defaulted = true}))

struct query_out {
  std::vector<std::string> columns;
  std::vector<mcp::json::array> rows;  // at most 1,000
  bool truncated = false;
};
MCP_FIELDS(query_out, (columns), (rows), (truncated, "More rows than were returned"))

/// Binds parameter `i` of `s` (a string, number or null; anything else is a mismatch).
int bind(sqlite3_stmt* s, int i, const value& v) {
  return v.is_string()   ? sqlite3_bind_text(s, i, v.get_string().c_str(), -1, SQLITE_TRANSIENT)
         : v.is_int64()  ? sqlite3_bind_int64(s, i, v.get_int64())
         : v.is_number() ? sqlite3_bind_double(s, i, v.to_number<double>())
         : v.is_null()   ? sqlite3_bind_null(s, i)
                         : SQLITE_MISMATCH;
}

/// Column `c` of the current row as JSON (a BLOB as its size: results are text).
value column(sqlite3_stmt* s, int c) {
  const int type = sqlite3_column_type(s, c);
  return type == SQLITE_INTEGER ? value(sqlite3_column_int64(s, c))
         : type == SQLITE_FLOAT ? value(sqlite3_column_double(s, c))
         : type == SQLITE_NULL  ? value(nullptr)
         : type == SQLITE_BLOB ? value("<" + std::to_string(sqlite3_column_bytes(s, c)) + " bytes>")
                               : value(reinterpret_cast<const char*>(sqlite3_column_text(s, c)));
}

mcp::tool_result<query_out> query(const char* path, mcp::tool_context& ctx, const query_in& in) {
  sqlite3* raw = nullptr;
  const int opened = sqlite3_open_v2(path, &raw, SQLITE_OPEN_READONLY, nullptr);
  const std::unique_ptr<sqlite3, decltype(&sqlite3_close)> db(raw, &sqlite3_close);
  if (opened != SQLITE_OK) return tool_error{"cannot open the database"};
  sqlite3_limit(raw, SQLITE_LIMIT_ATTACHED, 0);
  sqlite3_progress_handler(  // a non-zero return interrupts the statement
      raw, 1000, [](void* c) { return static_cast<mcp::tool_context*>(c)->cancelled() ? 1 : 0; },
      &ctx);
  const char* tail = nullptr;
  sqlite3_stmt* s = nullptr;
  const int prepared = sqlite3_prepare_v2(raw, in.sql.c_str(), -1, &s, &tail);
  const std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)> stmt(s, &sqlite3_finalize);
  if (prepared != SQLITE_OK || s == nullptr) return tool_error{sqlite3_errmsg(raw)};
  if (std::string_view(tail).find_first_not_of(" \t\r\n;") != std::string_view::npos)
    return tool_error{"one statement only"};
  if (!sqlite3_stmt_readonly(s)) return tool_error{"this database is read-only"};
  const auto count = static_cast<std::size_t>(sqlite3_bind_parameter_count(s));
  if (in.params.size() != count)
    return tool_error{"the statement has " + std::to_string(count) + " parameters"};
  for (int i = 0; const auto& v : in.params) {
    if (bind(s, ++i, v) != SQLITE_OK)
      return tool_error{"parameter " + std::to_string(i) + ": not a string, number or null"};
  }
  query_out out;
  for (int c = 0; c < sqlite3_column_count(s); ++c)
    out.columns.emplace_back(sqlite3_column_name(s, c));
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW && out.rows.size() < 1000) {
    auto& row = out.rows.emplace_back();
    for (int c = 0; c < sqlite3_column_count(s); ++c) row.push_back(column(s, c));
  }
  out.truncated = rc == SQLITE_ROW;  // a row past the 1,000th
  if (rc != SQLITE_DONE && !out.truncated) return tool_error{sqlite3_errmsg(raw)};
  return out;
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;  // usage: sqlite_readonly DATABASE
  mcp::server server({.info = {.name = "sqlite-readonly", .version = "1.0.0"}});
  server.add_tool({.name = "query",
                   .description = "Runs one read-only SQL statement (SQLite) with ? parameters",
                   .annotations = {.read_only_hint = true}},
                  [path = argv[1]](mcp::tool_context& ctx, const query_in& in) {
                    return query(path, ctx, in);
                  });
  return server.serve_stdio();
}
