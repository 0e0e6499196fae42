// File: mcp/client_cache.hpp
//
// What a client remembers between requests and between sessions: the era a server was found to
// speak (the negotiation verdict, per process), and the results a 2026-07-28 server says may be
// kept (`ttlMs`, `cacheScope`: server/discover, the four lists, resources/read).
//
// Verdicts are keyed by `client_options::origin` (`connect_http` sets the endpoint URL,
// `launch_server` the command line): the next `negotiation::automatic` session with the same
// origin goes straight to that era, and probes again when the server proves it wrong.
//
// Example:
//
//   auto link = mcp::connect_http({.url = url}, {.negotiate = mcp::negotiation::automatic});
//   auto v = mcp::cached_era(url);          // {protocol_era::modern, "2026-07-28"}
//   mcp::forget_era(url);                   // the next session probes again
//
//   // One cache for several sessions: "public" results are shared between them, "private" ones
//   // only between sessions with the same authorization_context.
//   auto cache = mcp::make_result_cache({.max_entries = 1024});
//   mcp::client_options o{.cache = cache, .authorization_context = "alice"};
//   cache->clear();
#pragma once

#include <mcp/client.hpp>
#include <mcp/json.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace mcp {

/// What negotiation found a server to speak.
struct era_verdict {
  protocol_era era = protocol_era::none;  ///< legacy or modern
  std::string version;                    ///< the revision negotiated ("2026-07-28", ...)
};

/// The verdict remembered for `origin` (nothing when none is). Thread-safe; never throws but
/// std::bad_alloc.
[[nodiscard]] std::optional<era_verdict> cached_era(std::string_view origin);
/// Remembers `verdict` for `origin` (e.g. one the application persisted). At most 1024 origins
/// are kept (the oldest goes). `protocol_era::none` forgets it. Thread-safe.
void remember_era(std::string_view origin, era_verdict verdict);
/// Forgets the verdict for `origin`: the next automatic session probes again. Thread-safe.
void forget_era(std::string_view origin);
/// Forgets every verdict. Thread-safe.
void forget_all_eras();

/// Bounds of a result cache.
struct result_cache_options {
  std::size_t max_entries = 512;         ///< the least recently used go first
  std::size_t max_bytes = 8U << 20U;     ///< serialized results and keys; larger results skip
  std::chrono::milliseconds max_ttl{0};  ///< caps a server's ttlMs; 0: no cap
};

/// Counters of a result cache (plain value).
struct result_cache_stats {
  std::uint64_t hits = 0;    ///< lookups answered from the cache
  std::uint64_t misses = 0;  ///< lookups that found nothing fresh
  std::size_t entries = 0;   ///< entries held now
  std::size_t bytes = 0;     ///< their size
};

/// Results a server said may be kept, keyed by origin, method and the params that shape the
/// result (not `_meta`); a "private" result also by its authorization context, so that it never
/// reaches a session of another one. The method may carry the protocol revision after a space
/// (client sessions key "tools/list 2026-07-28"), so that a result kept under one revision is
/// never served to a session of another. Entries expire `ttlMs` after they arrived; list_changed
/// and resources/updated notifications drop the entries they make stale. Results of input
/// rounds are never kept.
///
/// Thread-safety: every member may be called from any thread, sessions share one freely.
class result_cache {
 public:
  /// An empty cache bounded by `opts` (`make_result_cache` makes one shared).
  explicit result_cache(result_cache_options opts);
  ~result_cache();
  result_cache(const result_cache&) = delete;
  result_cache& operator=(const result_cache&) = delete;

  /// A fresh result of `method` with `params` at `origin` for authorization context `context`:
  /// one stored "private" for that context, else one stored "public". Nothing when none is fresh.
  [[nodiscard]] std::optional<json::object> lookup(std::string_view origin,
                                                   std::string_view context,
                                                   std::string_view method,
                                                   const json::object& params);
  /// Keeps `result` when it says so (`ttlMs` > 0, `cacheScope` "public" or "private", a
  /// complete result); returns whether it was kept.
  bool store(std::string_view origin, std::string_view context, std::string_view method,
             const json::object& params, const json::object& result);
  /// Drops every entry of `method` at `origin` (every context, and every revision when
  /// `method` names none: "tools/list" drops "tools/list 2026-07-28"); with `uri`, only those
  /// of that resource (resources/read).
  void invalidate(std::string_view origin, std::string_view method, std::string_view uri = {});
  /// Drops everything.
  void clear();
  /// Counters and size.
  [[nodiscard]] result_cache_stats stats() const;

 private:
  struct state;
  std::unique_ptr<state> s_;
};

/// A result cache bounded by `opts`. Never throws but std::bad_alloc.
[[nodiscard]] std::shared_ptr<result_cache> make_result_cache(result_cache_options opts = {});

}  // namespace mcp
