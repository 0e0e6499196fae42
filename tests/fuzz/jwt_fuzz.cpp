// Bearer token checks (mcp/auth.hpp): the first byte picks what the rest is. 'K': a JWKS
// document for key_set::parse; 'C': a claims object (a JWT payload, an introspection answer)
// for the claim checks both verifiers share; 'I': a token introspection answer (RFC 7662) as
// the introspection verifier reads it; anything else: a token for a jwt_verifier whose keys
// are the fixed set below (the seed corpus holds tokens those keys really signed, so mutations
// reach the claims checks too). Nothing may crash, hang or leak; a verdict is either a principal or
// a reason.
#include <mcp/auth.hpp>
#include <mcp/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "auth/jose.hpp"

namespace {

constexpr std::string_view keys =
    R"({"keys":[{"kty":"OKP","crv":"Ed25519","x":"swmx882D2OhXKupwc0u6e6CpDhfgEweVSQrRO1u2Kg8","kid":"fz-ed","alg":"EdDSA","use":"sig"},{"kty":"EC","crv":"P-256","x":"VMeehJmvNLx8Z1Jt35BV53iWzjTDqKo2VLenDqI1NZY","y":"VIAy9ydC40cIsM7jPD2ovFnIcpjDzBdGhPU1oi3AIHQ","kid":"fz-es","alg":"ES256","use":"sig"}]})";

const mcp::auth::jwt_verifier& verifier() {
  static const mcp::auth::jwt_verifier v({.issuer = "https://auth.fuzz",
                                          .audience = "https://mcp.fuzz/mcp",
                                          .keys = {.location = std::string(keys)},
                                          .cache_entries = 64});
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] == 'K') {
    const auto set = mcp::auth::key_set::parse(rest);  // an error, never an exception
    if (set) (void)set->find("ES256", "");
    if (!set && set.error().message.empty()) std::abort();
    return 0;
  }
  if (data[0] == 'I') {
    const auto v = mcp::auth::detail::check_introspection_answer(
        rest, {.issuer = "https://auth.fuzz", .audience = "https://mcp.fuzz/mcp"});
    if (v.who.has_value() == !v.reason.empty()) std::abort();
    return 0;
  }
  if (data[0] == 'C') {
    auto doc = mcp::parse_json(rest, mcp::json_limits{.max_size = 65536, .max_depth = 16});
    if (!doc || !doc->is_object()) return 0;
    std::int64_t expires = 0;
    const auto v = mcp::auth::detail::check_claims(
        std::move(doc->get_object()),
        {.issuer = "https://auth.fuzz", .audience = "https://mcp.fuzz/mcp"}, expires);
    if (v.who.has_value() == !v.reason.empty()) std::abort();
    return 0;
  }
  const auto verdict = verifier().verify(rest);
  if (verdict.who.has_value() == !verdict.reason.empty()) std::abort();
  if (verdict.who && verdict.who->subject.empty()) std::abort();
  return 0;
}
