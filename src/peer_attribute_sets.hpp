// Internal: the numbers a peer gives its operations' attribute sets (peer_attribute_sets.cpp),
// with the inline lookup of the set found last that the engine's dispatch makes for every
// observed request (peer_observe.cpp).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "observe/operation_match.hpp"
#include "peer.hpp"

namespace mcp::detail {

/// The methods whose operations have a target (the conventions' `gen_ai.tool.name` or
/// `gen_ai.prompt.name`): their sets differ by it, and a set's method is compared as this class
/// alone when it is one of them.
enum class targeted : std::uint8_t { none, tool, prompt };

/// `method`'s class, compared inline (a word or two).
[[gnu::always_inline]] inline targeted targeted_of(std::string_view method) noexcept {
  if (observe::series::same_text(method, "tools/call")) return targeted::tool;
  if (observe::series::same_text(method, "prompts/get")) return targeted::prompt;
  return targeted::none;
}

/// One of a peer's attribute sets (`attribute_sets`), with its number.
struct peer::attribute_sets_entry {
  std::string method;
  std::string target;
  observe::kind side;
  bool versioned;         ///< whether the protocol version was known
  targeted method_class;  ///< `targeted_of(method)`
  std::uint64_t number;
  /// The span word an observer gives every operation of this set (`spans_by_attribute_set`),
  /// once its first span was seen; 0 until then. Published with release: it points at what
  /// the observer made for the set.
  mutable std::atomic<std::uintptr_t> span_word{0};
  /// The observer's `root_word` for a received request of this set (`starts_roots`), once
  /// its first span was seen; 0 until then, or when it has none.
  mutable std::atomic<std::uintptr_t> root_word{0};
};

/// What varies among one peer's attribute sets (the rest is the peer's own: its transport and
/// connection, and its protocol version, which is set once), each with its number. Entries are
/// found without a lock in a table of 128 slots (a set in its hash's slot or the next), added
/// under a lock and kept for the peer's life; past `max_entries` (a peer inventing methods or tool
/// names) or for long names, operations get no number and the observer compares their attributes.
struct peer::attribute_sets {
  using entry = attribute_sets_entry;
  /// What tells one peer's sets apart.
  struct key {
    observe::kind side;
    std::string_view method;
    std::string_view target;
    bool versioned;
  };
  static constexpr std::size_t slots = 128;
  static constexpr std::size_t max_entries = 128;
  static constexpr std::size_t max_text = 128;

  std::array<std::atomic<const entry*>, slots> slot{};
  /// The set `known` found last: tried first, since a peer's calls mostly repeat one set.
  std::atomic<const entry*> last{nullptr};
  /// Whether the peer's protocol version is known (it stays, once set): read once from the peer.
  std::atomic<bool> versioned{false};
  std::mutex mu;
  std::vector<std::unique_ptr<const entry>> entries;  ///< guarded by `mu`

  /// A slot from the sizes of the method and target, the method's last byte and the target's
  /// first and last eight bytes (a peer's sets differ there: tools/call and tools/list, tool
  /// names such as `list_users` and `list_roles`).
  [[gnu::always_inline]] static std::size_t hash(const key& k) noexcept {
    const std::uint64_t last_of_method =
        k.method.empty() ? 0 : static_cast<unsigned char>(k.method.back());
    std::uint64_t h = k.method.size() | (k.target.size() << 8U) | (last_of_method << 16U) |
                      (std::uint64_t{k.side == observe::kind::client} << 24U) |
                      (std::uint64_t{k.versioned} << 25U);
    h = (h ^ observe::series::head8(k.target)) * 0x9e3779b97f4a7c15ULL;
    h = (h ^ observe::series::tail8(k.target)) * 0xff51afd7ed558ccdULL;
    return static_cast<std::size_t>(h >> 32U);
  }

  [[gnu::always_inline]] static bool same(const entry& e, const key& k) noexcept {
    return e.side == k.side && e.versioned == k.versioned &&
           observe::series::same_text(k.method, e.method) &&
           observe::series::same_text(k.target, e.target);
  }

  /// The entry of `k` if it is in its slot or the next one (no lock); null otherwise.
  [[gnu::always_inline]] const entry* in_slot(const key& k) const noexcept {
    const std::size_t i = hash(k) % slots;
    for (const std::size_t at : {i, (i + 1) % slots}) {
      const auto* e = slot[at].load(std::memory_order_acquire);
      if (e != nullptr && same(*e, k)) return e;
    }
    return nullptr;
  }

  /// The entry of (`side`, `method`, `target`, `with_version`) if it is in its slot (no lock);
  /// null otherwise, and remembered as the last one found. `last_word` is tried first, inline;
  /// the key is made here, out of line, so that the usual hit keeps none in memory.
  [[gnu::noinline]] const entry* known_in_slot(observe::kind side, std::string_view method,
                                               std::string_view target,
                                               bool with_version) noexcept {
    const auto* e =
        in_slot({.side = side, .method = method, .target = target, .versioned = with_version});
    if (e != nullptr) last.store(e, std::memory_order_release);
    return e;
  }

  /// The entry of `k`, added when new; null when not numbered (too many, too long, no memory).
  const entry* find(const key& k) noexcept {
    if (const auto* e = in_slot(k); e != nullptr) return e;
    return add(k);
  }

  /// `find` past its slot (out of line: the usual hit saves no registers for it).
  [[gnu::noinline, gnu::cold]] const entry* add(const key& k) noexcept;

  /// The span word of the set found last if it is (`side`, `method`, `target`) with the
  /// protocol version known; 0 otherwise (`peer::known_span_word` then looks further). Inline:
  /// the usual request repeats the set found last.
  /// `method_class`: `targeted_of(method)`, which the caller knows (a method of a class other
  /// than `none` is that class's: its text is not compared again).
  [[gnu::always_inline]] std::uintptr_t last_word(observe::kind side, std::string_view method,
                                                  targeted method_class,
                                                  std::string_view target) const noexcept {
    const auto* e = last_entry(side, method, method_class, target);
    return e != nullptr ? e->span_word.load(std::memory_order_acquire) : 0;
  }

  /// The set found last if it is (`side`, `method`, `target`) with the protocol version known;
  /// null otherwise (as `last_word`).
  [[gnu::always_inline]] const entry* last_entry(observe::kind side, std::string_view method,
                                                 targeted method_class,
                                                 std::string_view target) const noexcept {
    // A set made with the version known: the peer's version is known (it stays, once set).
    const auto* e = last.load(std::memory_order_acquire);
    if (e == nullptr || e->side != side || !e->versioned || e->method_class != method_class ||
        (method_class == targeted::none && !observe::series::same_text(method, e->method)) ||
        !observe::series::same_text(target, e->target)) {
      return nullptr;
    }
    return e;
  }
};

}  // namespace mcp::detail
