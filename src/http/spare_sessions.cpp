// Spare sessions: a request served by a session of its own (2026-07-28, or any request to a
// stateless server) leaves it, once answered, to the next request of the same revision from the
// same TCP connection, when the server is of this process and nothing of the request is left in
// it (src/session_reuse.hpp). A keep-alive client then costs no session per request. The
// connection keeps it in a slot of its own (`spare_slot`): taken and kept with no lock and no
// search. A request that comes with no slot (the handler driven directly) has its spare kept in
// a short list the handler guards.
#include <atomic>
#include <iterator>

#include "http/handler.hpp"
#include "session_reuse.hpp"

namespace mcp::http_detail {

namespace {
/// Spare sessions kept at most in the handler's list (one per client connection that sent such a
/// request lately; the oldest goes first).
constexpr std::size_t max_spares = 16;
/// Connections keeping a spare in their own slot at most; beyond, a connection keeps none (its
/// requests each open a session). An idle session is a few KiB.
constexpr std::size_t max_slots = 1024;
}  // namespace

std::shared_ptr<server_session> session_source::open_session(std::shared_ptr<connection> conn,
                                                             session_options&& opts) const {
  if (srv != nullptr) return srv->open_session(std::move(conn), std::move(opts));
  return open(std::move(conn), std::move(opts));
}

spare_slot::~spare_slot() {
  if (session) session->close();
  if (counted) counted->fetch_sub(1, std::memory_order_relaxed);
}

request_handler::spare_session request_handler::new_spare(const http_request& req,
                                                          std::string_view version) {
  if (req.slot != nullptr) return spare_session{.version = std::string(version), .slot = req.slot};
  return spare_session{.address = std::string(req.peer_address),
                       .port = req.peer_port,
                       .version = std::string(version)};
}

std::optional<request_handler::spare_session> request_handler::take_spare(
    const http_request& req, std::string_view version) {
  if (auto* slot = req.slot; slot != nullptr) {
    if (!slot->session || slot->version != version) return std::nullopt;
    // The revision stays in the slot (`version` empty: the slot's), the rest is taken.
    return spare_session{.conn = std::move(slot->conn),
                         .session = std::move(slot->session),
                         .record = std::move(slot->record),
                         .slot = slot};
  }
  const auto address = req.peer_address;
  const auto port = req.peer_port;
  std::lock_guard lock(spares_mu_);
  for (auto it = spares_.rbegin(); it != spares_.rend(); ++it) {
    if (it->port == port && it->address == address && it->version == version) {
      auto out = std::move(*it);
      spares_.erase(std::next(it).base());
      return out;
    }
  }
  return std::nullopt;
}

void request_handler::keep_or_close(spare_session&& s) {
  // Kept when nothing else holds the session (a task the call became, a request still
  // running) and it is idle; the fence orders what the last other holder did before it let go.
  const bool alone = s.session.use_count() == 1;
  std::atomic_thread_fence(std::memory_order_acquire);
  if (source_.srv == nullptr || !alone || s.conn->busy() || !detail::session_reusable(*s.session)) {
    s.session->close();
    return;
  }
  if (auto* slot = s.slot; slot != nullptr) {
    if (!slot->counted) {
      if (slots_->fetch_add(1, std::memory_order_relaxed) >= max_slots) {
        slots_->fetch_sub(1, std::memory_order_relaxed);
        s.session->close();
        return;
      }
      slot->counted = slots_;
    }
    // A session the slot still kept (of another revision) ends.
    auto dropped = std::exchange(slot->session, std::move(s.session));
    if (!s.version.empty()) slot->version = std::move(s.version);
    slot->conn = std::move(s.conn);
    slot->record = std::move(s.record);
    if (dropped) dropped->close();
    return;
  }
  std::shared_ptr<server_session> dropped;
  {
    std::lock_guard lock(spares_mu_);
    if (spares_.size() == max_spares) {
      dropped = std::move(spares_.front().session);
      spares_.erase(spares_.begin());
    }
    spares_.push_back(std::move(s));
  }
  if (dropped) dropped->close();
}

bool request_handler::open_stateless(const http_request& req, const principal& who,
                                     std::string_view serves, post_target& t) {
  if (source_.srv == nullptr) return false;
  t.spare = take_spare(req, serves);
  if (!t.spare) {
    t.spare.emplace(new_spare(req, serves));
    return false;
  }
  detail::reuse_session(*t.spare->session, principal(who), task_owner(who, "anonymous"));
  t.conn = t.spare->conn;
  t.session = t.spare->session;
  return true;
}

void request_handler::end_stateless(post_target& t) {
  if (!t.spare) {
    t.session->close();
    return;
  }
  t.spare->conn = std::move(t.conn);
  t.spare->session = std::move(t.session);
  keep_or_close(std::move(*t.spare));
}

}  // namespace mcp::http_detail
