// Internal: a bounded queue of span records, by pointer, that any number of threads add to without
// a lock and one thread takes from (otlp_exporter.cpp: the spans waiting for the exporter's
// thread). Each cell carries a sequence number that says whose turn it is: an adder claims a
// position by one compare-and-swap, writes the pointer and publishes it through the cell's
// number; the taker reads the cells in order and gives each back through its number (Vyukov's
// bounded queue, with a single taker). Positions are 64-bit counts that never wrap in practice.
// `push` and `size` are thread-safe; `take` and `clear` are for one thread at a time. Never
// throws once made.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "observe/span_node.hpp"

namespace mcp::observe::detail {

class record_ring {
 public:
  /// Room for `capacity` records, and at least 2 (with one cell, the number a cell is given
  /// back with would be the next adder's: a full cell would look free), made now. Throws
  /// std::bad_alloc.
  explicit record_ring(std::size_t capacity)
      : cells_(std::make_unique<cell[]>(std::max<std::size_t>(capacity, 2))),
        capacity_(std::max<std::size_t>(capacity, 2)),
        mask_(std::has_single_bit(capacity_) ? capacity_ - 1 : 0) {
    for (std::size_t i = 0; i < capacity_; ++i) cells_[i].seq.store(i, std::memory_order_relaxed);
  }
  ~record_ring() { clear(); }
  record_ring(const record_ring&) = delete;
  record_ring& operator=(const record_ring&) = delete;

  /// Adds `r` (not null) at the end and sets `at` to its position (0 for the first record ever
  /// added); false when the ring is full: `r` is left to the caller.
  bool push(record_ptr& r, std::uint64_t& at) noexcept {
    auto pos = tail_.load(std::memory_order_relaxed);
    for (;;) {
      cell& c = cells_[index(pos)];
      const auto seq = c.seq.load(std::memory_order_acquire);
      const auto ahead = static_cast<std::int64_t>(seq - pos);
      if (ahead == 0) {
        if (tail_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
          c.item = r.release();
          c.seq.store(pos + 1, std::memory_order_release);
          at = pos;
          return true;
        }
      } else if (ahead < 0) {
        return false;  // the cell still holds the record added a lap ago
      } else {
        pos = tail_.load(std::memory_order_relaxed);
      }
    }
  }

  /// Moves up to `most` of the oldest records to the end of `out`, within its capacity (the
  /// caller reserves room), stopping early at a record still being written; returns how many.
  std::size_t take(std::vector<record_ptr>& out, std::size_t most) noexcept {
    most = std::min(most, out.capacity() - out.size());
    const auto first = head_.load(std::memory_order_relaxed);
    auto pos = first;
    for (; pos - first < most; ++pos) {
      cell& c = cells_[index(pos)];
      if (c.seq.load(std::memory_order_acquire) != pos + 1) break;  // empty, or being written
      out.emplace_back(c.item);
      c.seq.store(pos + capacity_, std::memory_order_release);
    }
    head_.store(pos, std::memory_order_release);
    return static_cast<std::size_t>(pos - first);
  }

  /// How many records wait (a snapshot: other threads may add or take meanwhile).
  [[nodiscard]] std::size_t size() const noexcept {
    const auto h = head_.load(std::memory_order_acquire);
    const auto t = tail_.load(std::memory_order_acquire);
    return t > h ? static_cast<std::size_t>(t - h) : 0;
  }

  /// Takes and frees every record waiting; returns how many there were.
  std::size_t clear() noexcept {
    std::size_t n = 0;
    for (auto pos = head_.load(std::memory_order_relaxed);; ++pos, ++n) {
      cell& c = cells_[index(pos)];
      if (c.seq.load(std::memory_order_acquire) != pos + 1) {
        head_.store(pos, std::memory_order_release);
        return n;
      }
      delete c.item;  // NOLINT(cppcoreguidelines-owning-memory): the cell owned it
      c.seq.store(pos + capacity_, std::memory_order_release);
    }
  }

 private:
  struct cell {
    std::atomic<std::uint64_t> seq{0};
    span_record* item = nullptr;
  };

  [[nodiscard]] std::size_t index(std::uint64_t pos) const noexcept {
    return mask_ != 0 ? static_cast<std::size_t>(pos & mask_)
                      : static_cast<std::size_t>(pos % capacity_);
  }

  std::unique_ptr<cell[]> cells_;
  std::size_t capacity_;
  std::size_t mask_;  ///< capacity - 1 when it is a power of two, else 0 (then `%`)
  alignas(64) std::atomic<std::uint64_t> tail_{0};  ///< the next position to add at
  alignas(64) std::atomic<std::uint64_t> head_{0};  ///< the next position to take from
};

}  // namespace mcp::observe::detail
