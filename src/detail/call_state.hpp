// Internal: the state of one running tools/call, shared by the pipeline, the handler's
// tool_context/responder and the session that owns the request.
#pragma once

#include <mcp/pipeline.hpp>
#include <mcp/tool.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
#include <variant>
#include <vector>

namespace mcp::detail {

class call_state;

/// What a call needs from the session that runs it. Implemented by the server session.
class call_host {
 public:
  virtual ~call_host() = default;
  /// Sends a notification that belongs to the call (progress, log).
  virtual void send_related(const call_state& call, std::string message) = 0;
  /// Asks the transport to close the call's answer stream for the client to resume it.
  virtual bool close_stream(const call_state& call) = 0;
  /// Sends a request to the client on behalf of the call and waits for the answer.
  virtual result<json::object> request_for(const call_state& call, std::string_view method,
                                           json::object params,
                                           std::chrono::milliseconds timeout) = 0;
  /// Delivers the final outcome (after the result filters ran).
  virtual void finish_call(call_state& call, std::variant<call_tool_result, error> outcome) = 0;
  /// True when `level` passes the level the client set.
  [[nodiscard]] virtual bool log_enabled(log_level level) const = 0;
  [[nodiscard]] virtual const json::object& client_capabilities() const = 0;
  [[nodiscard]] virtual const std::string& negotiated_version() const = 0;
};

class call_state {
 public:
  call_state(std::weak_ptr<call_host> host, jsonrpc::request_id id, std::string tool,
             json::object args, json::object meta, std::shared_ptr<const principal> who,
             bool run_inline)
      : host_(std::move(host)),
        id_(std::move(id)),
        tool_(std::move(tool)),
        args_(std::move(args)),
        meta_(std::move(meta)),
        who_(std::move(who)),
        inline_(run_inline) {
    if (const auto* t = meta_.if_contains("progressToken")) {
      if (t->is_string() || t->is_int64() || t->is_uint64()) progress_token_ = *t;
    }
  }

  [[nodiscard]] const jsonrpc::request_id& id() const noexcept { return id_; }
  [[nodiscard]] const std::string& tool() const noexcept { return tool_; }
  [[nodiscard]] const json::object& arguments() const noexcept { return args_.get_object(); }
  /// The arguments as a value (an object), for the validator without a copy.
  [[nodiscard]] const json::value& arguments_value() const noexcept { return args_; }
  [[nodiscard]] const json::object& meta() const noexcept { return meta_; }
  [[nodiscard]] const principal& caller() const noexcept { return *who_; }
  [[nodiscard]] bool run_inline() const noexcept { return inline_; }
  [[nodiscard]] std::shared_ptr<call_host> host() const { return host_.lock(); }
  std::stop_source& stop_source() noexcept { return stop_; }
  [[nodiscard]] bool done() const noexcept { return done_.load(std::memory_order_acquire); }

  /// Set when the client cancelled: the outcome is then dropped, no response is sent.
  std::atomic<bool> cancelled_by_client{false};

  void add_filter(std::function<void(call_tool_result&)> f) {
    std::lock_guard lock(mu_);
    filters_.push_back(std::move(f));
  }

  /// Completes the call once; later calls are ignored.
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
    if (auto h = host_.lock()) h->finish_call(*this, std::move(outcome));
  }

  /// Progress: returns the notification to send, or nothing when it must be dropped.
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
  std::weak_ptr<call_host> host_;
  jsonrpc::request_id id_;
  std::string tool_;
  json::value args_;  ///< always an object
  json::object meta_;
  std::shared_ptr<const principal> who_;
  bool inline_;
  std::optional<json::value> progress_token_;
  std::stop_source stop_;
  std::atomic<bool> done_{false};
  std::mutex mu_;
  std::vector<std::function<void(call_tool_result&)>> filters_;
  bool has_progress_ = false;
  double last_progress_ = 0;
};

}  // namespace mcp::detail
