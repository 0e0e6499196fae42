// Misuse of mcp/reflect.hpp that must not compile, one case per MCP_CASE_* macro; each case is
// a ctest test that runs the compiler and matches the diagnostic (see tests.cmake).
#include <mcp/reflect.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace user {

struct undescribed {
  int a = 0;
};

enum class plain_enum { a, b };
enum class units { metric, imperial };
BOOST_DESCRIBE_ENUM(units, metric, imperial)

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

struct fields {
  int n = 0;
  std::string s;
  std::optional<int> maybe;
  units u = units::metric;
};
#if defined(MCP_CASE_FIELDS_MISSPELT)
MCP_FIELDS(fields, (nn))
#elif defined(MCP_CASE_FIELD_STRING_KEYWORD_ON_INT)
MCP_FIELDS(fields, (n, {.min_length = 1}))
#elif defined(MCP_CASE_FIELD_NUMBER_KEYWORD_ON_STRING)
MCP_FIELDS(fields, (s, {.minimum = 1}))
#elif defined(MCP_CASE_FIELD_ITEMS_KEYWORD_ON_STRING)
MCP_FIELDS(fields, (s, {.max_items = 1}))
#elif defined(MCP_CASE_FIELD_ENUM_VALUES_ON_ENUM)
MCP_FIELDS(fields, (u, {.enum_values = {"a"}}))
#elif defined(MCP_CASE_FIELD_NULLABLE_NOT_OPTIONAL)
MCP_FIELDS(fields, (n, {.nullable = true}))
#elif defined(MCP_CASE_FIELD_DEFAULT_OF_WRONG_KIND)
MCP_FIELDS(fields, (n, {.default_value = "three"}))
#elif defined(MCP_CASE_FIELD_SAME_JSON_NAME)
MCP_FIELDS(fields, (n, {.name = "s"}), (s))
#elif defined(MCP_CASE_FIELD_NEGATIVE_LENGTH)
MCP_FIELDS(fields, (s, {.max_length = -1}))
#elif defined(MCP_CASE_FIELD_TOO_MANY_EXAMPLES)
MCP_FIELDS(fields, (n, {.examples = {1, 2, 3, 4, 5, 6, 7, 8, 9}}))
#elif defined(MCP_CASE_FIELD_ORDER)
MCP_FIELDS(fields, (n, {.maximum = 2, .minimum = 1}))
#else
MCP_FIELDS(fields, (n, {.description = "n", .defaulted = true, .minimum = 0}), (s, "text"),
           (maybe, {.nullable = true}), (u))
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
  (void)mcp::schema_for<user::fields>();
#else
  (void)mcp::schema_for<user::fields>();
#endif
  return 0;
}
