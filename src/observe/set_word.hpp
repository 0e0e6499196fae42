// Internal: what `observer::spans_by_attribute_set` lets a caller keep for a numbered attribute
// set (the engine, peer_observe.cpp; `combine`'s second part, seam.cpp): the span's word alone,
// from which the set's later spans start. And the per-thread cache by owner and set number in
// which the metrics find a set's group and `combine` its second part's word. Thread-safe: the
// functions touch only their arguments, each thread has its own cache.
#pragma once

#include <mcp/observe.hpp>

#include <array>
#include <chrono>
#include <cstdint>

namespace mcp::detail {

/// Whether `s` has the form `observer::spans_by_attribute_set` promises: active, a non-zero
/// word, and no state, context or baggage (the word alone says it).
[[nodiscard]] inline bool is_word_span(const observe::span& s) noexcept {
  return s.active && s.word != 0 && !s.state && !s.context.valid() && s.baggage.empty();
}

/// The span of an operation whose set's span word is `word`, started at `start` (unset: now).
[[nodiscard]] inline observe::span span_of_word(
    std::uintptr_t word, std::chrono::steady_clock::time_point start) noexcept {
  observe::span s;
  s.active = true;
  s.word = word;
  s.start = observe::now_if_unset(start);
  return s;
}

/// A per-thread cache of `T` by owner (a number never reused, unlike an address) and attribute
/// set number: 64 slots, the last entry of a slot wins. `Tag` keeps users' caches apart.
template <class T, class Tag>
struct numbered_cache {
  struct slot {
    std::uint64_t owner = 0;
    std::uint64_t number = 0;
    T value{};
    /// Whether the slot holds the value of (`o`, `n`).
    [[nodiscard]] bool holds(std::uint64_t o, std::uint64_t n) const noexcept {
      return number == n && owner == o;
    }
  };
  /// This thread's slot for (`owner`, `number`), whoever's value it holds now (`holds`).
  static slot& at(std::uint64_t owner, std::uint64_t number) noexcept {
    thread_local std::array<slot, 64> cache{};
    return cache[(number ^ (owner << 3U)) % cache.size()];
  }
};

}  // namespace mcp::detail
