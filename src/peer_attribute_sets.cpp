// The numbers a peer gives its operations' attribute sets (`observe::operation::attribute_set`,
// peer.hpp): an observer keys what it resolved for a set (a metrics series, a span shape) by the
// number alone, where it would otherwise compare every attribute of the operation with those of
// what it found. A peer's transport, connection and (once known) protocol version are the same
// for all its operations, so only the side, method and target tell its sets apart.
#include "peer_attribute_sets.hpp"

#include <array>
#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

namespace mcp::detail {

namespace {

/// Attribute-set numbers, process-wide: each set of a peer gets a new one, so that equal numbers
/// mean equal attributes whatever peer they came from.
std::atomic<std::uint64_t> next_attribute_set{1};

}  // namespace

const peer::attribute_sets::entry* peer::attribute_sets::add(const key& k) noexcept {
  if (k.method.size() > max_text || k.target.size() > max_text) return nullptr;
  try {
    std::lock_guard lock(mu);
    const std::size_t i = hash(k) % slots;
    // The home slot, or the next one when the home slot holds another set and the next is free.
    auto& s = slot[i].load(std::memory_order_relaxed) != nullptr &&
                      slot[(i + 1) % slots].load(std::memory_order_relaxed) == nullptr
                  ? slot[(i + 1) % slots]
                  : slot[i];
    for (const auto& e : entries) {  // made by another thread, or pushed out of its slot
      if (same(*e, k)) {
        s.store(e.get(), std::memory_order_release);
        return e.get();
      }
    }
    if (entries.size() >= max_entries) return nullptr;
    auto e = std::make_unique<entry>();
    e->method = std::string(k.method);
    e->target = std::string(k.target);
    e->side = k.side;
    e->versioned = k.versioned;
    e->method_class = targeted_of(k.method);
    e->number = next_attribute_set.fetch_add(1, std::memory_order_relaxed);
    entries.push_back(std::move(e));
    s.store(entries.back().get(), std::memory_order_release);
    return entries.back().get();
  } catch (const std::exception&) {  // no memory: not numbered
    return nullptr;
  }
}

peer::attribute_sets_ptr::~attribute_sets_ptr() { delete sets.load(); }

const peer::attribute_sets::entry* peer::number_attribute_set(observe::operation& op) noexcept {
  auto* sets = attribute_sets_.sets.load(std::memory_order_acquire);
  if (sets == nullptr) [[unlikely]] {
    if (!attribute_sets_.wanted.exchange(true, std::memory_order_relaxed)) return nullptr;
    auto* fresh = new (std::nothrow) attribute_sets();
    if (fresh == nullptr) return nullptr;
    if (attribute_sets_.sets.compare_exchange_strong(sets, fresh, std::memory_order_acq_rel)) {
      sets = fresh;
    } else {
      delete fresh;  // another thread's came first: `sets` is it
    }
  }
  const auto* e = sets->find({.side = op.side,
                              .method = op.method,
                              .target = op.target,
                              .versioned = !op.protocol_version.empty()});
  if (e == nullptr) return nullptr;
  op.attribute_set = e->number;
  return e;
}

std::uintptr_t peer::known_span_word(observe::kind side, std::string_view method,
                                     std::string_view target) const noexcept {
  const auto* e = known_set(side, method, target);
  return e != nullptr ? e->span_word.load(std::memory_order_acquire) : 0;
}

const peer::attribute_sets::entry* peer::known_set(observe::kind side, std::string_view method,
                                                   std::string_view target) const noexcept {
  auto* sets = attribute_sets_.sets.load(std::memory_order_acquire);
  if (sets == nullptr) return nullptr;
  if (const auto* e = sets->last_entry(side, method, targeted_of(method), target); e != nullptr) {
    return e;
  }
  return known_set_in_slot(*sets, side, method, target);
}

const peer::attribute_sets::entry* peer::known_set_in_slot(attribute_sets& sets, observe::kind side,
                                                           std::string_view method,
                                                           std::string_view target) const noexcept {
  bool versioned = sets.versioned.load(std::memory_order_relaxed);
  if (!versioned && !observed_version().empty()) {
    versioned = true;
    sets.versioned.store(true, std::memory_order_relaxed);
  }
  return sets.known_in_slot(side, method, target, versioned);
}

}  // namespace mcp::detail
