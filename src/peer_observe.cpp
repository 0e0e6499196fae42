// The peer's observation (see peer.hpp and mcp/observe.hpp): the span of every request and
// notification it sends or receives, with the OpenTelemetry MCP conventions' attributes; trace
// context read from incoming `params._meta` and written into outgoing requests' `_meta`; the
// session's span. Everything here runs only when an observer is set.
#include <charconv>

#include "peer.hpp"

namespace mcp::detail {

namespace {

observe::network_transport transport_of(std::string_view name) noexcept {
  if (name == "pipe") return observe::network_transport::pipe;
  if (name == "tcp") return observe::network_transport::tcp;
  return observe::network_transport::unknown;
}

std::string_view string_member(const json::object& params, std::string_view key) noexcept {
  const auto* v = params.if_contains(key);
  return v != nullptr && v->is_string() ? std::string_view(v->get_string()) : std::string_view{};
}

const json::object* meta_of(const json::object& params) noexcept {
  const auto* m = params.if_contains("_meta");
  return m != nullptr && m->is_object() ? &m->get_object() : nullptr;
}

/// The method's target (the tool or prompt name) and resource URI, as the conventions name them.
void describe(observe::operation& op, std::string_view method, const json::object& params) {
  op.method = method;
  if (method == "tools/call" || method == "prompts/get") op.target = string_member(params, "name");
  if (method.starts_with("resources/") || method == "notifications/resources/updated") {
    op.resource_uri = string_member(params, "uri");
  }
}

/// How an answer written as text ended: encoders put `"error":{"code":` or `"result":` right
/// after the id, and a tools/call result's `isError` at its top level.
observe::outcome answer_outcome(std::string_view message, bool tool_call) {
  constexpr std::string_view error_key = R"("error":{"code":)";
  const auto e = message.find(error_key);
  const auto r = message.find(R"("result":)");
  if (e != std::string_view::npos && (r == std::string_view::npos || e < r)) {
    observe::outcome o{.status = observe::status::rpc_error};
    const auto* first = message.data() + e + error_key.size();
    (void)std::from_chars(first, message.data() + message.size(), o.code);
    return o;
  }
  if (tool_call && message.find(R"("isError":true)") != std::string_view::npos) {
    return {.status = observe::status::tool_error};
  }
  return {};
}

}  // namespace

void peer::set_observer(std::shared_ptr<observe::observer> o, observe::kind side) {
  obs_ = std::move(o);
  side_ = side;
  facts_ = conn_->facts();
  transport_ = transport_of(facts_.network_transport);
  session_id_ = std::make_shared<const std::string>(std::move(facts_.session_id));
}

observe::operation peer::base_operation(std::shared_ptr<const std::string>& sid) const {
  {
    std::lock_guard lock(mu_);
    sid = session_id_;
  }
  observe::operation op;
  op.protocol_version = observed_version();
  // The conventions record the session id up to 2025-11-25 (a 2026-07-28 request has none).
  if (sid && !op.protocol_version.starts_with("2026")) op.session_id = *sid;
  op.transport = transport_;
  op.network_protocol_name = facts_.protocol_name;
  op.network_protocol_version = facts_.protocol_version;
  op.peer_address = facts_.peer_address;
  op.peer_port = facts_.peer_port;
  return op;
}

void peer::observe_session_start() {
  if (!obs_) return;
  {
    std::lock_guard lock(mu_);
    if (session_observed_ || closed_.load()) return;
    session_observed_ = true;
  }
  // A client learns its session id from the initialize answer: read it again now.
  auto facts = conn_->facts();
  {
    std::lock_guard lock(mu_);
    session_id_ = std::make_shared<const std::string>(std::move(facts.session_id));
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
  s = std::move(session_span_);  // closed meanwhile, after the close looked for it
  lock.unlock();
  obs_->on_session_end(s, {});
}

observe::trace_context peer::trace_of(const jsonrpc::request_id& id) const {
  if (!obs_) return {};
  std::lock_guard lock(mu_);
  auto it = inbound_spans_.find(id);
  return it == inbound_spans_.end() ? observe::trace_context{} : it->second.context;
}

void peer::observe_request(const jsonrpc::request& r) {
  std::shared_ptr<const std::string> sid;
  auto op = base_operation(sid);
  op.side = observe::kind::server;  // received
  describe(op, r.method, r.params);
  const auto id_text = jsonrpc::to_string(r.id);
  op.request_id = id_text;
  op.remote = observe::extract(meta_of(r.params));
  auto span = obs_->on_start(op);
  if (!span) return;
  std::unique_lock lock(mu_);
  if (inbound_spans_.try_emplace(r.id, std::move(span)).second) return;
  lock.unlock();  // a duplicate id: it is refused (-32600); its own span ends now
  obs_->on_end(span, {.status = observe::status::rpc_error,
                      .code = static_cast<int>(errc::invalid_request)});
}

void peer::observe_notification(const jsonrpc::notification& n) {
  std::shared_ptr<const std::string> sid;
  auto op = base_operation(sid);
  op.side = observe::kind::server;  // received
  describe(op, n.method, n.params);
  op.remote = observe::extract(meta_of(n.params));
  auto span = obs_->on_start(op);
  if (span) obs_->on_end(span, {});
}

void peer::observe_answer(const jsonrpc::request_id& id, std::string_view message) {
  observe::span span;
  {
    std::lock_guard lock(mu_);
    auto it = inbound_spans_.find(id);
    if (it == inbound_spans_.end()) return;
    span = std::move(it->second);
    inbound_spans_.erase(it);
  }
  // Only tools/call spans carry a target that is a tool; prompts/get answers have no isError.
  obs_->on_end(span, answer_outcome(message, true));
}

void peer::observe_inbound_end(const jsonrpc::request_id& id, std::string_view why) {
  observe::span span;
  {
    std::lock_guard lock(mu_);
    auto it = inbound_spans_.find(id);
    if (it == inbound_spans_.end()) return;
    span = std::move(it->second);
    inbound_spans_.erase(it);
  }
  obs_->on_end(span, {.status = observe::status::failed, .error_type = why});
}

observe::span peer::parent_of(const jsonrpc::request_id* id) const {
  observe::span parent;  // a copy: the request's own span may end meanwhile
  if (id == nullptr) return parent;
  std::lock_guard lock(mu_);
  if (auto it = inbound_spans_.find(*id); it != inbound_spans_.end()) {
    parent.context = it->second.context;
    parent.baggage = it->second.baggage;
    parent.active = true;
  }
  return parent;
}

void peer::observe_sent(std::string& message, const jsonrpc::request_id* related) {
  // Notifications this side sends: `{"jsonrpc":"2.0","method":"...`, as the encoder writes them.
  constexpr std::string_view prefix = R"({"jsonrpc":"2.0","method":")";
  if (!std::string_view(message).starts_with(prefix)) return;  // an answer, or a batch
  const auto end = message.find('"', prefix.size());
  if (end == std::string::npos) return;
  std::shared_ptr<const std::string> sid;
  auto op = base_operation(sid);
  op.side = observe::kind::client;  // sent
  op.method = std::string_view(message).substr(prefix.size(), end - prefix.size());
  const auto parent = parent_of(related);
  if (parent) op.parent = &parent;
  auto span = obs_->on_start(op);
  if (!span) return;
  // The encoder writes `,"params":{` right after the method; a message that has a `_meta`
  // anywhere already is left as it is (no second member of that name).
  constexpr std::string_view params_key = R"(,"params":{)";
  if (span.context.valid() && message.compare(end + 1, params_key.size(), params_key) == 0 &&
      message.find(R"("_meta":)") == std::string::npos) {
    json::object meta;
    obs_->inject(span, meta);
    if (!meta.empty()) {
      const auto at = end + 1 + params_key.size();
      std::string member = R"("_meta":)" + to_json_string(meta);
      if (message[at] != '}') member += ',';
      message.insert(at, member);
    }
  }
  obs_->on_end(span, {});
}

observe::span peer::observe_outbound(std::string_view method, json::object& params,
                                     const jsonrpc::request_id* related, std::int64_t id) {
  std::shared_ptr<const std::string> sid;
  auto op = base_operation(sid);
  op.side = observe::kind::client;  // sent
  describe(op, method, params);
  const auto id_text = std::to_string(id);
  op.request_id = id_text;
  const auto parent = parent_of(related);  // the incoming request this one is made for
  if (parent) op.parent = &parent;
  auto span = obs_->on_start(op);
  if (span && span.context.valid()) {
    auto& meta = params["_meta"];
    if (!meta.is_object()) meta.emplace_object();
    obs_->inject(span, meta.get_object());
  }
  return span;
}

void peer::observe_outbound_end(outbound& o, const result<json::object>& r) {
  observe::outcome out;
  error e;  // `out.message` views it (result::error() answers a copy)
  if (r.has_error()) {
    e = r.error();
    if (e.is(errc::request_timeout)) {
      out = {.status = observe::status::failed, .error_type = "timeout"};
    } else if (e.is(errc::cancelled)) {
      out = {.status = observe::status::failed, .error_type = "cancelled"};
    } else if (e.is(errc::connection_closed)) {
      out = {.status = observe::status::failed, .error_type = "connection_closed"};
    } else {
      out = {.status = observe::status::rpc_error, .code = e.code, .message = e.message};
    }
  } else if (o.method == "tools/call") {
    const auto* is_error = r->if_contains("isError");
    if (is_error != nullptr && is_error->is_bool() && is_error->get_bool()) {
      out.status = observe::status::tool_error;
    }
  }
  obs_->on_end(o.span, out);
}

void peer::observe_close(std::unordered_map<std::int64_t, outbound>& out) {
  std::unordered_map<jsonrpc::request_id, observe::span> in;
  observe::span session;
  {
    std::lock_guard lock(mu_);
    in.swap(inbound_spans_);
    session = std::move(session_span_);
  }
  const observe::outcome closed{.status = observe::status::failed,
                                .error_type = "connection_closed"};
  for (auto& [id, span] : in) obs_->on_end(span, closed);
  for (auto& [id, o] : out) {
    if (o.span) obs_->on_end(o.span, closed);
  }
  if (session) obs_->on_session_end(session, {});
}

}  // namespace mcp::detail
