// Streamable HTTP sessions kept in `server_options::shared` (mcp/shared_state.hpp): a session
// opened by one process is served by any other. Each process keeps a copy of the sessions it
// serves (the server session, its streams); the record in the shared state says what a new copy
// starts from, and whether the session still lives: every request of a session refreshes its
// record, and a session ended (DELETE) on one process is answered with 404 by all.
//
// Between the processes, on the shared state's topic "http": a client's answer (or
// cancellation) POSTed to one process is forwarded to all, and the one that made the request
// (its request numbers start at a random point: shared_request_base) resumes its handler; a
// standalone message of a session whose GET stream this process does not hold is forwarded,
// and the process holding it writes it there. Which process holds a GET stream is told, not
// stored: the holder announces it when the stream opens ('g'), and a process opening its copy
// of a session asks ('w'), which the holder answers with 'g'; from then on the copy's standalone
// messages (a task's requests to the client among them) are forwarded, not kept for a
// tasks/result to carry. The holder says 'r' when its stream stops counting: the session's
// copy there ended, or no client listened to the stream for five `sse_retry` (at least 2 s);
// the copies told so by the process they heard 'g' from keep their messages for a tasks/result
// again, and a process that hears 'g' ends its own stream nobody listens to. A message is
// "<kind><node><session><payload>": 'a' (the client's message), 'm' (for the GET stream), 'g',
// 'w' or 'r' (no payload), the sender's 16-character name (a process ignores its own), the
// 32-digit session id, the JSON-RPC text.
#include <mcp/shared_state.hpp>

#include <algorithm>
#include <chrono>
#include <system_error>
#include <variant>

#include "detail/random.hpp"
#include "http/handler.hpp"

namespace mcp::http_detail {

void default_events(http_server_options& opts, const server* srv) {
  if (!opts.resumable || opts.stateless || opts.events) return;
  if (srv != nullptr && srv->options().shared) opts.events = srv->options().shared->events();
  if (!opts.events) opts.events = make_memory_event_store();
}

std::uint64_t shared_stream_base() {
  std::uint32_t r = 0;
  try {
    detail::random_bytes(&r, sizeof r);
  } catch (const std::system_error&) {
    // No randomness: the stream numbers only risk mixing events.
  }
  // 2^32 bases, 2^20 streams each: two processes' numbers meet only by a rare chance.
  return std::uint64_t{r} << 20U;
}

namespace {

constexpr std::string_view relay_topic = "http";
constexpr std::size_t node_size = 16;
constexpr std::size_t sid_size = 32;

std::string relay_frame(char kind, std::string_view node, std::string_view sid,
                        std::string_view payload) {
  std::string m;
  m.reserve(1 + node.size() + sid.size() + payload.size());
  m.append(1, kind).append(node).append(sid).append(payload);
  return m;
}

}  // namespace

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
  forward_from(*hs->conn, hs->id);
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
  if (kept != hs) {
    hs->session->close();  // another request made this process's copy first
  } else if (relay_sub_) {
    // Who holds the GET stream? Its holder answers 'g' (a stream opened later announces itself).
    (void)shared_->publish(relay_topic, relay_frame('w', node_, hs->id, {}));
  }
  return kept;
}

void request_handler::listen_relay() {
  static constexpr char hex[] = "0123456789abcdef";
  std::uint64_t bits = shared_stream_base() ^ (shared_stream_base() >> 20U);
  node_.assign(node_size, '0');
  for (auto& c : node_) {
    c = hex[bits & 15U];
    bits >>= 4U;
  }
  relay_sub_ = shared_->listen(relay_topic, [this](std::string_view m) { on_relayed(m); });
  if (!relay_sub_) return;
  // A client that lost its GET stream comes back after `sse_retry`; one not back after a few
  // of those is gone, and its stream no longer counts as held.
  const auto window =
      std::max<std::chrono::milliseconds>(5 * opts_.sse_retry, std::chrono::seconds(2));
  sessions_.on_stream_released(window, [shared = shared_, node = node_](const std::string& sid) {
    (void)shared->publish(relay_topic, relay_frame('r', node, sid, {}));
  });
}

void request_handler::forward_from(routing_connection& conn, const std::string& sid) {
  if (!relay_sub_) return;  // the shared state carries no messages
  conn.forward_elsewhere([shared = shared_, node = node_, sid](std::string message) {
    // Redis unreachable: the message is lost, as one for a GET stream nobody holds.
    (void)shared->publish(relay_topic, relay_frame('m', node, sid, message));
  });
}

void request_handler::forward_answers(const post_body& body, const http_request& req,
                                      const std::string& sid) {
  if (!relay_sub_) return;
  bool theirs = false;
  for (const auto& m : body.messages) {
    if (std::holds_alternative<jsonrpc::response>(m)) theirs = true;
    if (const auto* n = std::get_if<jsonrpc::notification>(&m)) {
      if (jsonrpc::cancelled_request(n->method, n->params)) theirs = true;
    }
  }
  if (theirs) (void)shared_->publish(relay_topic, relay_frame('a', node_, sid, req.body));
}

void request_handler::announce_stream(std::string_view sid) {
  if (!relay_sub_) return;
  (void)shared_->publish(relay_topic, relay_frame('g', node_, sid, {}));
}

void request_handler::on_relayed(std::string_view message) {
  if (message.size() < 1 + node_size + sid_size) return;
  if (message.substr(1, node_size) == node_) return;  // sent by this process
  const char kind = message[0];
  const auto sid = message.substr(1 + node_size, sid_size);
  const auto payload = message.substr(1 + node_size + sid_size);
  auto hs = sessions_.find(sid);  // no copy here: nothing of the session to resume or write
  if (!hs || hs->conn->closed()) return;
  const auto from = message.substr(1, node_size);
  if (kind == 'g') {
    // The client listens elsewhere now: a stream here it no longer listens to is its past.
    (void)hs->conn->end_detached_standalone(std::chrono::steady_clock::now(), {});
    return hs->conn->held_elsewhere(from);
  }
  if (kind == 'r') return hs->conn->released_elsewhere(from);
  if (kind == 'w') {
    if (hs->conn->holds_standalone()) announce_stream(sid);
    return;
  }
  if (payload.empty()) return;
  if (kind == 'm') {
    (void)hs->conn->deliver_standalone(std::string(payload));
    return;
  }
  if (kind != 'a') return;
  // An answer to a request this process did not make is ignored by the session; a cancelled
  // request that runs here gets no answer, so its stream stops waiting for one.
  auto parsed = parse_json(payload, source_.limits);
  if (!parsed) return;
  auto decoded = jsonrpc::decode(std::move(*parsed));
  if (!decoded) return;
  std::optional<jsonrpc::request_id> cancelled;
  if (const auto* n = std::get_if<jsonrpc::notification>(&*decoded)) {
    cancelled = jsonrpc::cancelled_request(n->method, n->params);
  }
  hs->session->receive(std::move(*decoded));
  if (cancelled) hs->conn->forget_request(*cancelled);
}

}  // namespace mcp::http_detail
