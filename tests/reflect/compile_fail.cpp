// Misuse of mcp/reflect.hpp that must not compile, one case per MCP_CASE_* macro; each case is
// a ctest test that runs the compiler and matches the diagnostic (see tests.cmake).
#include <mcp/reflect.hpp>

#include <string>
#include <string_view>

namespace user {

struct undescribed {
  int a = 0;
};

enum class plain_enum { a, b };

struct forecast_in {
  std::string city;
  int days = 3;
  int hidden = 0;
};
BOOST_DESCRIBE_STRUCT(forecast_in, (), (city, days))

#if defined(MCP_CASE_MISSPELT_DOC)
MCP_FIELD_DOCS(forecast_in, (citty, "City name"))
#elif defined(MCP_CASE_UNDESCRIBED_DOC)
MCP_FIELD_DOCS(forecast_in, (hidden, "Not listed in BOOST_DESCRIBE_STRUCT"))
#endif

}  // namespace user

int main() {
#if defined(MCP_CASE_UNDESCRIBED_STRUCT)
  (void)mcp::to_json(user::undescribed{});
#elif defined(MCP_CASE_UNDESCRIBED_STRUCT_DECODE)
  (void)mcp::from_json<user::undescribed>(mcp::json::value());
#elif defined(MCP_CASE_UNDESCRIBED_STRUCT_SCHEMA)
  (void)mcp::schema_for<user::undescribed>();
#elif defined(MCP_CASE_UNDESCRIBED_ENUM)
  (void)mcp::to_json(user::plain_enum::a);
#elif defined(MCP_CASE_UNDESCRIBED_DOC)
  (void)mcp::schema_for<user::forecast_in>();
#elif defined(MCP_CASE_STRING_VIEW_DECODE)
  (void)mcp::from_json<std::string_view>(mcp::json::value());
#elif defined(MCP_CASE_CHAR)
  (void)mcp::to_json('x');
#elif defined(MCP_CASE_NONE)
  (void)mcp::schema_for<user::forecast_in>();
#endif
  return 0;
}
