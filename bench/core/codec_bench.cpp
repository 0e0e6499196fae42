// The JSON-RPC codec: parse + decode of a tools/call request, and encoding of its result.
#include <mcp/jsonrpc.hpp>

#include <benchmark/benchmark.h>

namespace {

constexpr std::string_view request_text =
    R"({"jsonrpc":"2.0","id":12345,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello world, this is a typical short tool argument"},"_meta":{"progressToken":"p-1"}}})";

void parse_and_decode_request(benchmark::State& state) {
  for (auto _ : state) {
    auto v = mcp::parse_json(request_text);
    auto m = mcp::jsonrpc::decode(std::move(*v));
    benchmark::DoNotOptimize(m);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(request_text.size()));
}
BENCHMARK(parse_and_decode_request);

void encode_tool_result(benchmark::State& state) {
  mcp::json::object result{
      {"content", mcp::json::array{mcp::json::object{
                      {"type", "text"}, {"text", "hello world, this is a typical short result"}}}}};
  const mcp::jsonrpc::request_id id{std::int64_t{12345}};
  for (auto _ : state) {
    auto s = mcp::jsonrpc::encode_result(id, result);
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(encode_tool_result);

void serialize_doubles(benchmark::State& state) {
  mcp::json::array a;
  for (int i = 0; i < 100; ++i) a.emplace_back(i * 1.37);
  const mcp::json::value v(std::move(a));
  for (auto _ : state) {
    auto s = mcp::to_json_string(v);
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(serialize_doubles);

}  // namespace
