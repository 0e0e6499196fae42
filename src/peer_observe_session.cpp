// The peer's session observation (see peer.hpp and mcp/observe.hpp): the session's span from its
// start (after initialize) to the close, which also ends the spans of the requests still open.
// Everything here runs only when an observer is set.
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include "peer.hpp"

namespace mcp::detail {

void peer::observe_session_start() {
  if (!obs_) return;
  {
    std::lock_guard lock(mu_);
    if (session_observed_ || closed_.load()) return;
    session_observed_ = true;
  }
  // A client learns its session id from the initialize answer: read it again now (once: the
  // first string stays alive for readers that loaded it).
  auto facts = conn_->facts();
  if (!facts.session_id.empty()) {
    started_session_id_ = std::make_unique<const std::string>(std::move(facts.session_id));
    session_id_.store(started_session_id_.get(), std::memory_order_release);
  }
  auto s = obs_->on_session_start({.side = side_,
                                   .protocol_version = observed_version(),
                                   .transport = transport_,
                                   .network_protocol_name = facts_.protocol_name,
                                   .network_protocol_version = facts_.protocol_version,
                                   .peer_address = facts_.peer_address,
                                   .peer_port = facts_.peer_port});
  std::unique_lock lock(mu_);
  session_span_ = std::move(s);
  if (!closed_.load() || !session_span_) return;
  s = std::exchange(session_span_, {});  // closed meanwhile, after the close looked for it
  lock.unlock();
  obs_->on_session_end(s, {});
}

void peer::observe_close(
    std::unordered_map<jsonrpc::request_id, std::shared_ptr<inbound_request>>& in) {
  std::unordered_map<jsonrpc::request_id, observe::span> filed;
  observe::span session;
  {
    std::lock_guard lock(mu_);
    if (!filed_spans_.empty()) {
      filed.swap(filed_spans_);
      filed_.store(0, std::memory_order_release);
    }
    if (session_span_) {
      session = std::move(session_span_);
      session_span_.active = false;
    }
  }
  const observe::outcome closed{.status = observe::status::failed,
                                .error_type = "connection_closed"};
  // The records left `inbound_` with the close: their spans are this thread's now.
  for (auto& [id, r] : in) {
    if (r->span_) obs_->on_end(r->span_, closed);
  }
  for (auto& [id, span] : filed) obs_->on_end(span, closed);
  if (session) obs_->on_session_end(session, {});
}

}  // namespace mcp::detail
