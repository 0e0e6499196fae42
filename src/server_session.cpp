// The server face of a session: lifecycle, routing, and the services features share.
#include "server_session.hpp"

#include "detail/random.hpp"
#include "server_core.hpp"
#include "wire.hpp"

namespace mcp::detail {

namespace {
/// A requestor key unique to one session, also across restarts of the process (a durable task
/// store must not hand an old session's tasks to a new one).
std::string own_task_owner() {
  static const std::string process = random_hex(8);
  static std::atomic<std::uint64_t> next{0};
  return "session:" + process + ":" + std::to_string(++next);
}
}  // namespace

server_session_impl::server_session_impl(std::shared_ptr<server_core> core,
                                         std::shared_ptr<connection> conn, session_options opts)
    : peer(std::move(conn), core->opts.limits),
      core_(std::move(core)),
      who_(std::make_shared<const principal>(std::move(opts.who))),
      task_owner_(opts.task_owner ? std::move(*opts.task_owner) : own_task_owner()),
      shared_task_owner_(opts.shared_task_owner),
      level_(core_->opts.default_log_level) {
  if (opts.assume_initialized) {
    stateless_ = true;
    for (std::size_t k = 0; k < core_->list_count(); ++k) {
      lists_seen_[k].store(core_->list_generation(k));
    }
    version_ = *opts.assume_initialized;
    era_ = era_of(version_);
    declared_ = declare_capabilities();
    initialized_.store(true);
  }
}

server_session_impl::~server_session_impl() { close(); }

void server_session_impl::close() {
  if (peer_closed()) return;
  close_peer();
  if (!stateless_) core_->remove_session(this);
}

std::string server_session_impl::protocol_version() const {
  return initialized_.load() ? version_ : std::string();
}

std::optional<std::string> server_session_impl::batch_refused() const {
  if (initialized_.load() && traits(era_).batches) return std::nullopt;
  return "Invalid Request: JSON-RPC batches are only accepted when protocol version 2025-03-26 "
         "was negotiated";
}

void server_session_impl::on_request(jsonrpc::request&& req) {
  if (req.method == "ping") return reply(req.id, json::object{});
  if (req.method == "initialize") return on_initialize(req);
  if (!initialized_.load()) {
    return reply_error(
        req.id, error{errc::invalid_request, "Server not initialized: send initialize first"});
  }
  const auto* m = core_->router.find(req.method);
  // A method of a feature this session was not offered (nothing registered) is unknown too.
  if (m == nullptr || (!m->capability.empty() && !declared_->contains(m->capability))) {
    return reply_error(req.id, error{errc::method_not_found, "Method not found: " + req.method});
  }
  m->handler(*this, std::move(req));
}

void server_session_impl::on_notification(jsonrpc::notification&& /*n*/) {
  // cancelled and progress are handled by the peer core; notifications/initialized and
  // roots/list_changed need no action; unknown notifications are ignored, never answered.
}

void server_session_impl::on_initialize(const jsonrpc::request& req) {
  const auto* ver = req.params.if_contains("protocolVersion");
  if (!ver || !ver->is_string()) {
    return reply_error(req.id,
                       error{errc::invalid_params, "initialize needs a string protocolVersion"});
  }
  const auto* caps = req.params.if_contains("capabilities");
  if (caps && !caps->is_object()) {
    return reply_error(req.id,
                       error{errc::invalid_params, "initialize: capabilities must be an object"});
  }
  // A version we speak is echoed; any other gets the latest as a counter-offer.
  const auto chosen = find_era(ver->get_string()).value_or(latest_era);
  json::object result;
  {
    std::lock_guard lock(init_mu_);
    if (initialized_.load()) {
      return reply_error(req.id,
                         error{errc::invalid_request, "Invalid Request: already initialized"});
    }
    era_ = chosen;
    version_ = std::string(traits(chosen).version);
    if (caps) client_caps_ = caps->get_object();
    declared_ = declare_capabilities();
    result = json::object{{"protocolVersion", version_},
                          {"capabilities", *declared_},
                          {"serverInfo", wire::implementation(core_->opts.info, era_)}};
    if (core_->opts.instructions) result["instructions"] = *core_->opts.instructions;
    for (std::size_t k = 0; k < core_->list_count(); ++k) {
      lists_seen_[k].store(core_->list_generation(k));
    }
    initialized_.store(true);
  }
  reply(req.id, result);
}

/// What each feature offers now, plus nothing else.
std::shared_ptr<const json::object> server_session_impl::declare_capabilities() const {
  return core_->capabilities(era_, shared_task_owner_, [this] {
    json::object caps;
    for (const auto& f : core_->features) {
      if (auto c = f->capability(*this)) caps[c->first] = std::move(c->second);
    }
    return caps;
  });
}

void server_session_impl::answer_later(
    jsonrpc::request&& req,
    std::function<result<json::value>(server_session_impl&, const jsonrpc::request&)> work) {
  auto in_flight = std::make_shared<inbound_request>(req.id);
  if (!track(in_flight)) return;
  core_->exec->post([self = self(), in_flight, req = std::move(req), work = std::move(work)] {
    if (in_flight->cancelled()) return;
    result<json::value> r = error{errc::internal_error, "no result"};
    try {
      r = work(*self, req);
    } catch (const std::exception& e) {
      r = error{errc::internal_error, req.method + " failed: " + e.what()};
    } catch (...) {
      r = error{errc::internal_error, req.method + " failed"};
    }
    if (!self->untrack(*in_flight)) return;  // cancelled meanwhile
    if (r) return self->reply(req.id, *r);
    self->reply_error(req.id, r.error());
  });
}

result<json::object> server_session_impl::request_client(std::string_view method,
                                                         json::object params,
                                                         std::chrono::milliseconds timeout,
                                                         const jsonrpc::request_id* related,
                                                         std::stop_token stop) {
  if (auto missing = missing_capability(method, params)) {
    return error{errc::not_supported, "the client did not declare the \"" + *missing +
                                          "\" capability needed for " + std::string(method)};
  }
  outbound_options o;
  o.timeout = timeout;
  o.related = related;
  return request(method, std::move(params), std::move(o), std::move(stop),
                 "the tool call was cancelled");
}

/// The capability a server-to-client request needs that the client did not declare.
std::optional<std::string> server_session_impl::missing_capability(
    std::string_view method, const json::object& params) const {
  auto declared = [&](std::string_view cap) { return client_caps_.contains(cap); };
  auto sub = [&](std::string_view cap, std::string_view key) {
    const auto* c = client_caps_.if_contains(cap);
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
    if (mode && mode->is_string() && mode->get_string() == "url" && !sub("elicitation", "url")) {
      return "elicitation.url";
    }
  } else if (method == "roots/list") {
    if (!declared("roots")) return "roots";
  }
  return std::nullopt;
}

void server_session_impl::notify_list_changed(std::size_t k, std::uint64_t generation,
                                              std::string_view method) {
  if (!initialized_.load() || peer_closed()) return;
  if (lists_seen_[k].exchange(generation) >= generation) return;
  send(jsonrpc::encode_notification(method));
}

std::shared_ptr<server_session> make_session(const std::shared_ptr<server_core>& core,
                                             std::shared_ptr<connection> conn,
                                             session_options opts) {
  // A stateless session lives for one request and can be told nothing later: the core does not
  // keep it among the sessions it notifies (that list and its lock stay off the request path).
  const bool notified = !opts.assume_initialized;
  auto s = std::make_shared<server_session_impl>(core, std::move(conn), std::move(opts));
  if (notified) core->add_session(s);
  return s;
}

}  // namespace mcp::detail
