// What a verified bearer token costs per request (mcp/auth.hpp): the JWT verifier with its keys
// loaded, checking the signature and claims of every request (cache_entries = 0), and with the
// verified-token cache a client that reuses its token meets from its second request on.
#include <mcp/auth.hpp>

#include <benchmark/benchmark.h>

#include "support/jwt_issuer.hpp"

namespace {

using namespace mcp_test;

json::object claims() {
  return json::object{
      {"iss", "https://auth.bench"}, {"aud", "https://mcp.bench/mcp"}, {"sub", "alice"},
      {"scope", "mcp tools.read"},   {"client_id", "bench"},           {"exp", now_s() + 3600}};
}

mcp::auth::jwt_verifier verifier(const signing_key& k, std::size_t cache_entries) {
  mcp::auth::jwt_verifier v({.issuer = "https://auth.bench",
                             .audience = "https://mcp.bench/mcp",
                             .keys = {.location = jwks_of({&k})},
                             .cache_entries = cache_entries});
  if (auto loaded = v.load_keys(); !loaded) throw mcp::error_exception(loaded.error());
  return v;
}

void verify(benchmark::State& state, const char* alg, std::size_t cache_entries) {
  const auto k = make_key(alg, "b1");
  const auto v = verifier(k, cache_entries);
  const auto token = sign(k, claims());
  if (!v.verify(token).who) state.SkipWithError("the token does not verify");
  for (auto _ : state) benchmark::DoNotOptimize(v.verify(token));
}

void BM_verify_every_time(benchmark::State& state, const char* alg) { verify(state, alg, 0); }
void BM_verify_remembered(benchmark::State& state, const char* alg) { verify(state, alg, 10000); }

BENCHMARK_CAPTURE(BM_verify_every_time, RS256, "RS256");
BENCHMARK_CAPTURE(BM_verify_every_time, PS256, "PS256");
BENCHMARK_CAPTURE(BM_verify_every_time, ES256, "ES256");
BENCHMARK_CAPTURE(BM_verify_every_time, EdDSA, "EdDSA");
BENCHMARK_CAPTURE(BM_verify_remembered, RS256, "RS256");
BENCHMARK_CAPTURE(BM_verify_remembered, EdDSA, "EdDSA");

void BM_parse_jwks(benchmark::State& state) {
  const auto rs = make_key("RS256", "r");
  const auto es = make_key("ES256", "e");
  const auto ed = make_key("EdDSA", "d");
  const auto doc = jwks_of({&rs, &es, &ed});
  for (auto _ : state) benchmark::DoNotOptimize(mcp::auth::key_set::parse(doc).value());
}
BENCHMARK(BM_parse_jwks);

}  // namespace
