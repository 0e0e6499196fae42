// The numbers a peer gives its operations' attribute sets (`observe::operation::attribute_set`,
// peer.hpp): an observer keys what it resolved for a set (a metrics series, a span shape) by the
// number alone, where it would otherwise compare every attribute of the operation with those of
// what it found. A peer's transport, connection and (once known) protocol version are the same
// for all its operations, so only the side, method and target tell its sets apart.
#include <array>
#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "observe/operation_match.hpp"
#include "peer.hpp"

namespace mcp::detail {

namespace {

/// Attribute-set numbers, process-wide: each set of a peer gets a new one, so that equal numbers
/// mean equal attributes whatever peer they came from.
std::atomic<std::uint64_t> next_attribute_set{1};

}  // namespace

/// What varies among one peer's attribute sets (the rest is the peer's own: its transport and
/// connection, and its protocol version, which is set once), each with its number. Entries are
/// found without a lock in a small direct-mapped table, added under a lock and kept for the
/// peer's life; past `max_entries` (a peer inventing methods or tool names) or for long names,
/// operations get no number and the observer compares their attributes.
struct peer::attribute_sets {
  struct entry {
    std::string method;
    std::string target;
    observe::kind side;
    bool versioned;  ///< whether the protocol version was known
    std::uint64_t number;
  };
  static constexpr std::size_t slots = 32;
  static constexpr std::size_t max_entries = 128;
  static constexpr std::size_t max_text = 128;

  std::array<std::atomic<const entry*>, slots> slot{};
  std::mutex mu;
  std::vector<std::unique_ptr<const entry>> entries;  ///< guarded by `mu`

  static std::size_t hash(const observe::operation& op, bool versioned) noexcept {
    std::uint64_t h = observe::series::head8(op.method) ^ (op.method.size() << 56U) ^
                      (op.side == observe::kind::client ? 0x5555U : 0U) ^ (versioned ? 1U : 0U);
    h = (h ^ observe::series::head8(op.target) ^ (op.target.size() << 48U)) * 0xff51afd7ed558ccdULL;
    h = (h ^ observe::series::tail8(op.target) ^ observe::series::tail8(op.method)) *
        0xc4ceb9fe1a85ec53ULL;
    return static_cast<std::size_t>(h ^ (h >> 31U));
  }

  static bool same(const entry& e, const observe::operation& op, bool versioned) noexcept {
    return e.side == op.side && e.versioned == versioned &&
           observe::series::same_text(op.method, e.method) &&
           observe::series::same_text(op.target, e.target);
  }

  std::uint64_t number(const observe::operation& op) noexcept {
    const bool versioned = !op.protocol_version.empty();
    auto& s = slot[hash(op, versioned) % slots];
    if (const auto* e = s.load(std::memory_order_acquire);
        e != nullptr && same(*e, op, versioned)) {
      return e->number;
    }
    return add(op, versioned, s);
  }

  /// `number` past its slot (out of line: the usual hit saves no registers for it).
  [[gnu::noinline, gnu::cold]] std::uint64_t add(const observe::operation& op, bool versioned,
                                                 std::atomic<const entry*>& s) noexcept {
    if (op.method.size() > max_text || op.target.size() > max_text) return 0;
    try {
      std::lock_guard lock(mu);
      for (const auto& e : entries) {  // made by another thread, or pushed out of its slot
        if (same(*e, op, versioned)) {
          s.store(e.get(), std::memory_order_release);
          return e->number;
        }
      }
      if (entries.size() >= max_entries) return 0;
      entries.push_back(std::make_unique<const entry>(
          entry{.method = std::string(op.method),
                .target = std::string(op.target),
                .side = op.side,
                .versioned = versioned,
                .number = next_attribute_set.fetch_add(1, std::memory_order_relaxed)}));
      s.store(entries.back().get(), std::memory_order_release);
      return entries.back()->number;
    } catch (const std::exception&) {  // no memory: not numbered
      return 0;
    }
  }
};

peer::attribute_sets_ptr::~attribute_sets_ptr() { delete sets.load(); }

void peer::number_attribute_set(observe::operation& op) noexcept {
  auto* sets = attribute_sets_.sets.load(std::memory_order_acquire);
  if (sets == nullptr) [[unlikely]] {
    if (!attribute_sets_.wanted.exchange(true, std::memory_order_relaxed)) return;  // the first
    auto* fresh = new (std::nothrow) attribute_sets();
    if (fresh == nullptr) return;
    if (attribute_sets_.sets.compare_exchange_strong(sets, fresh, std::memory_order_acq_rel)) {
      sets = fresh;
    } else {
      delete fresh;  // another thread's came first: `sets` is it
    }
  }
  op.attribute_set = sets->number(op);
}

}  // namespace mcp::detail
