// Streamable HTTP sessions kept in `server_options::shared` (mcp/shared_state.hpp): a session
// opened by one process is served by any other. Each process keeps a copy of the sessions it
// serves (the server session, its streams); the record in the shared state says what a new copy
// starts from, and whether the session still lives: every request of a session refreshes its
// record, and a session ended (DELETE) on one process is answered with 404 by all.
#include <mcp/shared_state.hpp>

#include <cerrno>

#include "http/handler.hpp"
#include <sys/random.h>

namespace mcp::http_detail {

void default_events(http_server_options& opts, const server* srv) {
  if (!opts.resumable || opts.stateless || opts.events) return;
  if (srv != nullptr && srv->options().shared) opts.events = srv->options().shared->events();
  if (!opts.events) opts.events = make_memory_event_store();
}

std::uint64_t shared_stream_base() {
  std::uint32_t r = 0;
  std::size_t got = 0;
  auto* p = reinterpret_cast<unsigned char*>(&r);
  while (got < sizeof r) {
    const auto n = ::getrandom(p + got, sizeof r - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // no randomness: the stream numbers only risk mixing events
    got += static_cast<std::size_t>(n);
  }
  // 2^32 bases, 2^20 streams each: two processes' numbers meet only by a rare chance.
  return std::uint64_t{r} << 20U;
}

bool request_handler::still_shared(const http_session& s) {
  auto alive = shared_->touch_session(s.id);
  return !alive || *alive;
}

std::shared_ptr<http_session> request_handler::resume_shared(std::string_view sid,
                                                             const http_request& req,
                                                             const principal& who) {
  // Ids are 32 hex digits (session_table::new_id): anything else is no session of ours.
  if (sid.size() != 32 || sid.find_first_not_of("0123456789abcdef") != std::string_view::npos) {
    return nullptr;
  }
  auto record = shared_->load_session(sid);
  if (!record || !*record) return nullptr;
  // The session parses the record (within the server's limits) and opens only for the caller
  // that opened it: else it stays uninitialized, and is no session of this caller's.
  auto hs = std::make_shared<http_session>();
  hs->id = std::string(sid);
  hs->subject = who.key();
  hs->conn =
      std::make_shared<routing_connection>(hs->id, std::string(req.peer_address), req.peer_port);
  hs->conn->number_from(shared_stream_base());
  hs->session = source_.open_session(
      hs->conn, session_options{.who = who,
                                .task_owner = task_owner(who, "session:" + hs->id),
                                .resume = std::move(**record)});
  if (!hs->session) return nullptr;
  if (!hs->session->initialized()) {
    hs->session->close();
    return nullptr;
  }
  auto kept = sessions_.add_or_find(hs);
  if (kept != hs) hs->session->close();  // another request made this process's copy first
  return kept;
}

}  // namespace mcp::http_detail
