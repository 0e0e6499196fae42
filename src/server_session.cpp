// The server face of a session: lifecycle, routing, and the services features share.
#include "server_session.hpp"

#include "detail/random.hpp"
#include "rounds.hpp"
#include "server_core.hpp"
#include "session_reuse.hpp"
#include "tasks.hpp"
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

const std::shared_ptr<const json::object>& no_capabilities() {
  static const auto none = std::make_shared<const json::object>();
  return none;
}

server_session_impl::server_session_impl(std::shared_ptr<server_core> core,
                                         std::shared_ptr<connection> conn, session_options&& opts)
    : peer(std::move(conn), core->opts.limits),
      core_(std::move(core)),
      who_(std::make_shared<const principal>(std::move(opts.who))),
      task_owner_(opts.task_owner ? std::move(*opts.task_owner) : own_task_owner()),
      shared_task_owner_(opts.shared_task_owner),
      level_(core_->opts.default_log_level) {
  if (core_->opts.observer) set_observer(core_->opts.observer, observe::kind::server);
  if (opts.assume_initialized) {
    stateless_ = true;
    for (std::size_t k = 0; k < core_->list_count(); ++k) {
      lists_seen_[k].store(core_->list_generation(k));
    }
    version_ = *opts.assume_initialized;
    era_ = era_of(version_);
    declared_ = declare_capabilities();
    initialized_.store(true);
  } else if (opts.resume) {
    resume_from(*opts.resume);
  }
  if (core_->opts.shared && !stateless_) number_requests_from(shared_request_base());
}

server_session_impl::~server_session_impl() { close(); }

void server_session_impl::close() {
  if (peer_closed()) return;
  std::shared_ptr<server_session_impl> twin;
  {
    std::lock_guard lock(state_mu_);
    twin = std::move(twin_);
  }
  if (twin) twin->close();
  close_peer();
  if (!stateless_) core_->remove_session(this);
}

std::vector<jsonrpc::request_id> server_session_impl::finish_input(
    std::chrono::steady_clock::time_point until, std::chrono::milliseconds settle) {
  std::shared_ptr<server_session_impl> twin;
  {
    std::lock_guard lock(state_mu_);
    twin = twin_;  // none comes later: nothing more is read
  }
  end_input();
  if (twin) twin->end_input();
  auto left = await_answers(until, settle);
  if (twin) {
    for (auto& id : twin->await_answers(until, settle)) left.push_back(std::move(id));
  }
  return left;
}

bool server_session_impl::reusable() {
  // Over HTTP a 2026-07-28 session sends no requests of its own (questions go in input
  // rounds) and takes no batches: with no request in flight it is idle. A handler's context
  // still held elsewhere (a thread the tool started) could send a late log or progress message
  // of its request, which must never reach the next request's caller: not reused then.
  if (!stateless_ || peer_closed() || !inbound_released()) return false;  // made keepable too
  std::lock_guard lock(state_mu_);
  if (twin_) return false;
  for (const auto& p : states_) {
    if (p) return false;
  }
  return true;
}

void server_session_impl::serve_next(principal&& who, std::string&& task_owner) {
  {
    // The same caller again (all callers alike, or one client's requests): kept as it is.
    std::lock_guard lock(who_mu_);
    const auto& was = *who_;
    if (who.subject != was.subject || who.issuer != was.issuer || who.client_id != was.client_id ||
        who.scopes != was.scopes || who.claims != was.claims) {
      who_ = std::make_shared<const principal>(std::move(who));
    }
  }
  if (task_owner != task_owner_) task_owner_ = std::move(task_owner);
  level_.store(core_->opts.default_log_level);
  // What is offered changes only with a list (server_core::capabilities): asked again then.
  bool changed = false;
  for (std::size_t k = 0; k < core_->list_count(); ++k) {
    const auto g = core_->list_generation(k);
    if (lists_seen_[k].exchange(g) != g) changed = true;
  }
  if (changed) declared_ = declare_capabilities();
}

