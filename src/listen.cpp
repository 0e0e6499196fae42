#include "listen.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>

#include "peer.hpp"
#include "server_core.hpp"
#include "server_session.hpp"
#include "tasks.hpp"

namespace mcp::detail {

namespace {
constexpr std::string_view subscription_key = "io.modelcontextprotocol/subscriptionId";
constexpr std::string_view tasks_extension = "io.modelcontextprotocol/tasks";
/// URIs and task ids one subscription may name.
constexpr std::size_t max_names = 10000;
}  // namespace

/// One open listen: a request in flight of its session, with what it asked to hear.
class subscription final : public inbound_request {
 public:
  subscription(jsonrpc::request_id id, std::weak_ptr<server_session_impl> s)
      : inbound_request(std::move(id)), session(std::move(s)) {}
  std::weak_ptr<server_session_impl> session;
  bool tools = false;
  bool prompts = false;
  bool resources = false;
  std::set<std::string, std::less<>> uris;
  std::set<std::string, std::less<>> tasks;
  std::string owner;  ///< whose tasks it may hear of
  /// Per task named, the last change sent: a change heard twice (from this process and through
  /// the shared store's pushes) is not sent again, nor anything after an end.
  struct told_change {
    std::chrono::system_clock::time_point at;
    task_status status;
    std::string message;
  };
  std::map<std::string, told_change, std::less<>> told;
  std::mutex told_mu;

  /// True when `t` is news against what was sent about it (and now counts as sent). Changes are
  /// compared by what they say, not only by their time: lastUpdatedAt is in milliseconds and
  /// written by the clock of whichever process made the change, so two changes can share it and
  /// a later change made on another node can carry an earlier time. Only an exact repeat, the
  /// same status heard late, or anything after an end is held back.
  bool fresh(const task_record& t) {
    const std::lock_guard lock(told_mu);
    auto [it, added] =
        told.try_emplace(t.id, told_change{t.last_updated_at, t.status, t.status_message});
    if (added) return true;
    auto& was = it->second;
    if (is_terminal(was.status)) return false;
    if (t.status == was.status &&
        (t.last_updated_at < was.at ||
         (t.last_updated_at == was.at && t.status_message == was.message))) {
      return false;
    }
    was = told_change{t.last_updated_at, t.status, t.status_message};
    return true;
  }

