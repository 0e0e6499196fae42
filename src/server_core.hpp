// Internal: what a server shares with its sessions.
#pragma once

#include <mcp/server.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "catalog.hpp"
#include "tool_registry.hpp"

namespace mcp::detail {

class session_impl;

/// The lists other than tools that announce changes.
enum class list_kind { resources, prompts };

class server_core : public std::enable_shared_from_this<server_core> {
 public:
  explicit server_core(server_options o);

  server_options opts;
  tool_registry tools;
  std::shared_ptr<executor> exec;

  /// The interceptor chain, replaced (never mutated) on `use`.
  [[nodiscard]] std::shared_ptr<const std::vector<std::shared_ptr<call_interceptor>>> pipeline()
      const;
  void add_interceptor(std::shared_ptr<call_interceptor> i);

  void add_session(const std::shared_ptr<session_impl>& s);
  void remove_session(const session_impl* s);
  /// Schedules a debounced notifications/tools/list_changed to every initialized session.
  void tools_changed();
  /// Counts tool-set changes; a session is notified only of changes after it initialized.
  std::atomic<std::uint64_t> tools_generation{0};

  /// Resources, resource templates and prompts (see catalog.hpp).
  resource_catalogs catalogs;
  /// Counts changes of resources/templates and of prompts, like tools_generation.
  std::atomic<std::uint64_t> resources_generation{0};
  std::atomic<std::uint64_t> prompts_generation{0};
  /// Schedules a debounced notifications/{resources,prompts}/list_changed (server_catalogs.cpp).
  void list_changed(list_kind k);
  /// The sessions still alive.
  [[nodiscard]] std::vector<std::shared_ptr<session_impl>> live_sessions() const;

 private:
  void notify_tools_changed();

  mutable std::mutex mu_;
  std::shared_ptr<const std::vector<std::shared_ptr<call_interceptor>>> pipeline_;
  std::vector<std::weak_ptr<session_impl>> sessions_;
  bool notify_pending_ = false;
  bool resources_pending_ = false;
  bool prompts_pending_ = false;
};

/// Creates a session of `core` writing to `conn`, registered with the core.
std::shared_ptr<server_session> make_session(std::shared_ptr<server_core> core,
                                             std::shared_ptr<connection> conn,
                                             session_options opts);
/// Sends notifications/tools/list_changed to the session if it initialized before change
/// number `generation`.
void session_notify_tools_changed(session_impl& s, std::uint64_t generation);
/// Sends notifications/{resources,prompts}/list_changed like the above.
void session_notify_list_changed(session_impl& s, list_kind k, std::uint64_t generation);
/// Sends notifications/resources/updated if the session subscribed to `uri`.
void session_notify_resource_updated(session_impl& s, const std::string& uri);

}  // namespace mcp::detail