void allow_reuse(server_session& s) { static_cast<server_session_impl&>(s).record_held_requests(); }

bool session_reusable(server_session& s) { return static_cast<server_session_impl&>(s).reusable(); }

void reuse_session(server_session& s, principal&& who, std::string&& task_owner) {
  static_cast<server_session_impl&>(s).serve_next(std::move(who), std::move(task_owner));
}

std::string server_session_impl::protocol_version() const {
  return initialized_.load() ? version_ : std::string();
}

std::optional<std::string> server_session_impl::batch_refused() const {
  if (initialized_.load() && traits(era_).batches) return std::nullopt;
  return "Invalid Request: JSON-RPC batches are only accepted when protocol version 2025-03-26 "
         "was negotiated";
}

bool server_session_impl::served_elsewhere(const jsonrpc::request& r) const noexcept {
  return !modern() && has_request_revision(r);
}

void server_session_impl::on_request(jsonrpc::request&& req) {
  if (modern()) return on_modern_request(std::move(req));
  // A 2026-07-28 request on a legacy connection (stdio serves both eras): the twin serves it.
  if (has_request_revision(req)) {
    if (auto twin = modern_twin()) {
      drop_arriving_word(req.id);  // the twin's span counts it
      twin->receive(jsonrpc::message(std::move(req)));
    }
    return;
  }
  if (req.method == "ping") return reply(req.id, json::object{});
  if (req.method == "initialize") return on_initialize(req);
  if (!initialized_.load()) {
    return reply_error(
        req.id, error{errc::invalid_request, "Server not initialized: send initialize first"});
  }
  const auto* m = core_->router.find(req.method, false);
  // A method of a feature this session was not offered (nothing registered) is unknown too.
  if (m == nullptr || (!m->capability.empty() && !declared_->contains(m->capability))) {
    return reply_error(req.id, error{errc::method_not_found, "Method not found: " + req.method});
  }
  m->handler(*this, std::move(req));
}

