// Internal: the registries of resources, resource templates and prompts. Each is a `catalog`:
// entries keyed by a unique string, kept in registration order, listed in pages with the same
// opaque cursors as tools (a cursor names the last sequence number returned, so pages stay
// consistent while entries come and go). Entries are immutable once added and shared with
// requests in flight. Thread-safe.
#pragma once

#include <mcp/prompt.hpp>
#include <mcp/resource.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <shared_mutex>
#include <string>
#include <unordered_map>

#include "tool_registry.hpp"

namespace mcp::detail {

template <class Entry>
class catalog {
 public:
  catalog() {
    std::random_device rd;
    epoch_ = std::to_string(rd()) + std::to_string(rd());
  }

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
    auto it = by_key_.find(std::string(key));
    if (it == by_key_.end()) return false;
    by_seq_.erase(it->second);
    by_key_.erase(it);
    return true;
  }
  [[nodiscard]] std::shared_ptr<const Entry> find(std::string_view key) const {
    std::shared_lock lock(mu_);
    auto it = by_key_.find(std::string(key));
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

  /// One page: the wire form `to_wire(entry)` of up to `page_size` entries after the cursor.
  /// Errors: errc::invalid_params for an invalid or stale cursor.
  template <class F>
  [[nodiscard]] result<std::pair<json::array, std::optional<std::string>>> page(
      const std::optional<std::string>& cursor, std::size_t page_size, F&& to_wire) const {
    std::uint64_t after = 0;
    if (cursor) {
      auto seq = read_cursor(*cursor, epoch_);
      if (!seq) return error{errc::invalid_params, "Invalid cursor"};
      after = *seq;
    }
    std::pair<json::array, std::optional<std::string>> out;
    std::shared_lock lock(mu_);
    std::uint64_t last = after;
    for (auto it = by_seq_.upper_bound(after); it != by_seq_.end(); ++it) {
      if (out.first.size() == std::max<std::size_t>(page_size, 1)) {
        out.second = make_cursor(epoch_, last);
        break;
      }
      out.first.emplace_back(to_wire(*it->second));
      last = it->first;
    }
    return out;
  }

 private:
  mutable std::shared_mutex mu_;
  std::map<std::uint64_t, std::shared_ptr<const Entry>> by_seq_;
  std::unordered_map<std::string, std::uint64_t> by_key_;
  std::uint64_t next_seq_ = 1;
  std::string epoch_;
};

struct resource_entry {
  resource_spec spec;
  resource_handler handler;
};

struct template_entry {
  resource_template_spec spec;
  uri_template tmpl;
  resource_handler handler;
};

struct prompt_entry {
  prompt_spec spec;
  prompt_handler handler;
};

/// The wire forms, for the negotiated era.
[[nodiscard]] json::object resource_wire(const resource_spec& s, era e);
[[nodiscard]] json::object template_wire(const resource_template_spec& s, era e);
[[nodiscard]] json::object prompt_wire(const prompt_spec& s, era e);
/// `Icon[]` and `Annotations` as JSON.
[[nodiscard]] json::array icons_to_json(const std::vector<icon>& icons);
[[nodiscard]] json::object annotations_to_json(const content_annotations& a);

/// Everything resources, templates and prompts share in a server.
struct resource_catalogs {
  catalog<resource_entry> resources;
  catalog<template_entry> templates;  ///< keyed by the template text
  catalog<prompt_entry> prompts;
};

/// The optional string `cursor` of a list request. Errors: -32602 when it is not a string.
[[nodiscard]] result<std::optional<std::string>> cursor_param(const json::object& params);

/// Request handlers: the result object of each method, or the JSON-RPC error to send.
[[nodiscard]] result<json::object> resources_list(const resource_catalogs& c,
                                                  const json::object& params, era e,
                                                  std::size_t page_size);
[[nodiscard]] result<json::object> templates_list(const resource_catalogs& c,
                                                  const json::object& params, era e,
                                                  std::size_t page_size);
[[nodiscard]] result<json::object> resources_read(const resource_catalogs& c,
                                                  const json::object& params, const principal& who);
[[nodiscard]] result<json::object> prompts_list(const resource_catalogs& c,
                                                const json::object& params, era e,
                                                std::size_t page_size);
/// Messages whose content block the session's era does not know are left out.
[[nodiscard]] result<json::object> prompts_get(const resource_catalogs& c,
                                               const json::object& params, const principal& who,
                                               era e);
[[nodiscard]] result<json::object> complete(const resource_catalogs& c, const json::object& params);

/// Runs a completion handler and shapes its answer as `{"completion":{...}}` (at most 100
/// values; `hasMore` then set).
[[nodiscard]] json::object completion_wire(const completion_handler& h,
                                           const completion_request& r);

}  // namespace mcp::detail
