// Internal: the one registry shape of the server. A `catalog` holds immutable entries keyed by
// a unique string (a tool's name, a resource's URI, a template's text, a prompt's name) in
// registration order, and lists them in pages with opaque cursors: a cursor names the last
// sequence number returned plus a random per-catalog epoch, so pages stay consistent while
// entries come and go, and a cursor from another server instance (e.g. before a restart) is
// refused. Entries are shared with requests in flight, so changing one replaces it.
// Thread-safe.
#pragma once

#include <mcp/error.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "detail/string_hash.hpp"

namespace mcp::detail {

/// An opaque list cursor naming sequence number `seq` of a catalog with random `epoch`.
[[nodiscard]] std::string make_cursor(std::string_view epoch, std::uint64_t seq);
/// The sequence number a cursor names; nothing for an invalid cursor or one of another epoch.
[[nodiscard]] std::optional<std::uint64_t> read_cursor(std::string_view cursor,
                                                       std::string_view epoch);
/// A random epoch for a new catalog.
[[nodiscard]] std::string new_epoch();

template <class Entry>
class catalog {
 public:
  catalog() : epoch_(new_epoch()) {}

  /// Adds `e` under `key`; false when the key is taken.
  bool add(const std::string& key, std::shared_ptr<const Entry> e) {
    std::unique_lock lock(mu_);
    if (by_key_.contains(key)) return false;
    const auto seq = next_seq_++;
    by_key_.emplace(key, seq);
    by_seq_.emplace(seq, std::move(e));
    return true;
  }
  bool remove(std::string_view key) {
    std::unique_lock lock(mu_);
    auto it = by_key_.find(key);
    if (it == by_key_.end()) return false;
    by_seq_.erase(it->second);
    by_key_.erase(it);
    return true;
  }
  /// Replaces the entry under `key` with `change(old)` (its place in the order is kept); the
  /// change returns null to keep the old entry. False when there is no such key.
  template <class F>
  bool replace(std::string_view key, F&& change) {
    std::unique_lock lock(mu_);
    auto it = by_key_.find(key);
    if (it == by_key_.end()) return false;
    auto& slot = by_seq_.at(it->second);
    if (std::shared_ptr<const Entry> next = change(*slot)) slot = std::move(next);
    return true;
  }
  [[nodiscard]] std::shared_ptr<const Entry> find(std::string_view key) const {
    std::shared_lock lock(mu_);
    auto it = by_key_.find(key);
    return it == by_key_.end() ? nullptr : by_seq_.at(it->second);
  }
  [[nodiscard]] bool empty() const {
    std::shared_lock lock(mu_);
    return by_seq_.empty();
  }
  /// Every entry, in registration order.
  [[nodiscard]] std::vector<std::shared_ptr<const Entry>> all() const {
    std::shared_lock lock(mu_);
    std::vector<std::shared_ptr<const Entry>> out;
    out.reserve(by_seq_.size());
    for (const auto& [seq, e] : by_seq_) out.push_back(e);
    return out;
  }

  /// One page: up to `page_size` (at least 1) entries after the cursor for which
  /// `visible(entry)` holds, and the cursor of the next page. The entries stay valid while
  /// the page lives (it holds the catalog's read lock: write it out, then drop it).
  struct page {
    std::shared_lock<std::shared_mutex> lock;
    std::vector<const Entry*> entries;
    std::optional<std::string> next_cursor;
  };
  /// Errors: errc::invalid_params for an invalid or stale cursor.
  template <class Visible>
  [[nodiscard]] result<page> list(const std::optional<std::string>& cursor, std::size_t page_size,
                                  Visible&& visible) const {
    std::uint64_t after = 0;
    if (cursor) {
      auto seq = read_cursor(*cursor, epoch_);
      if (!seq) return error{errc::invalid_params, "Invalid cursor"};
      after = *seq;
    }
    if (page_size == 0) page_size = 1;
    page out{std::shared_lock(mu_), {}, std::nullopt};
    out.entries.reserve(std::min<std::size_t>(page_size, 1024));
    std::uint64_t last = after;
    for (auto it = by_seq_.upper_bound(after); it != by_seq_.end(); ++it) {
      if (!visible(*it->second)) continue;
      if (out.entries.size() == page_size) {
        out.next_cursor = make_cursor(epoch_, last);
        break;
      }
      out.entries.push_back(it->second.get());
      last = it->first;
    }
    return out;
  }

 private:
  mutable std::shared_mutex mu_;
  std::map<std::uint64_t, std::shared_ptr<const Entry>> by_seq_;
  std::unordered_map<std::string, std::uint64_t, string_hash, std::equal_to<>> by_key_;
  std::uint64_t next_seq_ = 1;
  std::string epoch_;
};

}  // namespace mcp::detail