void server_session_impl::on_notification(jsonrpc::notification&& n) {
  // cancelled and progress are handled by the peer core; notifications/initialized and
  // roots/list_changed need no action; unknown notifications are ignored, never answered. A
  // cancellation may be for a 2026-07-28 request the twin serves.
  if (!modern() && n.method == "notifications/cancelled") {
    std::shared_ptr<server_session_impl> twin;
    {
      std::lock_guard lock(state_mu_);
      twin = twin_;
    }
    if (auto id = jsonrpc::cancelled_request(n.method, n.params); id && twin) {
      twin->forwarded_cancel(*id);  // observed here already
    }
  }
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
  // A version we speak with initialize is echoed; any other gets the latest such as a
  // counter-offer (2026-07-28 has no initialize).
  auto chosen = find_era(ver->get_string()).value_or(latest_legacy_era);
  if (traits(chosen).per_request_meta) chosen = latest_legacy_era;
  json::object result;
  {
    std::lock_guard lock(init_mu_);
    if (initialized_.load()) {
      return reply_error(req.id,
                         error{errc::invalid_request, "Invalid Request: already initialized"});
    }
    era_ = chosen;
    version_ = std::string(traits(chosen).version);
    if (caps) client_caps_ = std::make_shared<const json::object>(caps->get_object());
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
  save_shared();  // before the answer: the client's next request may reach another process
  reply(req.id, result);
  observe_session_start();
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
    jsonrpc::request&& req, std::function<void(server_session_impl&, const jsonrpc::request&,
                                               const std::shared_ptr<pending_answer>&)>
                                work) {
  json::object meta;
  if (auto* m = req.params.if_contains("_meta"); m != nullptr && m->is_object()) {
    meta = m->get_object();
  }
  auto state =
      std::make_shared<pending_answer>(self(), req.id, std::move(meta), who(), origin_of(req));
  if (!track(state)) return;
  core_->exec->post([self = self(), state, req = std::move(req), work = std::move(work)] {
    if (state->cancelled()) return;
    try {
      work(*self, req, state);
    } catch (const protocol_error& e) {
      state->finish(e.get());
    } catch (const std::exception& e) {
      state->finish(error{errc::internal_error, req.method + " failed: " + e.what()});
    } catch (...) {
      state->finish(error{errc::internal_error, req.method + " failed"});
    }
  });
}

void pending_answer::finish(result<json::value> r) {
  if (answered_.exchange(true)) return;
  auto s = session();
  if (!s || !s->untrack(*this)) return;  // cancelled, or the session ended
  if (auto answer = close_round(*s, *this, !r)) return s->send_final(id(), std::move(*answer));
  if (r) return s->reply(id(), *r);
  s->reply_error(id(), r.error());
}

std::optional<error> server_session_impl::refusal(std::string_view method,
                                                  const json::object& params) const {
  auto missing = missing_client_capability(method, params, *client_capabilities());
  if (!missing) return std::nullopt;
  return error{errc::not_supported, "the client did not declare the \"" + *missing +
                                        "\" capability needed for " + std::string(method)};
}

result<json::object> server_session_impl::request_client(std::string_view method,
                                                         json::object params,
                                                         std::chrono::milliseconds timeout,
                                                         const jsonrpc::request_id* related,
                                                         std::stop_token stop) {
  if (auto refused = refusal(method, params)) return std::move(*refused);
  outbound_options o;
  o.timeout = timeout;
  o.related = related;
  return request(method, std::move(params), std::move(o), std::move(stop),
                 "the tool call was cancelled");
}

void server_session_impl::request_client_async(std::string_view method, json::object params,
                                               std::chrono::milliseconds timeout,
                                               const jsonrpc::request_id* related,
                                               std::stop_token stop,
                                               unique_function<void(result<json::object>)> done) {
  if (auto refused = refusal(method, params)) return done(std::move(*refused));
  if (stop.stop_requested()) return done(error{errc::cancelled, "the request was cancelled"});
  // The stop callback lives as long as the request is pending: it is owned by the callback the
  // peer keeps, and ends with it (also when the stop itself ends the request).
  struct pending {
    unique_function<void(result<json::object>)> done;
    std::optional<std::stop_callback<std::function<void()>>> on_stop;
  };
  auto p = std::make_shared<pending>();
  p->done = std::move(done);
  outbound_options o;
  o.timeout = timeout;
  o.related = related;
  const auto id = request_async(method, std::move(params), std::move(o),
                                [p](result<json::object> r) { p->done(std::move(r)); });
  if (id == 0) return;  // closed: `done` ran
  std::weak_ptr<peer> self = weak_from_this();
  p->on_stop.emplace(stop, std::function<void()>([self, id] {
                       if (auto s = self.lock())
                         s->cancel_outbound(id, "the request was cancelled");
                     }));
}

void server_session_impl::notify_list_changed(std::size_t k, std::uint64_t generation,
                                              std::string_view method) {
  if (!initialized_.load() || peer_closed()) return;
  if (lists_seen_[k].exchange(generation) >= generation) return;
  send_everywhere(jsonrpc::encode_notification(method));
}

std::shared_ptr<server_session_impl> make_session(const std::shared_ptr<server_core>& core,
                                                  std::shared_ptr<connection> conn,
                                                  session_options&& opts) {
  // A stateless session lives for one request and can be told nothing later: the core does not
  // keep it among the sessions it notifies (that list and its lock stay off the request path).
  const bool notified = !opts.assume_initialized;
  auto s = std::make_shared<server_session_impl>(core, std::move(conn), std::move(opts));
  if (notified) core->add_session(s);
  return s;
}

std::shared_ptr<server_session_impl> open_session(const std::shared_ptr<server_core>& core,
                                                  std::shared_ptr<connection> conn,
                                                  session_options&& opts) {
  core->tasks->recover();  // once: tools are registered by the time a session opens
  core->start_serving();   // a transport that did not say so when it started
  return make_session(core, std::move(conn), std::move(opts));
}

}  // namespace mcp::detail