  /// Sends `method` with `params` (tagged with the subscription) on the listen's stream.
  void send(std::string_view method, json::object params) {
    auto s = session.lock();
    if (!s || s->peer_closed() || cancelled()) return;
    auto& meta = params["_meta"];
    if (!meta.is_object()) meta = json::object{};
    meta.get_object()[subscription_key] = jsonrpc::id_to_json(id());
    s->send(jsonrpc::encode_notification(method, params), &id());
  }
};

listen_feature::listen_feature(server_core& core) : core_(core) {
  core.router.add(
      "subscriptions/listen", "",
      [this](server_session_impl& s, jsonrpc::request&& r) { listen(s, std::move(r)); },
      served_in::modern);
}

listen_feature::~listen_feature() = default;

std::optional<std::pair<std::string, json::object>> listen_feature::capability(
    const server_session_impl&) const {
  return std::nullopt;
}

void listen_feature::listen(server_session_impl& s, jsonrpc::request&& req) {
  const auto* n = req.params.if_contains("notifications");
  if (n != nullptr && !n->is_object()) {
    return s.reply_error(req.id, invalid_params("subscriptions/listen: \"notifications\" must be "
                                                "an object"));
  }
  static const json::object none;
  const auto& asked = n != nullptr ? n->get_object() : none;
  auto flag = [&asked](std::string_view k) {
    const auto* v = asked.if_contains(k);
    return v != nullptr && v->is_bool() && v->get_bool();
  };
  auto names = [&](std::string_view k, std::set<std::string, std::less<>>& out) -> bool {
    const auto* v = asked.if_contains(k);
    if (v == nullptr) return true;
    if (!v->is_array() || v->get_array().size() > max_names) return false;
    for (const auto& x : v->get_array()) {
      if (!x.is_string()) return false;
      out.emplace(x.get_string());
    }
    return true;
  };
  const auto origin = s.origin_of(req);
  auto sub = std::make_shared<subscription>(req.id, s.self());
  sub->owner = s.task_owner();
  const auto offered = [&s](std::string_view cap) {
    return s.declared_capabilities().contains(cap);
  };
  sub->tools = flag("toolsListChanged") && offered("tools");
  sub->prompts = flag("promptsListChanged") && offered("prompts");
  sub->resources = flag("resourcesListChanged") && offered("resources");
  if (!names("resourceSubscriptions", sub->uris) || !names("taskIds", sub->tasks)) {
    return s.reply_error(req.id, invalid_params("subscriptions/listen: resourceSubscriptions and "
                                                "taskIds are arrays of strings"));
  }
  if (!offered("resources")) sub->uris.clear();
  if (!sub->tasks.empty()) {
    const auto* ext = origin.client_caps->if_contains("extensions");
    if (ext == nullptr || !ext->is_object() || !ext->get_object().contains(tasks_extension)) {
      return s.reply_error(
          req.id, error{errc::missing_required_client_capability,
                        "taskIds need the tasks extension (io.modelcontextprotocol/tasks)",
                        json::value(json::object{
                            {"requiredCapabilities",
                             json::object{{"extensions",
                                           json::object{{tasks_extension, json::object{}}}}}}})});
    }
  }
  // What is honoured, as the acknowledgement says it.
  json::object honoured;
  if (sub->tools) honoured["toolsListChanged"] = true;
  if (sub->prompts) honoured["promptsListChanged"] = true;
  if (sub->resources) honoured["resourcesListChanged"] = true;
  if (!sub->uris.empty()) {
    json::array a;
    for (const auto& u : sub->uris) a.emplace_back(u);
    honoured["resourceSubscriptions"] = std::move(a);
  }
  if (!sub->tasks.empty()) {
    json::array a;
    for (const auto& t : sub->tasks) a.emplace_back(t);
    honoured["taskIds"] = std::move(a);
  }
  sub->open_ended = true;  // the end of input ends it: stdio does not wait for its answer
  if (!s.track(sub)) return;
  {
    std::lock_guard lock(mu_);
    // Ended subscriptions go when new ones come.
    std::erase_if(subs_, [](const std::weak_ptr<subscription>& w) {
      auto p = w.lock();
      return !p || p->cancelled();
    });
    subs_.push_back(sub);
  }
  // The acknowledgement first: nothing else goes out for it before (a change racing this is
  // sent after it, since both are sent on the session's stream in order).
  sub->send("notifications/subscriptions/acknowledged",
            json::object{{"notifications", std::move(honoured)}});
}

std::vector<std::shared_ptr<subscription>> listen_feature::live() {
  std::vector<std::shared_ptr<subscription>> out;
  std::lock_guard lock(mu_);
  std::erase_if(subs_, [&out](const std::weak_ptr<subscription>& w) {
    auto p = w.lock();
    if (!p || p->cancelled()) return true;
    out.push_back(std::move(p));
    return false;
  });
  return out;
}

void listen_feature::list_changed(std::size_t /*k*/, std::string_view method) {
  for (const auto& sub : live()) {
    const bool wanted = (method == "notifications/tools/list_changed" && sub->tools) ||
                        (method == "notifications/prompts/list_changed" && sub->prompts) ||
                        (method == "notifications/resources/list_changed" && sub->resources);
    if (wanted) sub->send(method, json::object{});
  }
}

void listen_feature::resource_updated(std::string_view uri) {
  for (const auto& sub : live()) {
    if (sub->uris.contains(uri)) {
      sub->send("notifications/resources/updated", json::object{{"uri", uri}});
    }
  }
}

void listen_feature::task_changed(const task_record& t, const std::function<task_record()>& full) {
  std::optional<json::object> task;  // the DetailedTask, once a subscription wants it
  for (const auto& sub : live()) {
    if (sub->owner == t.owner && sub->tasks.contains(t.id) && sub->fresh(t)) {
      if (!task) task = full ? detailed_task_json(full()) : detailed_task_json(t);
      sub->send("notifications/tasks", *task);
    }
  }
}

std::vector<std::string> listen_feature::task_listeners(std::string_view id) {
  std::vector<std::string> owners;
  for (const auto& sub : live()) {
    if (sub->tasks.contains(id) &&
        std::find(owners.begin(), owners.end(), sub->owner) == owners.end()) {
      owners.push_back(sub->owner);
    }
  }
  return owners;
}

}  // namespace mcp::detail
