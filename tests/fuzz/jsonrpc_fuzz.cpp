// The JSON parser with its limits and the JSON-RPC decoder: anything parsed is decoded, and
// anything decoded re-encodes to text that parses again (valid UTF-8, valid JSON).
#include <mcp/json.hpp>
#include <mcp/jsonrpc.hpp>

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto v = mcp::parse_json(text, mcp::json_limits{.max_size = 65536, .max_depth = 64});
  if (!v) return 0;
  // What we write is always valid JSON, whatever the value holds.
  const std::string again = mcp::to_json_string(*v);
  if (!mcp::parse_json(again, mcp::json_limits{.max_size = 1 << 20, .max_depth = 64})) std::abort();
  auto m = mcp::jsonrpc::decode(std::move(*v));
  if (!m) return 0;
  if (const auto* req = std::get_if<mcp::jsonrpc::request>(&*m)) {
    const std::string e = mcp::jsonrpc::encode_error(req->id, mcp::error{-32601, req->method});
    if (!mcp::parse_json(e)) std::abort();
  }
  return 0;
}
