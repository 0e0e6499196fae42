// Internal: what a server shares with its sessions: options, the executor, the call pipeline,
// the features and their method router, the live sessions, and the debounced list_changed
// notifications. Assembled once in the constructor (features register their methods there).
#pragma once

#include <mcp/executor.hpp>
#include <mcp/server.hpp>

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "catalog.hpp"
#include "detail/plain_step.hpp"
#include "detail/round_state.hpp"
#include "features.hpp"

namespace mcp::detail {

class tools_feature;
class resources_feature;
class prompts_feature;
class tasks_feature;
class listen_feature;

class server_core : public std::enable_shared_from_this<server_core> {
 public:
  explicit server_core(server_options o);
  ~server_core();
  server_core(const server_core&) = delete;
  server_core& operator=(const server_core&) = delete;

  server_options opts;
  /// The server's Implementation object for 2026-07-28 results' `_meta`, as a value and as the
  /// `"io.modelcontextprotocol/serverInfo":{...}` member text.
  json::value server_info_2026;
  std::string server_info_meta_2026;
  /// Seals and opens the state of 2026-07-28 input rounds (detail/round_state.hpp).
  round_sealer sealer;
  std::shared_ptr<executor> exec;
  method_router router;
  /// In the order their capabilities are declared.
  std::vector<std::shared_ptr<const feature>> features;
  std::shared_ptr<tools_feature> tools;
  std::shared_ptr<resources_feature> resources;
  std::shared_ptr<prompts_feature> prompts;
  std::shared_ptr<tasks_feature> tasks;
  std::shared_ptr<listen_feature> listens;

  /// The interceptor chain, replaced (never mutated) on `use`, as its plan: the interceptors
  /// and whether they have a straight path (detail/plain_step.hpp), decided once per `use`.
  [[nodiscard]] std::shared_ptr<const pipeline_plan> pipeline() const;
  void add_interceptor(std::shared_ptr<call_interceptor> i);

  void add_session(const std::shared_ptr<server_session_impl>& s);
  void remove_session(const server_session_impl* s);
  /// The sessions still alive.
  [[nodiscard]] std::vector<std::shared_ptr<server_session_impl>> live_sessions() const;

  /// Registers a list that announces changes with `method`; returns its index.
  std::size_t add_list(std::string method);
  /// Counts a change of list `k` and schedules a debounced notification to every initialized
  /// session that has not been told of it.
  void list_changed(std::size_t k);
  /// This process serves (`server::start_serving`: a transport started, or a session was
  /// opened): the list changes made from now on are runtime changes, published to the other
  /// processes of a service; the registrations made before, which every process makes alike,
  /// are not. Thread-safe; read first, so that each session opened writes nothing shared.
  void start_serving() noexcept {
    if (!serving_.load(std::memory_order_relaxed)) serving_.store(true);
  }
  [[nodiscard]] std::size_t list_count() const noexcept { return list_count_; }
  [[nodiscard]] std::uint64_t list_generation(std::size_t k) const noexcept {
    return generations_[k].load();
  }
  // Between the processes of a service (`opts.shared`; server_relay.cpp).
  /// Starts hearing the changes other processes publish (once, after construction).
  void listen_shared();
  /// Sends `notifications/resources/updated` for `uri` to this process's subscribers (2025-11-25
  /// sessions and 2026-07-28 listen streams) and, with `opts.shared`, has the other processes
  /// send it to theirs.
  void resource_updated(std::string_view uri);

  /// Claims a per-session state slot (server_session_impl::state).
  std::size_t add_state_slot();

  /// The capabilities `declare` computes for a session of era `e` whose callers do (or do not)
  /// share a task owner: what features offer depends on nothing else, and changes only with a
  /// list (a tool, resource or prompt added or removed), so it is kept until one changes. A
  /// stateless server opens a session per request; this spares each one building the object.
  /// Thread-safe.
  std::shared_ptr<const json::object> capabilities(era e, bool shared_owner,
                                                   const std::function<json::object()>& declare);

  /// Adds `e` under `key` to `cat`, a catalog announced on list `k`. Throws
  /// std::invalid_argument ("<what> "<key>" is already registered") when the key is taken.
  template <class Entry>
  void add_listed(catalog<Entry>& cat, std::size_t k, const std::string& key,
                  std::shared_ptr<const Entry> e, std::string_view what) {
    if (!cat.add(key, std::move(e))) {
      throw std::invalid_argument(std::string(what) + " \"" + key + "\" is already registered");
    }
    list_changed(k);
  }
  /// Removes `key` from `cat`, announcing it on list `k`; false when there was none.
  template <class Entry>
  bool remove_listed(catalog<Entry>& cat, std::size_t k, std::string_view key) {
    if (!cat.remove(key)) return false;
    list_changed(k);
    return true;
  }

 private:
  void notify_list(std::size_t k);
  /// Tells this process's listeners that list `k` changed (counted as a change of it).
  void tell_list(std::size_t k);
  /// Publishes a change (`kind` 'l' a list's method, 'u' a resource's URI) to the other
  /// processes of the service; nothing without `opts.shared`.
  void publish_change(char kind, std::string_view what);
  /// A change another process published.
  void on_shared_change(std::string_view message);

  mutable std::mutex mu_;
  std::shared_ptr<const pipeline_plan> plan_;
  std::vector<std::weak_ptr<server_session_impl>> sessions_;
  std::array<std::string, max_lists> list_methods_;
  std::array<std::atomic<std::uint64_t>, max_lists> generations_{};
  std::array<bool, max_lists> pending_{};
  std::array<bool, max_lists> publish_{};  ///< a change made while serving awaits its debounce
  std::atomic<bool> serving_{false};       ///< `start_serving` was called
  std::size_t list_count_ = 0;
  std::size_t state_slots_ = 0;

  struct declared {
    std::uint64_t stamp = 0;
    std::shared_ptr<const json::object> caps;
  };
  std::atomic<std::uint64_t> changes_{0};  ///< every list change counts here too
  std::mutex caps_mu_;
  std::array<declared, 16> caps_{};  ///< by era × shared owner

  std::string node_;                  ///< this process's name among a service's (random)
  std::shared_ptr<void> shared_sub_;  ///< the changes other processes publish; last: dropped first
};

/// A random first request number for a session of a service sharing state (see
/// `peer::number_requests_from`): below 2^52, so a JavaScript client keeps it exact.
[[nodiscard]] std::int64_t shared_request_base();

}  // namespace mcp::detail
