// Internal: the state of one running tools/call, shared by the pipeline, the handler's
// tool_context/responder and the session that owns the request. It is the request's record in
// the peer core (an `inbound_request`), so cancellation stops it and a duplicate id is refused
// without a second allocation.
#pragma once

#include <mcp/pipeline.hpp>
#include <mcp/tool.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <variant>
#include <vector>

#include "peer.hpp"
#include "tools.hpp"

namespace mcp::detail {

class server_session_impl;

class call_state final : public inbound_request {
 public:
  call_state(std::weak_ptr<server_session_impl> session, std::shared_ptr<call_sink> sink,
             jsonrpc::request_id id, std::shared_ptr<const tool_entry> entry, json::object args,
             json::object meta, std::shared_ptr<const principal> who)
      : inbound_request(std::move(id)),
        session_(std::move(session)),
        sink_(std::move(sink)),
        entry_(std::move(entry)),
        args_(std::move(args)),
        meta_(std::move(meta)),
        who_(std::move(who)) {
    if (const auto* t = meta_.if_contains("progressToken")) {
      if (t->is_string() || t->is_int64() || t->is_uint64()) progress_token_ = *t;
    }
  }

  [[nodiscard]] const std::string& tool() const noexcept { return entry_->spec.name; }
  [[nodiscard]] const tool_entry& entry() const noexcept { return *entry_; }
  [[nodiscard]] const json::object& arguments() const noexcept { return args_.get_object(); }
  /// The arguments as a value (an object), for the validator without a copy.
  [[nodiscard]] const json::value& arguments_value() const noexcept { return args_; }
  [[nodiscard]] const json::object& meta() const noexcept { return meta_; }
  [[nodiscard]] const principal& caller() const noexcept { return *who_; }
  [[nodiscard]] bool run_inline() const noexcept { return entry_->spec.run_inline; }
  [[nodiscard]] std::shared_ptr<server_session_impl> session() const { return session_.lock(); }
  [[nodiscard]] bool done() const noexcept { return done_.load(std::memory_order_acquire); }

  void add_filter(std::function<void(call_tool_result&)> f) {
    std::lock_guard lock(mu_);
    filters_.push_back(std::move(f));
  }

  /// Completes the call once (later calls are ignored): the result filters run in reverse
  /// order, then the sink gets the outcome.
  void complete(std::variant<call_tool_result, error> outcome) {
    if (done_.exchange(true, std::memory_order_acq_rel)) return;
    std::vector<std::function<void(call_tool_result&)>> filters;
    {
      std::lock_guard lock(mu_);
      filters.swap(filters_);
    }
    if (auto* r = std::get_if<call_tool_result>(&outcome)) {
      for (auto it = filters.rbegin(); it != filters.rend(); ++it) (*it)(*r);
    }
    sink_->deliver(*this, std::move(outcome));
  }

  /// Progress: the notification's params, or nothing when it must be dropped (no token, the
  /// call ended, or the value does not increase).
  std::optional<json::object> next_progress(double value, std::optional<double> total,
                                            std::string_view message) {
    if (!progress_token_ || done()) return std::nullopt;
    std::lock_guard lock(mu_);
    if (has_progress_ && value <= last_progress_) return std::nullopt;
    has_progress_ = true;
    last_progress_ = value;
    json::object p;
    p["progressToken"] = *progress_token_;
    p["progress"] = value;
    if (total) p["total"] = *total;
    if (!message.empty()) p["message"] = message;
    return p;
  }

 private:
  std::weak_ptr<server_session_impl> session_;
  std::shared_ptr<call_sink> sink_;
  std::shared_ptr<const tool_entry> entry_;
  json::value args_;  ///< always an object
  json::object meta_;
  std::shared_ptr<const principal> who_;
  std::optional<json::value> progress_token_;
  std::atomic<bool> done_{false};
  std::mutex mu_;
  std::vector<std::function<void(call_tool_result&)>> filters_;
  bool has_progress_ = false;
  double last_progress_ = 0;
};

}  // namespace mcp::detail
