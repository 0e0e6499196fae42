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

struct query_in {
  std::string sql;
  std::vector<mcp::json::value> params;
};
MCP_FIELDS(query_in, (sql, {.description = "One SELECT statement; values as ? parameters"}),
           (params, {.description = "Values of the ? parameters, in order", .defaulted = true}))

struct query_out {
  std::vector<std::string> columns;
  std::vector<mcp::json::array> rows;  // at most max_rows
  bool truncated = false;
};
MCP_FIELDS(query_out, (columns), (rows), (truncated, "More rows than were returned"))

constexpr std::size_t max_rows = 1000;
using db_ptr = std::unique_ptr<sqlite3, decltype(&sqlite3_close)>;
using stmt_ptr = std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)>;

/// A column's value as JSON (a BLOB as its size: results are text).
mcp::json::value column(sqlite3_stmt* s, int c) {
  switch (sqlite3_column_type(s, c)) {
    case SQLITE_INTEGER:
      return sqlite3_column_int64(s, c);
    case SQLITE_FLOAT:
      return sqlite3_column_double(s, c);
    case SQLITE_NULL:
      return nullptr;
    case SQLITE_BLOB:
      return mcp::json::string("<" + std::to_string(sqlite3_column_bytes(s, c)) + " bytes>");
    default:
      return reinterpret_cast<const char*>(sqlite3_column_text(s, c));
  }
}

mcp::tool_result<query_out> query(const std::string& path, mcp::tool_context& ctx,
                                  const query_in& in) {
  sqlite3* raw = nullptr;
  const int opened = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  const db_ptr db(raw, &sqlite3_close);
  if (opened != SQLITE_OK) return mcp::tool_error{"cannot open the database"};
  sqlite3_limit(db.get(), SQLITE_LIMIT_ATTACHED, 0);
  sqlite3_progress_handler(
      db.get(), 1000,
      [](void* c) { return static_cast<mcp::tool_context*>(c)->cancelled() ? 1 : 0; }, &ctx);
  const char* tail = nullptr;
  sqlite3_stmt* s = nullptr;
  const int prepared = sqlite3_prepare_v2(db.get(), in.sql.c_str(), -1, &s, &tail);
  const stmt_ptr stmt(s, &sqlite3_finalize);
  if (prepared != SQLITE_OK || s == nullptr) return mcp::tool_error{sqlite3_errmsg(db.get())};
  if (std::string_view(tail).find_first_not_of(" \t\r\n;") != std::string_view::npos)
    return mcp::tool_error{"one statement only"};
  if (!sqlite3_stmt_readonly(s)) return mcp::tool_error{"this database is read-only"};
  if (static_cast<int>(in.params.size()) != sqlite3_bind_parameter_count(s))
    return mcp::tool_error{"the statement has " + std::to_string(sqlite3_bind_parameter_count(s)) +
                           " parameters"};
  for (int i = 1; const auto& v : in.params) {
    const int rc = v.is_string()
                       ? sqlite3_bind_text(s, i, v.get_string().c_str(), -1, SQLITE_TRANSIENT)
                   : v.is_int64()  ? sqlite3_bind_int64(s, i, v.get_int64())
                   : v.is_number() ? sqlite3_bind_double(s, i, v.to_number<double>())
                   : v.is_null()   ? sqlite3_bind_null(s, i)
                                   : SQLITE_MISMATCH;
    if (rc != SQLITE_OK)
      return mcp::tool_error{"parameter " + std::to_string(i) + ": not a string, number or null"};
    ++i;
  }
  query_out out;
  for (int c = 0; c < sqlite3_column_count(s); ++c)
    out.columns.emplace_back(sqlite3_column_name(s, c));
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (out.rows.size() == max_rows) {
      out.truncated = true;
      break;
    }
    auto& row = out.rows.emplace_back();
    for (int c = 0; c < sqlite3_column_count(s); ++c) row.push_back(column(s, c));
  }
  if (rc != SQLITE_DONE && !out.truncated) return mcp::tool_error{sqlite3_errmsg(db.get())};
  return out;
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;  // usage: sqlite_readonly DATABASE
  mcp::server server({.info = {.name = "sqlite-readonly", .version = "1.0.0"}});
  server.add_tool({.name = "query",
                   .description = "Runs one read-only SQL statement (SQLite) with ? parameters",
                   .annotations = {.read_only_hint = true}},
                  [path = std::string(argv[1])](mcp::tool_context& ctx, const query_in& in) {
                    return query(path, ctx, in);
                  });
  return server.serve_stdio();
}
