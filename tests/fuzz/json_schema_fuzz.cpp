// JSON Schema compile and validate: the input is a schema and an instance separated by a NUL
// byte (or only a schema, validated against a few fixed instances).
#include <mcp/json.hpp>
#include <mcp/json_schema.hpp>

#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  const auto nul = all.find('\0');
  const mcp::json_limits limits{.max_size = 65536, .max_depth = 64};
  auto schema = mcp::parse_json(all.substr(0, nul), limits);
  if (!schema) return 0;
  for (const bool formats : {false, true}) {
    auto v = mcp::json_schema::validator::compile(
        *schema, mcp::json_schema::compile_options{.format_assertion = formats});
    if (!v) continue;
    if (nul != std::string_view::npos) {
      if (auto instance = mcp::parse_json(all.substr(nul + 1), limits)) {
        (void)v->validate(*instance);
        (void)v->is_valid(*instance);
      }
    } else {
      for (const char* text : {"null", "0", "\"x\"", "[1,[2]]", R"({"a":{"b":[]}})"}) {
        (void)v->validate(*mcp::parse_json(text));
      }
    }
  }
  return 0;
}
