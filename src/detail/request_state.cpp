#include "detail/request_state.hpp"

#include <mcp/executor.hpp>

#include <array>
#include <cstring>

#include "detail/call_scan.hpp"
#include "detail/input_round.hpp"
#include "server_core.hpp"
#include "server_session.hpp"

namespace mcp::detail {

request_state::request_state(std::weak_ptr<server_session_impl> session, jsonrpc::request_id id,
                             json::object&& meta, std::shared_ptr<const principal> who,
                             request_origin origin)
    : inbound_request(std::move(id)),
      session_(std::move(session)),
      who_(std::move(who)),
      meta_(json::pilfer(meta)),
      origin_(std::move(origin)) {
  if (!origin_.client_caps) origin_.client_caps = no_capabilities();
  if (const auto* t = meta_.if_contains("progressToken")) {
    if (t->is_string() || t->is_int64() || t->is_uint64()) progress_token_ = *t;
  }
}

request_state::~request_state() { forget_meta_text(); }

void request_state::forget_meta_text() noexcept {
  if (meta_text_.empty()) return;
  meta_store_->deallocate(const_cast<char*>(meta_text_.data()), meta_text_.size(), 1);
  meta_text_ = {};
}

void request_state::keep_meta_text(std::string_view text, const json::storage_ptr& store) {
  forget_meta_text();
  if (!text.empty()) {
    auto* copy = static_cast<char*>(store->allocate(text.size(), 1));
    std::memcpy(copy, text.data(), text.size());
    meta_store_ = store;
    meta_text_ = std::string_view(copy, text.size());
  }
  meta_read_.store(false, std::memory_order_release);
}

const json::object& request_state::read_meta() const noexcept {
  std::lock_guard lock(meta_mu_);
  if (!meta_read_.load(std::memory_order_relaxed)) {
    try {
      meta_ = meta_object(meta_text_);
    } catch (...) {  // out of memory: read as empty rather than end the process
      meta_.clear();
    }
    meta_read_.store(true, std::memory_order_release);
  }
  return meta_;
}

std::shared_ptr<input_round> request_state::round() {
  std::lock_guard lock(round_mu_);
  if (!round_ && deferred_round_ != round_method::none) {
    round_ = std::make_shared<input_round>(std::map<std::string, json::object, std::less<>>{},
                                           std::set<std::string, std::less<>>{}, std::nullopt,
                                           client_caps());
    round_->principal = caller().key();
    static constexpr std::array<std::string_view, 4> names = {"", "tools/call", "prompts/get",
                                                              "resources/read"};
    round_->method = std::string(names[static_cast<std::size_t>(deferred_round_)]);
    deferred_round_ = round_method::none;
  }
  return round_;
}

std::shared_ptr<input_round> request_state::opened_round() const {
  std::lock_guard lock(round_mu_);
  return round_;
}

void request_state::set_round(std::shared_ptr<input_round> r) {
  std::lock_guard lock(round_mu_);
  round_ = std::move(r);
  deferred_round_ = round_method::none;
}

void request_state::defer_round(round_method method) {
  std::lock_guard lock(round_mu_);
  round_ = nullptr;
  deferred_round_ = method;
}

bool request_state::log_enabled(log_level level) const {
  if (traits(origin_.revision).per_request_meta) {
    return origin_.level && level >= *origin_.level;
  }
  auto s = session();
  return s && s->log_enabled(level);
}

executor* request_state::exec() const {
  auto s = session();
  return s ? s->core().exec.get() : nullptr;
}

result<json::object> request_state::ask_client(std::string_view method, json::object params,
                                               std::chrono::milliseconds timeout,
                                               std::string_view /*key*/) {
  auto s = session();
  if (!s) return error{errc::connection_closed, "the session has ended"};
  const auto rel = related();
  return s->request_client(method, std::move(params), timeout, rel ? &*rel : nullptr,
                           stop_source().get_token());
}

void request_state::ask_client_async(std::string_view method, json::object params,
                                     std::chrono::milliseconds timeout, std::string_view /*key*/,
                                     unique_function<void(result<json::object>)> done) {
  auto s = session();
  if (!s) return done(error{errc::connection_closed, "the session has ended"});
  const auto rel = related();
  s->request_client_async(method, std::move(params), timeout, rel ? &*rel : nullptr,
                          stop_source().get_token(), std::move(done));
}

std::optional<json::object> request_state::next_progress(double value, std::optional<double> total,
                                                         std::string_view message) {
  if (!progress_token_ || finished()) return std::nullopt;
  std::lock_guard lock(progress_mu_);
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

std::optional<std::string> missing_client_capability(std::string_view method,
                                                     const json::object& params,
                                                     const json::object& caps) {
  auto declared = [&](std::string_view cap) { return caps.contains(cap); };
  auto sub = [&](std::string_view cap, std::string_view key) {
    const auto* c = caps.if_contains(cap);
    return c != nullptr && c->is_object() && c->get_object().contains(key);
  };
  if (method == "sampling/createMessage") {
    if (!declared("sampling")) return "sampling";
    if ((params.contains("tools") || params.contains("toolChoice")) && !sub("sampling", "tools")) {
      return "sampling.tools";
    }
  } else if (method == "elicitation/create") {
    if (!declared("elicitation")) return "elicitation";
    const auto* mode = params.if_contains("mode");
    const bool url = mode && mode->is_string() && mode->get_string() == "url";
    if (url && !sub("elicitation", "url")) return "elicitation.url";
    // `elicitation: {}` means form mode; a client that lists modes must list "form".
    if (!url) {
      const auto* e = caps.if_contains("elicitation");
      if (e->is_object() && !e->get_object().empty() && !sub("elicitation", "form")) {
        return "elicitation.form";
      }
    }
  } else if (method == "roots/list") {
    if (!declared("roots")) return "roots";
  }
  return std::nullopt;
}

}  // namespace mcp::detail
