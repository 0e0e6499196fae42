// subscriptions/listen on the client (2026-07-28): the one request through which a server of
// the new era tells of list changes and resource updates. The client keeps one open for what
// the server offers and the resources subscribed to, delivers what arrives on it to the same
// `on_notification` as in the old era, and opens it again when it ends (the stream dropped, the
// server restarted: nothing survives a reconnect), backing off with jitter after failures.
// A wait_task names its task in the listen (taskIds) when the server declared the tasks
// extension, so that notifications/tasks wakes it before its next tasks/get; when the wait ends
// the listen is sent again without it (or, with nothing left to hear, closed).
#include <mcp/client.hpp>

#include <random>

#include "client_impl.hpp"
#include "detail/timer.hpp"

namespace mcp {

namespace {

constexpr std::string_view subscription_key = "io.modelcontextprotocol/subscriptionId";
constexpr std::string_view listen_method = "subscriptions/listen";
constexpr std::string_view tasks_extension = "io.modelcontextprotocol/tasks";
/// A listen is re-sent this often even when nothing ends it.
constexpr auto listen_lifetime = std::chrono::hours(24);

/// Whether the server declared `caps[name][flag]: true`.
bool offers(const json::object& server_result, std::string_view name, std::string_view flag) {
  const auto* caps = server_result.if_contains("capabilities");
  const auto* c =
      caps != nullptr && caps->is_object() ? caps->get_object().if_contains(name) : nullptr;
  const auto* f = c != nullptr && c->is_object() ? c->get_object().if_contains(flag) : nullptr;
  return f != nullptr && f->is_bool() && f->get_bool();
}

/// Whether the server declared the tasks extension.
bool offers_tasks(const json::object& server_result) {
  const auto* caps = server_result.if_contains("capabilities");
  const auto* ext =
      caps != nullptr && caps->is_object() ? caps->get_object().if_contains("extensions") : nullptr;
  return ext != nullptr && ext->is_object() && ext->get_object().contains(tasks_extension);
}

/// The wait before the next try after `failures` failed ones: none after a graceful end, then
/// 250 ms doubling up to 30 s, each ±25 %.
std::chrono::milliseconds backoff(int failures) {
  if (failures <= 0) return std::chrono::milliseconds(0);
  const auto base = std::min<std::int64_t>(30000, std::int64_t{250} << std::min(failures - 1, 7));
  thread_local std::minstd_rand rng{std::random_device{}()};
  std::uniform_real_distribution<double> jitter(0.75, 1.25);
  return std::chrono::milliseconds(
      static_cast<std::int64_t>(static_cast<double>(base) * jitter(rng)));
}

}  // namespace

std::uint64_t client_session::impl::start_listening() {
  json::object server;
  std::uint64_t generation = 0;
  std::int64_t old = 0;
  json::array uris;
  json::array tasks;
  {
    std::lock_guard lock(mu);
    server = server_result;
    listen_wanted = true;
    generation = ++listen_generation;
    listen_opened = std::chrono::steady_clock::now();
    old = std::exchange(listen_id, 0);
    listen_acked = false;
    listen_honoured = {};
    for (const auto& u : listen_uris) uris.emplace_back(u);
    for (auto it = listen_tasks.begin(); it != listen_tasks.end();
         it = listen_tasks.upper_bound(*it)) {
      tasks.emplace_back(*it);
    }
  }
  if (old != 0) cancel_outbound(old, "the subscriptions changed");
  json::object asked;
  if (offers(server, "tools", "listChanged")) asked["toolsListChanged"] = true;
  if (offers(server, "prompts", "listChanged")) asked["promptsListChanged"] = true;
  if (offers(server, "resources", "listChanged")) asked["resourcesListChanged"] = true;
  if (!uris.empty() && offers(server, "resources", "subscribe")) {
    asked["resourceSubscriptions"] = std::move(uris);
  }
  const bool with_tasks = !tasks.empty() && offers_tasks(server);
  if (with_tasks) asked["taskIds"] = std::move(tasks);
  if (asked.empty() || peer_closed()) return generation;  // nothing the server would tell
  json::object params{{"notifications", std::move(asked)}};
  auto headers = stamp(listen_method, params, with_tasks);
  detail::outbound_options o;
  o.timeout = listen_lifetime;
  o.headers = &headers;
  o.on_sent = [this, generation](std::int64_t id) {
    std::lock_guard lock(mu);
    if (listen_generation == generation) listen_id = id;
  };
  std::weak_ptr<impl> weak = std::static_pointer_cast<impl>(shared_from_this());
  request_async(listen_method, std::move(params), std::move(o),
                [weak, generation](result<json::object> r) {
                  if (auto self = weak.lock()) self->listen_ended(generation, r);
                });
  return generation;
}

void client_session::impl::listen_ended(std::uint64_t generation, const result<json::object>& r) {
  std::chrono::milliseconds wait{0};
  {
    std::lock_guard lock(mu);
    if (generation != listen_generation || !listen_wanted) return;  // replaced, or stopped
    listen_id = 0;
    listen_acked = false;
    listen_cv.notify_all();
    if (peer_closed()) return;
    if (!r) {
      const auto& e = r.error();
      if (e.is(errc::method_not_found) || e.is(errc::invalid_params) ||
          e.is(errc::missing_required_client_capability)) {
        listen_wanted = false;  // the server cannot listen to this: asking again changes nothing
        return;
      }
      ++listen_failures;
    } else if (std::chrono::steady_clock::now() - listen_opened < std::chrono::seconds(1)) {
      // Acknowledged and ended at once: a server (or proxy) that does so every time must not
      // make the client ask again without a pause.
      ++listen_failures;
    }
    wait = backoff(listen_failures);
  }
  // Nothing survives the end: what was missed meanwhile is stale in the cache.
  forget_stale("notifications/tools/list_changed", {});
  forget_stale("notifications/prompts/list_changed", {});
  forget_stale("notifications/resources/list_changed", {});
  forget_stale("notifications/resources/updated", {});
  std::weak_ptr<impl> weak = std::static_pointer_cast<impl>(shared_from_this());
  detail::schedule_timer(std::chrono::steady_clock::now() + wait, [weak, generation] {
    auto self = weak.lock();
    if (!self) return;
    {
      std::lock_guard lock(self->mu);
      if (generation != self->listen_generation || !self->listen_wanted) return;
    }
    // Off the timer thread: opening a listen may wait for a connection.
    self->executor_for_requests().post([weak] {
      if (auto s = weak.lock()) s->start_listening();
    });
  });
}

bool client_session::impl::listen_notification(const jsonrpc::notification& n) {
  if (n.method != "notifications/subscriptions/acknowledged") return false;
  const auto* meta = n.params.if_contains("_meta");
  const auto* id = meta != nullptr && meta->is_object()
                       ? meta->get_object().if_contains(subscription_key)
                       : nullptr;
  std::lock_guard lock(mu);
  if (id != nullptr && id->is_int64() && id->get_int64() == listen_id && listen_id != 0) {
    listen_acked = true;
    listen_failures = 0;
    const auto* honoured = n.params.if_contains("notifications");
    listen_honoured =
        honoured != nullptr && honoured->is_object() ? honoured->get_object() : json::object{};
    listen_cv.notify_all();
  }
  return true;
}

result<void> client_session::impl::listen_subscribe(std::string_view uri, bool add) {
  {
    std::lock_guard lock(mu);
    if (!offers(server_result, "resources", "subscribe")) {
      return error{errc::not_supported, "the server does not offer resource subscriptions"};
    }
    if (add) {
      listen_uris.emplace(uri);
    } else {
      listen_uris.erase(std::string(uri));
    }
  }
  const auto generation = start_listening();
  std::unique_lock lock(mu);
  const bool acked = listen_cv.wait_for(lock, opts.timeout, [&] {
    return listen_generation != generation || listen_acked || listen_id == 0 || peer_closed();
  });
  if (listen_generation != generation) return {};  // a later subscription took its place
  if (!acked || !listen_acked) {
    return error{errc::request_timeout, "subscriptions/listen was not acknowledged"};
  }
  if (!add) return {};
  const auto* subs = listen_honoured.if_contains("resourceSubscriptions");
  if (subs != nullptr && subs->is_array()) {
    for (const auto& u : subs->get_array()) {
      if (u.is_string() && u.get_string() == uri) return {};
    }
  }
  return error{errc::not_supported, "the server does not send updates of " + std::string(uri)};
}

void client_session::impl::listen_for_task(std::string_view id, std::chrono::milliseconds timeout) {
  {
    std::lock_guard lock(mu);
    if (!offers_tasks(server_result)) return;
    listen_tasks.emplace(id);
  }
  const auto generation = start_listening();
  // Until acknowledged, a change may go untold: the waiter's tasks/get comes after this.
  std::unique_lock lock(mu);
  listen_cv.wait_for(lock, timeout, [&] {
    return listen_generation != generation || listen_acked || listen_id == 0 || peer_closed();
  });
}

void client_session::impl::unlisten_task(std::string_view id) {
  {
    std::lock_guard lock(mu);
    const auto it = listen_tasks.find(id);
    if (it == listen_tasks.end()) return;  // not named in the listen
    listen_tasks.erase(it);
    if (listen_tasks.contains(id)) return;  // another wait_task still waits for it
  }
  // The listen named the task: it is replaced by one without it, or ends when nothing is left
  // to hear (the server sees its stream closed).
  start_listening();
}

}  // namespace mcp
