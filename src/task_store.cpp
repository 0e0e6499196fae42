// The task status machine and the in-memory task store: a mutex-guarded map of tasks by id,
// and per owner an index of the owner's tasks by creation sequence number (what cursors name).
#include <mcp/json.hpp>
#include <mcp/task_store.hpp>

#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "detail/string_hash.hpp"
#include "detail/task_store_common.hpp"

namespace mcp {

std::string_view to_string(task_status s) noexcept {
  switch (s) {
    case task_status::working:
      return "working";
    case task_status::input_required:
      return "input_required";
    case task_status::completed:
      return "completed";
    case task_status::failed:
      return "failed";
    case task_status::cancelled:
      return "cancelled";
  }
  return "working";
}

std::optional<task_status> task_status_from_string(std::string_view s) noexcept {
  for (const task_status t :
       {task_status::working, task_status::input_required, task_status::completed,
        task_status::failed, task_status::cancelled}) {
    if (to_string(t) == s) return t;
  }
  return std::nullopt;
}

bool is_allowed_transition(task_status from, task_status to) noexcept {
  if (is_terminal(from)) return false;
  if (is_terminal(to)) return true;
  // working <-> input_required, and input_required to itself: the questions it waits on change
  // (2026-07-28 tasks ask several at once and are answered one by one).
  return from != to || to == task_status::input_required;
}

namespace {

error internal(const std::exception& e) {
  return error{errc::internal_error, std::string("task store: ") + e.what()};
}

class memory_task_store final : public task_store {
 public:
  result<void> create(const task_record& task) override try {
    const std::lock_guard lock(mu_);
    auto [it, added] = tasks_.try_emplace(task.id);
    if (!added) return error{errc::invalid_params, "task store: a task with this id exists"};
    try {
      entry& e = it->second;
      e.seq = next_seq_;
      // Field by field: `rerun` is kept apart (only `unfinished` returns it).
      e.rec.id = task.id;
      e.rec.owner = task.owner;
      e.rec.status = task.status;
      e.rec.status_message = task.status_message;
      e.rec.created_at = detail::floor_ms(task.created_at);
      e.rec.last_updated_at = detail::floor_ms(task.last_updated_at);
      e.rec.ttl = task.ttl;
      e.rec.poll_interval = task.poll_interval;
      e.rec.method = task.method;
      e.rec.payload = task.payload;
      e.rec.input_request = task.input_request;
      e.rec.input_response = task.input_response;
      // A terminal task never runs again. Kept as JSON text, as the SQLite store keeps it: one
      // allocation to write and free per task instead of a tree, read only by `unfinished`.
      if (!is_terminal(task.status) && !task.rerun.empty()) {
        e.rerun.reserve(512);  // most records: one allocation
        append_json(e.rerun, task.rerun);
      }
      by_owner_[task.owner].emplace(e.seq, task.id);
    } catch (...) {
      tasks_.erase(it);
      throw;
    }
    ++next_seq_;
    return {};
  } catch (const std::exception& e) {
    return internal(e);
  }

  result<std::optional<task_record>> get(std::string_view id, std::string_view owner) override try {
    const std::lock_guard lock(mu_);
    const entry* e = find_live(id, owner, std::chrono::system_clock::now());
    if (e == nullptr) return std::optional<task_record>{};
    return std::optional<task_record>{e->rec};
  } catch (const std::exception& e) {
    return internal(e);
  }

  result<std::optional<task_record>> update(std::string_view id, std::string_view owner,
                                            const task_update& u) override {
    // Copied first, so that a failed allocation leaves the task as it was.
    std::optional<task_update> copy;
    try {
      copy.emplace(u);
    } catch (const std::exception& e) {
      return internal(e);
    }
    return update_moved(id, owner, std::move(*copy), false);
  }

  /// `update` taking what `u` holds (its payload, typically a tool's result, is not copied);
  /// `omit_payload`: when `u` is applied, the task returned has an empty payload (`u`'s).
  result<std::optional<task_record>> update_moved(std::string_view id, std::string_view owner,
                                                  task_update&& u, bool omit_payload) try {
    const auto now = std::chrono::system_clock::now();
    const std::lock_guard lock(mu_);
    entry* e = find_live(id, owner, now);
    if (e == nullptr) return std::optional<task_record>{};
    if (is_allowed_transition(e->rec.status, u.status)) {  // moves: nothing here can fail
      e->rec.status = u.status;
      e->rec.status_message = std::move(u.status_message);
      e->rec.payload = std::move(u.payload);
      e->rec.input_request = std::move(u.input_request);
      e->rec.input_response = std::move(u.input_response);
      e->rec.last_updated_at = detail::floor_ms(now);
      if (is_terminal(u.status)) std::string().swap(e->rerun);  // only `unfinished` returns it
      if (omit_payload) {  // copied without it: set aside (a move), then put back
        json::object payload = std::move(e->rec.payload);
        std::optional<task_record> out;
        try {
          out.emplace(e->rec);
        } catch (...) {
          e->rec.payload = std::move(payload);
          throw;
        }
        e->rec.payload = std::move(payload);
        return out;
      }
    }
    return std::optional<task_record>{e->rec};
  } catch (const std::exception& e) {
    return internal(e);
  }

