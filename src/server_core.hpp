// Internal: what a server shares with its sessions.
#pragma once

#include <mcp/server.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "tool_registry.hpp"

namespace mcp::detail {

class session_impl;

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

 private:
  void notify_tools_changed();

  mutable std::mutex mu_;
  std::shared_ptr<const std::vector<std::shared_ptr<call_interceptor>>> pipeline_;
  std::vector<std::weak_ptr<session_impl>> sessions_;
  bool notify_pending_ = false;
};

/// Creates a session of `core` writing to `conn`, registered with the core.
std::shared_ptr<server_session> make_session(std::shared_ptr<server_core> core,
                                             std::shared_ptr<connection> conn,
                                             session_options opts);
/// Sends notifications/tools/list_changed to the session if it initialized before change
/// number `generation`.
void session_notify_tools_changed(session_impl& s, std::uint64_t generation);

}  // namespace mcp::detail
