// The policy file parser (mcp/policy.hpp): whatever it accepts is applied to a call of a tool
// by a caller with scopes and roles without crashing; what it refuses names a member.
#include <mcp/policy.hpp>

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto rules = mcp::parse_policy(text);
  if (!rules) {
    if (rules.error().message.rfind("policy: ", 0) != 0) std::abort();
    return 0;
  }
  auto policy = mcp::make_tool_policy(std::move(*rules));
  mcp::principal who{.subject = "alice",
                     .issuer = "https://auth.fuzz",
                     .scopes = std::vector<std::string>{"read"}};
  who.claims["roles"] = mcp::json::array{"ops"};
  for (const char* name : {"read", "admin.reset", "delete_row", ""}) {
    const mcp::tool_spec spec{.name = name};
    (void)policy->visible(who, spec);
    (void)policy->visible(mcp::principal{}, spec);
  }
  return 0;
}
