// Internal: subscriptions/listen (2026-07-28), the one way that revision's clients hear of
// changes: list changes, updates of the resources they name, and (with the tasks extension) the
// tasks they name. A listen is a request that stays open: the server acknowledges it at once
// (`notifications/subscriptions/acknowledged`, with the notifications it honours), then sends
// each matching notification related to it, every one tagged with the subscription's id (the
// listen request's id) in `_meta`. It ends when the client cancels it (stdio:
// notifications/cancelled; HTTP: closing the stream) or its session ends.
#pragma once

#include <mcp/json.hpp>
#include <mcp/jsonrpc.hpp>
#include <mcp/task_store.hpp>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "features.hpp"

namespace mcp::detail {

class server_core;
class server_session_impl;
class subscription;

class listen_feature final : public feature {
 public:
  /// Registers subscriptions/listen (2026-07-28) with `core`, which owns this feature.
  explicit listen_feature(server_core& core);
  ~listen_feature() override;

  /// Nothing to declare: the lists' `listChanged` and the resources' `subscribe` say what a
  /// listen may ask for.
  [[nodiscard]] std::optional<std::pair<std::string, json::object>> capability(
      const server_session_impl& s) const override;

  /// List `k` changed (`method`: its notifications/.../list_changed).
  void list_changed(std::size_t k, std::string_view method);
  /// Resource `uri` changed.
  void resource_updated(std::string_view uri);
  /// Task `t` changed: its DetailedTask goes to the subscriptions that name it and whose
  /// session's caller owns it (built only when there is one, from `full()` when given: the
  /// task with the payload `t` lacks).
  void task_changed(const task_record& t, const std::function<task_record()>& full = nullptr);
  /// The owners of the open subscriptions naming task `id` (empty: nobody here listens for it).
  /// Thread-safe.
  [[nodiscard]] std::vector<std::string> task_listeners(std::string_view id);

 private:
  void listen(server_session_impl& s, jsonrpc::request&& req);
  /// The live subscriptions (the ended ones are dropped on the way).
  std::vector<std::shared_ptr<subscription>> live();

  server_core& core_;
  std::mutex mu_;
  std::vector<std::weak_ptr<subscription>> subs_;
};

}  // namespace mcp::detail
