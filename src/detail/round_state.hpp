// Internal: the `requestState` of a 2026-07-28 input round, sealed. What a round hands the
// client to echo on its retry carries everything the next round needs, so that any process
// holding the key can serve the retry (nothing is kept on the server, unless single use is
// asked for): the answers gathered so far, the handler's own saved state, and what binds it
// (the caller's principal key, the method and a digest of the params, an expiry). It is
// encrypted and authenticated with AES-256-GCM (OpenSSL): the client can neither read nor change
// it, and a state made for another caller or another request, expired, or altered by one bit
// is refused.
//
// Format: "mrtr1." + base64url(12-byte nonce || ciphertext || 16-byte tag), the plaintext a
// compact JSON object.
#pragma once

#include <mcp/error.hpp>
#include <mcp/json.hpp>
#include <mcp/server.hpp>

#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

namespace mcp::detail {

/// What a sealed state carries.
struct round_contents {
  std::string principal;  ///< the caller's key
  std::string method;     ///< "tools/call", "prompts/get", "resources/read"
  std::string digest;     ///< of the request's params (`params_digest`)
  std::chrono::system_clock::time_point expires{};
  std::map<std::string, json::object, std::less<>> answers{};  ///< by input key
  std::set<std::string, std::less<>> asked{};                  ///< keys asked so far
  std::optional<json::value> saved{};                          ///< the handler's own state
  std::string nonce{};  ///< for single use (set when the server asks for it)
};

/// The digest binding a state to its request: SHA-256 of the params' canonical JSON (keys
/// sorted), leaving out `_meta`, `inputResponses` and `requestState`.
[[nodiscard]] std::string params_digest(const json::object& params);

/// Seals and opens round states under one key. Thread-safe.
class round_sealer {
 public:
  /// Throws std::invalid_argument for a key that is not 32 bytes, or a key file that cannot be
  /// read or holds neither 32 bytes nor 64 hex digits.
  /// With `shared`, single-use records are kept there (every process sharing it refuses a
  /// state any of them opened); else in this process.
  explicit round_sealer(const input_round_options& opts,
                        std::shared_ptr<shared_state> shared = nullptr);

  /// The state text for `c` (its `expires` and `nonce` are set here).
  [[nodiscard]] std::string seal(round_contents c) const;
  /// Opens `token` for a request of `principal` with `method` and params digest `digest`.
  /// Errors (`errc::invalid_params`, each saying why): not a state of this server (malformed,
  /// tampered, another key), expired, made for another caller or another request, used already
  /// (single use).
  [[nodiscard]] result<round_contents> open(std::string_view token, std::string_view principal,
                                            std::string_view method, std::string_view digest);

 private:
  [[nodiscard]] bool first_use(const std::string& nonce,
                               std::chrono::system_clock::time_point expires);

  std::string key_;  ///< 32 bytes
  std::chrono::milliseconds expiry_;
  bool single_use_;
  std::shared_ptr<shared_state> shared_;
  std::mutex mu_;
  std::unordered_map<std::string, std::chrono::system_clock::time_point> used_;  ///< single use
  /// The same records in the order they were used (each leaves once expired).
  std::deque<std::pair<std::chrono::system_clock::time_point, std::string>> used_order_;
};

}  // namespace mcp::detail
