// What a server may answer a typed client (mcp/client_types.hpp): any JSON decoded as each
// result type never crashes, and whatever decodes encodes again to JSON that decodes to the
// same JSON (members the types do not know are dropped, nothing else changes).
#include <mcp/client_types.hpp>
#include <mcp/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {

template <class T>
void decode_and_back(const mcp::json::value& v) {
  auto out = mcp::from_json<T>(v);
  if (!out) {
    if (out.error().message.empty()) std::abort();  // every refusal says why
    return;
  }
  const mcp::json::value encoded = mcp::to_json(*out);
  auto again = mcp::from_json<T>(encoded);
  if (!again) std::abort();  // what we wrote we must read
  if (mcp::to_json(*again) != encoded) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto v = mcp::parse_json(text, mcp::json_limits{.max_size = 65536, .max_depth = 64});
  if (!v) return 0;
  decode_and_back<mcp::initialize_result>(*v);
  decode_and_back<mcp::tool_info>(*v);
  decode_and_back<mcp::resource_info>(*v);
  decode_and_back<mcp::resource_template_info>(*v);
  decode_and_back<mcp::prompt_info>(*v);
  decode_and_back<mcp::read_resource_result>(*v);
  decode_and_back<mcp::get_prompt_result>(*v);
  decode_and_back<mcp::elicitation_request>(*v);
  decode_and_back<mcp::sampling_request>(*v);
  return 0;
}
