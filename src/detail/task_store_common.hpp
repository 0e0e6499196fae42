// Internal: what the memory and SQLite task stores share — the cursor encoding, the
// millisecond clock conversions and the payload of a task failed by `fail_unfinished`.
#pragma once

#include <mcp/error.hpp>
#include <mcp/json.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mcp {
class task_store;
struct task_record;
struct task_update;
}  // namespace mcp

namespace mcp::detail {

/// Whether `store` is the one make_memory_task_store() makes (storing a task there is no
/// commit: the server stores it on the transport's reader, tasks.cpp).
[[nodiscard]] bool is_memory_task_store(const task_store& store) noexcept;

/// `store.update(id, owner, u)`, taking what `u` holds where the store can: the memory store
/// keeps `u`'s payload instead of a copy, and when it applies `u` it returns the task with an
/// empty payload (the caller had it: `u`'s). `u` is left valid but unspecified.
[[nodiscard]] result<std::optional<task_record>> update_task(task_store& store, std::string_view id,
                                                             std::string_view owner,
                                                             task_update&& u);

/// Milliseconds since the epoch of `t` (rounded down).
[[nodiscard]] inline std::int64_t to_epoch_ms(std::chrono::system_clock::time_point t) noexcept {
  return std::chrono::floor<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

/// The time point `ms` milliseconds after the epoch.
[[nodiscard]] inline std::chrono::system_clock::time_point from_epoch_ms(std::int64_t ms) noexcept {
  return std::chrono::system_clock::time_point(std::chrono::milliseconds(ms));
}

/// `t` rounded down to the millisecond: both stores keep times at that precision.
[[nodiscard]] inline std::chrono::system_clock::time_point floor_ms(
    std::chrono::system_clock::time_point t) noexcept {
  return from_epoch_ms(to_epoch_ms(t));
}

/// The cursor naming the position after the task with sequence number `seq`:
/// "t" followed by 16 lowercase hex digits.
[[nodiscard]] inline std::string encode_task_cursor(std::uint64_t seq) {
  static constexpr std::string_view digits = "0123456789abcdef";
  std::string out(17, '0');
  out[0] = 't';
  for (std::size_t i = 16; i > 0; --i) {
    out[i] = digits[seq & 0xFU];
    seq >>= 4U;
  }
  return out;
}

/// The sequence number in `cursor`, or nothing when it is not a cursor `encode_task_cursor`
/// could have produced for a task (sequence numbers start at 1).
[[nodiscard]] inline std::optional<std::uint64_t> decode_task_cursor(
    std::string_view cursor) noexcept {
  if (cursor.size() != 17 || cursor[0] != 't') return std::nullopt;
  std::uint64_t seq = 0;
  for (const char c : cursor.substr(1)) {
    std::uint64_t v = 0;
    if (c >= '0' && c <= '9') {
      v = static_cast<std::uint64_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      v = static_cast<std::uint64_t>(c - 'a' + 10);
    } else {
      return std::nullopt;
    }
    seq = (seq << 4U) | v;
  }
  if (seq == 0) return std::nullopt;
  return seq;
}

/// The error for a cursor the store did not issue.
[[nodiscard]] inline error bad_task_cursor() {
  return error{errc::invalid_params, "task store: invalid cursor"};
}

/// The `tasks/result` payload of a task failed by `fail_unfinished`: a JSON-RPC error.
[[nodiscard]] inline json::object unfinished_payload(std::string_view message) {
  json::object err;
  err["code"] = static_cast<int>(errc::internal_error);
  err["message"] = message;
  json::object out;
  out["error"] = std::move(err);
  return out;
}

}  // namespace mcp::detail
