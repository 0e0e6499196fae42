// Internal: how server features plug into the session engine. A feature (tools, resources,
// prompts, completion, logging, tasks) registers its methods in the server's `method_router`
// and says which capability it declares to a session at initialize. The session routes a
// request by method name and answers -32601 for a method whose capability it was not offered;
// it never names a feature itself.
#pragma once

#include <mcp/jsonrpc.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "detail/string_hash.hpp"
#include "protocol.hpp"

namespace mcp::detail {

class server_session_impl;

/// Answers one request (now, or later through the session).
using method_handler = std::function<void(server_session_impl&, jsonrpc::request&&)>;

struct method_entry {
  std::string capability;  ///< the capability the method belongs to ("" for none)
  method_handler handler;
};

/// Which eras a method is served in: the sessioned ones (initialize, 2025-11-25 and older),
/// the per-request one (2026-07-28), or both. A method may have one handler per era.
enum class served_in : std::uint8_t { legacy = 1, modern = 2, both = 3 };

/// Method name → handler, per era. Filled while the server is built, read-only afterwards (so
/// lookups need no lock).
class method_router {
 public:
  /// Registers `method` for `eras`. Throws std::logic_error when one of them has it already.
  void add(std::string method, std::string capability, method_handler handler,
           served_in eras = served_in::both);
  /// The entry for `method` in a legacy (`modern` false) or the modern era, or null.
  [[nodiscard]] const method_entry* find(std::string_view method, bool modern) const;

 private:
  struct entries {
    std::optional<method_entry> legacy;
    std::optional<method_entry> modern;
  };
  std::unordered_map<std::string, entries, string_hash, std::equal_to<>> methods_;
};

/// A server feature. Implementations are thread-safe.
class feature {
 public:
  virtual ~feature() = default;
  /// The capability to declare to session `s` at initialize (name and object), or nothing when
  /// the feature is not offered (e.g. nothing registered). It may depend on the registered
  /// entries, the session's era and whether its callers share a task owner, and on nothing else:
  /// server_core::capabilities keeps the result per era and owner kind until a list changes.
  [[nodiscard]] virtual std::optional<std::pair<std::string, json::object>> capability(
      const server_session_impl& s) const = 0;
};

/// A -32602 answer for a feature's method. Cold: the compiler keeps the paths that build one
/// out of the hot code (docs/design.md).
[[nodiscard, gnu::cold]] error invalid_params(std::string msg);

/// Lists that announce changes (`notifications/<list>/list_changed`), by index.
inline constexpr std::size_t max_lists = 4;

}  // namespace mcp::detail
