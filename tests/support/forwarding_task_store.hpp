// Test support: a task store that hands every call to another store (`inner`). A test derives
// from it and overrides only what it watches or changes (counts reads, hides pushes, slows a
// read), the rest reaching the real store as it is.
#pragma once

#include <mcp/task_store.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace mcp::test {

class forwarding_task_store : public mcp::task_store {
 public:
  explicit forwarding_task_store(std::shared_ptr<mcp::task_store> inner)
      : inner_(std::move(inner)) {}

  mcp::result<void> create(const mcp::task_record& t) override { return inner_->create(t); }
  mcp::result<std::optional<mcp::task_record>> get(std::string_view id,
                                                   std::string_view owner) override {
    return inner_->get(id, owner);
  }
  mcp::result<std::optional<mcp::task_record>> update(std::string_view id, std::string_view owner,
                                                      const mcp::task_update& u) override {
    return inner_->update(id, owner, u);
  }
  mcp::result<mcp::task_page> list(std::string_view owner, std::string_view cursor,
                                   std::size_t limit) override {
    return inner_->list(owner, cursor, limit);
  }
  mcp::result<std::size_t> purge_expired(std::chrono::system_clock::time_point now) override {
    return inner_->purge_expired(now);
  }
  mcp::result<std::size_t> fail_unfinished(std::string_view message) override {
    return inner_->fail_unfinished(message);
  }
  mcp::result<std::vector<mcp::task_record>> unfinished() override { return inner_->unfinished(); }
  std::shared_ptr<void> watch(std::function<void(std::string_view)> on_change) override {
    return inner_->watch(std::move(on_change));
  }
  [[nodiscard]] bool shared_between_processes() const noexcept override {
    return inner_->shared_between_processes();
  }

 protected:
  /// The store every call reaches.
  [[nodiscard]] const std::shared_ptr<mcp::task_store>& inner() const noexcept { return inner_; }

 private:
  std::shared_ptr<mcp::task_store> inner_;
};

}  // namespace mcp::test
