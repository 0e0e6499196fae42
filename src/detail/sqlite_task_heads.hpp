// Internal: what the SQLite task store (task_store_sqlite.cpp) remembers of the unfinished tasks
// it created, so that a status change can be one UPDATE, without reading the row first: the
// fields a task keeps from its creation (created_at, ttl, poll_interval, method). Only a hint:
// the UPDATE checks the owner, the status machine and the expiry itself, and a task it did not
// change (or one not remembered here) takes the path that reads the row.
#pragma once

#include <mcp/task_store.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace mcp::detail::sqlite {

/// The creation fields of unfinished tasks, by id. Thread-safe.
class task_heads {
 public:
  /// What a task keeps from its creation.
  struct head {
    std::chrono::system_clock::time_point created_at{};
    std::optional<std::chrono::milliseconds> ttl{};
    std::optional<std::chrono::milliseconds> poll_interval{};
    std::string method{};
  };

  /// Remembers `t` (created by this process); nothing when `max` tasks are remembered already.
  void add(const task_record& t) {
    const std::lock_guard lock(mu_);
    if (heads_.size() >= max) return;
    // As the row holds it (whole milliseconds).
    const auto created_at = std::chrono::floor<std::chrono::milliseconds>(t.created_at);
    heads_.insert_or_assign(t.id, head{created_at, t.ttl, t.poll_interval, t.method});
  }

  /// Task `id`'s creation fields, if remembered.
  [[nodiscard]] std::optional<head> find(std::string_view id) const {
    const std::lock_guard lock(mu_);
    const auto it = heads_.find(id);
    if (it == heads_.end()) return std::nullopt;
    return it->second;
  }

  /// Forgets task `id` (it ended, or is gone).
  void drop(std::string_view id) {
    const std::lock_guard lock(mu_);
    if (const auto it = heads_.find(id); it != heads_.end()) heads_.erase(it);
  }

  /// Tasks remembered at most (more are changed by the reading path).
  static constexpr std::size_t max = 100'000;

 private:
  struct hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };

  mutable std::mutex mu_;
  std::unordered_map<std::string, head, hash, std::equal_to<>> heads_;
};

}  // namespace mcp::detail::sqlite