  result<task_page> list(std::string_view owner, std::string_view cursor,
                         std::size_t limit) override try {
    const auto now = std::chrono::system_clock::now();
    const std::lock_guard lock(mu_);
    std::uint64_t after = 0;
    if (!cursor.empty()) {
      const auto seq = detail::decode_task_cursor(cursor);
      if (!seq || *seq >= next_seq_) return detail::bad_task_cursor();
      after = *seq;
    }
    if (limit == 0) limit = 1;
    task_page page;
    const auto owned = by_owner_.find(owner);
    if (owned == by_owner_.end()) return page;
    std::vector<std::string> expired;
    std::uint64_t last = 0;
    bool more = false;
    for (auto it = owned->second.upper_bound(after); it != owned->second.end(); ++it) {
      const entry& e = tasks_.find(it->second)->second;
      if (e.rec.expired(now)) {
        expired.push_back(it->second);
        continue;
      }
      if (page.tasks.size() == limit) {
        more = true;
        break;
      }
      page.tasks.push_back(e.rec);
      last = it->first;
    }
    for (const auto& id : expired) erase(id);
    if (more) page.next_cursor = detail::encode_task_cursor(last);
    return page;
  } catch (const std::exception& e) {
    return internal(e);
  }

  result<std::size_t> purge_expired(std::chrono::system_clock::time_point now) override try {
    const std::lock_guard lock(mu_);
    std::vector<std::string> expired;
    for (const auto& [id, e] : tasks_) {
      if (e.rec.expired(now)) expired.push_back(id);
    }
    for (const auto& id : expired) erase(id);
    return expired.size();
  } catch (const std::exception& e) {
    return internal(e);
  }

  result<std::size_t> fail_unfinished(std::string_view message) override try {
    const auto now = detail::floor_ms(std::chrono::system_clock::now());
    const json::object payload = detail::unfinished_payload(message);
    const std::string text(message);
    const std::lock_guard lock(mu_);
    std::size_t n = 0;
    for (auto& [id, e] : tasks_) {
      if (is_terminal(e.rec.status)) continue;
      e.rec.status_message = text;
      e.rec.payload = payload;
      e.rec.input_request = {};
      e.rec.input_response = {};
      e.rec.status = task_status::failed;
      e.rec.last_updated_at = now;
      std::string().swap(e.rerun);
      ++n;
    }
    return n;
  } catch (const std::exception& e) {
    return internal(e);
  }

  result<std::vector<task_record>> unfinished() override try {
    const auto now = std::chrono::system_clock::now();
    const std::lock_guard lock(mu_);
    std::map<std::uint64_t, const entry*> by_seq;
    for (const auto& [id, e] : tasks_) {
      if (!is_terminal(e.rec.status) && !e.rec.expired(now)) by_seq.emplace(e.seq, &e);
    }
    std::vector<task_record> out;
    out.reserve(by_seq.size());
    for (const auto& [seq, e] : by_seq) {
      out.push_back(e->rec);
      if (e->rerun.empty()) continue;
      // Text this store wrote from a JSON object: it parses (no size limit; depth as SQLite's).
      auto v = parse_json(e->rerun, json_limits{std::numeric_limits<std::size_t>::max(), 1024});
      if (v && v->is_object()) out.back().rerun = std::move(v->get_object());
    }
    return out;
  } catch (const std::exception& e) {
    return internal(e);
  }

 private:
  struct entry {
    task_record rec;    ///< without `rerun`
    std::string rerun;  ///< the record's `rerun` as JSON text (empty: none); `unfinished` only
    std::uint64_t seq = 0;
  };

  /// The unexpired task `id` of `owner`; an expired one is erased. Call with `mu_` held.
  entry* find_live(std::string_view id, std::string_view owner,
                   std::chrono::system_clock::time_point now) {
    const auto it = tasks_.find(id);
    if (it == tasks_.end() || it->second.rec.owner != owner) return nullptr;
    if (it->second.rec.expired(now)) {
      erase(it->first);
      return nullptr;
    }
    return &it->second;
  }

  /// Removes task `id` from both indexes. Call with `mu_` held.
  void erase(const std::string& id) noexcept {
    const auto it = tasks_.find(id);
    if (it == tasks_.end()) return;
    const auto owned = by_owner_.find(it->second.rec.owner);
    if (owned != by_owner_.end()) {
      owned->second.erase(it->second.seq);
      if (owned->second.empty()) by_owner_.erase(owned);
    }
    tasks_.erase(it);
  }

  std::mutex mu_;
  std::unordered_map<std::string, entry, detail::string_hash, std::equal_to<>> tasks_;
  /// owner -> (sequence number -> id), in creation order.
  std::map<std::string, std::map<std::uint64_t, std::string>, std::less<>> by_owner_;
  std::uint64_t next_seq_ = 1;
};

}  // namespace

std::shared_ptr<task_store> make_memory_task_store() {
  return std::make_shared<memory_task_store>();
}

bool detail::is_memory_task_store(const task_store& store) noexcept {
  return dynamic_cast<const memory_task_store*>(&store) != nullptr;
}

result<std::optional<task_record>> detail::update_task(task_store& store, std::string_view id,
                                                       std::string_view owner, task_update&& u) {
  if (auto* m = dynamic_cast<memory_task_store*>(&store)) {
    return m->update_moved(id, owner, std::move(u), true);
  }
  return store.update(id, owner, u);
}

}  // namespace mcp
