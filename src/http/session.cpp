#include "http/session.hpp"

#include "detail/random.hpp"

namespace mcp::http_detail {

// ---- route_table ----

route_table::stream_ptr* route_table::find(const jsonrpc::request_id& k) {
  if (!many_.empty()) {
    auto it = many_.find(k);
    return it == many_.end() ? nullptr : &it->second;
  }
  for (auto& e : few_) {
    if (e.first == k) return &e.second;
  }
  return nullptr;
}

void route_table::emplace(const jsonrpc::request_id& k, stream_ptr s) {
  if (many_.empty() && few_.size() < few_max) {
    few_.emplace_back(k, std::move(s));
    return;
  }
  for (auto& e : few_) many_.emplace(std::move(e.first), std::move(e.second));
  few_.clear();
  many_.emplace(k, std::move(s));
}

void route_table::erase(const jsonrpc::request_id& k) {
  if (!many_.empty()) {
    many_.erase(k);
    return;
  }
  for (auto it = few_.begin(); it != few_.end(); ++it) {
    if (it->first == k) {
      few_.erase(it);
      return;
    }
  }
}

// ---- routing_connection ----

void routing_connection::send(std::string message, const send_context& ctx) {
  std::shared_ptr<response_stream> target;
  bool forward = false;
  {
    std::lock_guard lock(mu_);
    if (closed_) return;
    if (ctx.related_request != nullptr) {
      auto* s = by_request_.find(*ctx.related_request);
      if (s == nullptr) return;  // not ours (answered already): drop
      if (ctx.is_final_response) {
        target = std::move(*s);
        by_request_.erase(*ctx.related_request);
      } else {
        target = *s;
      }
    } else {
      // No GET stream: standalone messages are dropped (spec allows), unless another process
      // of a shared service may hold it (messages every process sends stay here).
      target = standalone_;
      forward = !target && elsewhere_ && !ctx.everywhere;
    }
  }
  if (target) {
    target->push(std::move(message), ctx.is_final_response, ctx.is_result);
  } else if (forward) {
    elsewhere_(std::move(message));
  }
}

bool routing_connection::deliver_standalone(std::string message) {
  std::shared_ptr<response_stream> target;
  {
    std::lock_guard lock(mu_);
    if (closed_) return false;
    target = standalone_;
  }
  if (!target) return false;
  target->push(std::move(message), false);
  return true;
}

void routing_connection::close() {
  std::vector<std::shared_ptr<response_stream>> streams;
  {
    std::lock_guard lock(mu_);
    if (closed_) return;
    closed_ = true;
    by_request_.for_each([&streams](const auto& s) { streams.push_back(s); });
    by_request_.clear();
    if (standalone_) streams.push_back(std::move(standalone_));
  }
  for (auto& s : streams) s->finish();
}

bool routing_connection::close_request_stream(const jsonrpc::request_id& request) {
  std::shared_ptr<response_stream> target;
  {
    std::lock_guard lock(mu_);
    auto* s = by_request_.find(request);
    if (closed_ || s == nullptr) return false;
    target = *s;
  }
  return target->request_disconnect();
}

bool routing_connection::register_requests(std::span<const jsonrpc::request_id> keys,
                                           const std::shared_ptr<response_stream>& s) {
  std::lock_guard lock(mu_);
  if (closed_) return false;
  for (const auto& k : keys) {
    if (by_request_.contains(k)) return false;
  }
  for (const auto& k : keys) by_request_.emplace(k, s);
  return true;
}

bool routing_connection::delivers_unrelated() const {
  std::lock_guard lock(mu_);
  if (closed_) return false;
  return standalone_ != nullptr || (elsewhere_ && held_elsewhere_.load(std::memory_order_acquire));
}

bool routing_connection::holds_standalone() const {
  std::lock_guard lock(mu_);
  return !closed_ && standalone_ != nullptr;
}

void routing_connection::held_elsewhere(std::string_view node) {
  std::lock_guard lock(mu_);
  holder_ = node;
  held_elsewhere_.store(true, std::memory_order_release);
}

void routing_connection::released_elsewhere(std::string_view node) {
  std::lock_guard lock(mu_);
  if (holder_ != node) return;  // another process announced its stream since
  holder_.clear();
  held_elsewhere_.store(false, std::memory_order_release);
}

bool routing_connection::end_detached_standalone(std::chrono::steady_clock::time_point now,
                                                 std::chrono::milliseconds window) {
  std::shared_ptr<response_stream> ended;
  {
    std::lock_guard lock(mu_);
    if (closed_ || !standalone_) return false;
    if (standalone_->attached()) {
      standalone_gone_since_.reset();
      return false;
    }
    if (!standalone_gone_since_) standalone_gone_since_ = now;
    if (now - *standalone_gone_since_ < window) return false;
    ended = std::exchange(standalone_, nullptr);
    standalone_gone_since_.reset();
  }
  ended->finish();
  return true;
}

bool routing_connection::set_standalone(const std::shared_ptr<response_stream>& s) {
  std::shared_ptr<response_stream> old;
  {
    std::lock_guard lock(mu_);
    if (closed_) return false;
    if (standalone_ && standalone_->attached()) return false;
    old = std::exchange(standalone_, s);
    standalone_gone_since_.reset();
  }
  if (old) old->finish();
  return true;
}

std::shared_ptr<response_stream> routing_connection::find_stream(std::uint64_t number) const {
  std::lock_guard lock(mu_);
  if (standalone_ && standalone_->number() == number) return standalone_;
  std::shared_ptr<response_stream> found;
  by_request_.for_each([&](const auto& s) {
    if (!found && s->number() == number) found = s;
  });
  return found;
}

bool routing_connection::has_attached_stream() const {
  std::lock_guard lock(mu_);
  if (standalone_ && standalone_->attached()) return true;
  bool attached = false;
  by_request_.for_each([&attached](const auto& s) { attached = attached || s->attached(); });
  return attached;
}

void routing_connection::forget_request(const jsonrpc::request_id& request) {
  std::shared_ptr<response_stream> target;
  {
    std::lock_guard lock(mu_);
    auto* s = by_request_.find(request);
    if (s == nullptr) return;
    target = std::move(*s);
    by_request_.erase(request);
  }
  target->settle_unanswered();
}

bool routing_connection::closed() const { return closed_.load(std::memory_order_acquire); }

bool routing_connection::busy() const {
  std::lock_guard lock(mu_);
  return !by_request_.empty();
}

// ---- http_session ----

namespace {
std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

void http_session::touch() {
  // Written only when it changed: every request of the session reads it, on any I/O thread.
  const auto now = now_ms();
  if (last_used_ms.load(std::memory_order_relaxed) != now) {
    last_used_ms.store(now, std::memory_order_relaxed);
  }
}

// ---- session_table ----

session_table::session_table(std::size_t max_sessions, std::chrono::milliseconds idle_timeout,
                             std::shared_ptr<event_store> store,
                             std::shared_ptr<shared_state> shared)
    : max_(max_sessions),
      shared_(shared != nullptr),
      idle_(idle_timeout),
      store_(std::move(store)) {}

std::string session_table::new_id() { return detail::random_hex(16); }

bool session_table::add(const std::shared_ptr<http_session>& s) {
  std::lock_guard lock(mu_);
  if (sessions_.size() >= max_) return false;
  s->touch();
  sessions_.emplace(s->id, s);
  return true;
}

std::shared_ptr<http_session> session_table::add_or_find(const std::shared_ptr<http_session>& s) {
  std::lock_guard lock(mu_);
  if (auto it = sessions_.find(s->id); it != sessions_.end()) return it->second;
  if (sessions_.size() >= max_) return nullptr;
  s->touch();
  sessions_.emplace(s->id, s);
  return s;
}

std::shared_ptr<http_session> session_table::find(std::string_view id) const {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : it->second;
}

bool session_table::end(const std::string& id, bool erase) {
  std::shared_ptr<http_session> s;
  {
    std::lock_guard lock(mu_);
    auto it = sessions_.find(id);
    if (it == sessions_.end()) return false;
    s = std::move(it->second);
    sessions_.erase(it);
  }
  close_session(s, erase);
  return true;
}

void session_table::on_stream_released(std::chrono::milliseconds window,
                                       std::function<void(const std::string&)> released) {
  stream_window_ = window;
  released_ = std::move(released);
}

void session_table::expire() {
  const auto limit = now_ms() - idle_.count();
  const auto now = std::chrono::steady_clock::now();
  std::vector<std::shared_ptr<http_session>> ended;
  std::vector<std::string> released;
  {
    std::lock_guard lock(mu_);
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      auto& s = it->second;
      // A GET stream whose client went away and did not come back within the window is no
      // longer where the others should send the session's messages.
      if (released_ && s->conn->end_detached_standalone(now, stream_window_)) {
        released.push_back(s->id);
      }
      const bool idle = s->last_used_ms.load(std::memory_order_relaxed) < limit &&
                        !s->conn->busy() && !s->conn->has_attached_stream();
      if (idle || s->conn->closed()) {  // closed: it ended on its own (a proxy's upstream)
        ended.push_back(std::move(s));
        it = sessions_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& s : ended) close_session(s, !shared_);
  for (const auto& id : released) released_(id);
}

void session_table::clear() {
  decltype(sessions_) all;
  {
    std::lock_guard lock(mu_);
    all.swap(sessions_);
  }
  for (auto& [id, s] : all) close_session(s, !shared_);
}

std::size_t session_table::size() const {
  std::lock_guard lock(mu_);
  return sessions_.size();
}

void session_table::close_session(const std::shared_ptr<http_session>& s, bool erase) {
  const bool held = released_ && s->conn->holds_standalone();
  s->session->close();  // closes the routing connection, which ends its streams
  s->conn->close();
  if (store_ && erase) store_->erase_session(s->id);
  if (held) released_(s->id);
}

}  // namespace mcp::http_detail
