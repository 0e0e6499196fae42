// The CPU of one 2026-07-28 input round's state (issue target: seal + open ≤ 5 µs): what a round
// costs beyond the request itself. A round with one answer gathered (an elicitation's content),
// sealed with AES-256-GCM, then opened as its retry is (bound to the caller, the method and the
// params digest). The reference in the same run is the in-process `tools/call` round trip of
// roundtrip_bench.cpp (mcp_core_bench).
#include <benchmark/benchmark.h>

#include "detail/round_state.hpp"

namespace {

mcp::detail::round_contents one_answer_round(const std::string& digest) {
  mcp::detail::round_contents c;
  c.principal = "session:3f6c1a";
  c.method = "tools/call";
  c.digest = digest;
  c.answers["ask_name/0"] =
      mcp::json::object{{"action", "accept"}, {"content", mcp::json::object{{"name", "Ada"}}}};
  c.asked.insert("ask_name/0");
  return c;
}

const mcp::json::object& call_params() {
  static const auto params =
      mcp::parse_json(R"({"name":"ask_name","arguments":{"greeting":"Hello"},"_meta":{)"
                      R"("io.modelcontextprotocol/protocolVersion":"2026-07-28"}})")
          ->as_object();
  return params;
}

// What binds a state to its request, paid on every tools/call, prompts/get and resources/read
// of this era whose request declares a capability a question needs (elicitation, sampling,
// roots) or carries a state.
void round_params_digest(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(mcp::detail::params_digest(call_params()));
}
BENCHMARK(round_params_digest);

void round_seal(benchmark::State& state) {
  mcp::detail::round_sealer sealer{mcp::input_round_options{}};
  const auto digest = mcp::detail::params_digest(call_params());
  for (auto _ : state) benchmark::DoNotOptimize(sealer.seal(one_answer_round(digest)));
}
BENCHMARK(round_seal);

void round_open(benchmark::State& state) {
  mcp::detail::round_sealer sealer{mcp::input_round_options{}};
  const auto digest = mcp::detail::params_digest(call_params());
  const auto token = sealer.seal(one_answer_round(digest));
  for (auto _ : state) {
    auto opened = sealer.open(token, "session:3f6c1a", "tools/call", digest);
    if (!opened) state.SkipWithError("open failed");
    benchmark::DoNotOptimize(opened);
  }
}
BENCHMARK(round_open);

// A whole round as the server does it: the retry's params digested, the state opened, the next
// state sealed. Single use adds the remembered nonce.
void round_seal_and_open(benchmark::State& state) {
  mcp::input_round_options opts;
  opts.single_use = state.range(0) != 0;
  // Short-lived states, so that the single-use records are forgotten as they expire (a round's
  // retry comes well within 50 ms here).
  opts.expiry = std::chrono::milliseconds(50);
  mcp::detail::round_sealer sealer{opts};
  for (auto _ : state) {
    const auto digest = mcp::detail::params_digest(call_params());
    const auto token = sealer.seal(one_answer_round(digest));
    auto opened = sealer.open(token, "session:3f6c1a", "tools/call", digest);
    if (!opened) state.SkipWithError("open failed");
    benchmark::DoNotOptimize(opened);
  }
}
BENCHMARK(round_seal_and_open)->Arg(0)->Arg(1);

}  // namespace
