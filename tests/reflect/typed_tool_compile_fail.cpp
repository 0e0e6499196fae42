// Misuse of the typed tool API (mcp/typed_tool.hpp through server::add_tool, and
// tool_context::elicit<T>) that must not compile, one case per MCP_CASE_* macro; each case is a
// ctest test that runs the compiler and matches the diagnostic (see tests.cmake).
#include <mcp/server.hpp>

#include <functional>
#include <string>

namespace user {

struct forecast_in {
  std::string city;
  int days = 3;
};
MCP_FIELDS(forecast_in, (city), (days, {.defaulted = true, .minimum = 1}))

struct undescribed {
  int a = 0;
};

struct nested {
  forecast_in inner;
};
MCP_FIELDS(nested, (inner))

struct patterned {
  std::string code;
};
MCP_FIELDS(patterned, (code, {.pattern = "^[A-Z]+$"}))

struct engine {
  std::string run(const forecast_in& in) const { return in.city; }
};

}  // namespace user

int main() {
  mcp::server s;
  [[maybe_unused]] const mcp::tool_spec spec{.name = "t"};
#if defined(MCP_CASE_GENERIC_LAMBDA)
  s.add_tool(spec, [](const auto& in) { return in.city; });
#elif defined(MCP_CASE_BIND_FRONT)
  user::engine eng;
  s.add_tool(spec, std::bind_front(&user::engine::run, &eng));
#elif defined(MCP_CASE_TWO_INPUTS)
  s.add_tool(spec, [](const user::forecast_in&, const user::forecast_in&) { return "x"; });
#elif defined(MCP_CASE_TWO_CONTEXTS)
  s.add_tool(spec, [](mcp::tool_context&, mcp::tool_context&) { return "x"; });
#elif defined(MCP_CASE_SCALAR_INPUT)
  s.add_tool(spec, [](int) { return "x"; });
#elif defined(MCP_CASE_UNDESCRIBED_INPUT)
  s.add_tool(spec, [](const user::undescribed&) { return "x"; });
#elif defined(MCP_CASE_MUTABLE_REF_INPUT)
  s.add_tool(spec, [](user::forecast_in&) { return "x"; });
#elif defined(MCP_CASE_UNSUPPORTED_RETURN)
  s.add_tool(spec, [](const user::forecast_in&) { return static_cast<int*>(nullptr); });
#elif defined(MCP_CASE_ELICIT_NESTED)
  s.add_tool(spec, [](mcp::tool_context& ctx) {
    (void)ctx.elicit<user::nested>("m");
    return "x";
  });
#elif defined(MCP_CASE_ELICIT_PATTERN)
  s.add_tool(spec, [](mcp::tool_context& ctx) {
    (void)ctx.elicit<user::patterned>("m");
    return "x";
  });
#else
  user::engine eng;
  s.add_tool(spec, [](const user::forecast_in& in) noexcept { return in.city; });
  s.add_tool(spec, &user::engine::run, &eng);
  s.add_tool(spec, [](mcp::tool_context& ctx) -> mcp::result<std::string> {
    auto r = ctx.elicit<user::forecast_in>("m");
    if (!r) return r.error();
    return r->accepted() ? r->content->city : std::string("no");
  });
#endif
  return 0;
}
