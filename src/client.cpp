#include <mcp/client.hpp>

#include <condition_variable>
#include <mutex>
#include <unordered_map>

namespace mcp {

struct client_session::impl : std::enable_shared_from_this<impl> {
  struct waiter {
    std::mutex mu;
    std::condition_variable cv;
    std::optional<result<json::object>> outcome;
    std::function<void(const json::object&)> on_progress;
  };

  std::shared_ptr<connection> conn;
  client_options opts;
  std::mutex mu;
  std::int64_t next_id = 1;
  std::unordered_map<std::int64_t, std::shared_ptr<waiter>> pending;
  std::unordered_map<std::string, std::shared_ptr<waiter>> progress;  // token → waiter
  json::object server_result;
  bool closed = false;

  void complete(std::int64_t id, result<json::object> r) {
    std::shared_ptr<waiter> w;
    {
      std::lock_guard lock(mu);
      auto it = pending.find(id);
      if (it == pending.end()) return;
      w = std::move(it->second);
      pending.erase(it);
      progress.erase("p" + std::to_string(id));
    }
    std::lock_guard lock(w->mu);
    w->outcome = std::move(r);
    w->cv.notify_all();
  }

  void on_request(jsonrpc::request& req) {
    for (const auto& [method, handler] : opts.request_handlers) {
      if (method != req.method) continue;
      auto r = handler(req.params);
      send_context ctx{};
      conn->send(r ? jsonrpc::encode_result(req.id, *r) : jsonrpc::encode_error(req.id, r.error()),
                 ctx);
      return;
    }
    if (req.method == "ping") {
      conn->send(jsonrpc::encode_result(req.id, json::object{}), send_context{});
      return;
    }
    conn->send(jsonrpc::encode_error(
                   req.id, error{errc::method_not_found, "Method not found: " + req.method}),
               send_context{});
  }

  void on_notification(const jsonrpc::notification& n) {
    if (n.method == "notifications/progress") {
      const auto* tok = n.params.if_contains("progressToken");
      if (tok && tok->is_string()) {
        std::shared_ptr<waiter> w;
        {
          std::lock_guard lock(mu);
          auto it = progress.find(std::string(tok->get_string()));
          if (it != progress.end()) w = it->second;
        }
        if (w && w->on_progress) w->on_progress(n.params);
      }
    }
    if (opts.on_notification) opts.on_notification(n.method, n.params);
  }
};

client_session::client_session(std::shared_ptr<connection> conn, client_options opts)
    : impl_(std::make_shared<impl>()) {
  impl_->conn = std::move(conn);
  impl_->opts = std::move(opts);
}

client_session::~client_session() { close(); }

void client_session::receive(std::string_view message) {
  auto v = parse_json(message, impl_->opts.limits);
  if (!v) return;  // a client has no one to report a broken server message to but its logs
  auto m = jsonrpc::decode(std::move(*v));
  if (!m) return;
  if (auto* r = std::get_if<jsonrpc::response>(&*m)) {
    const auto* id = std::get_if<std::int64_t>(&r->id);
    if (!id) return;
    if (r->err) {
      impl_->complete(*id, std::move(*r->err));
    } else if (r->result->is_object()) {
      impl_->complete(*id, std::move(r->result->get_object()));
    } else {
      impl_->complete(*id, error{errc::invalid_request, "result is not an object"});
    }
  } else if (auto* req = std::get_if<jsonrpc::request>(&*m)) {
    impl_->on_request(*req);
  } else if (auto* n = std::get_if<jsonrpc::notification>(&*m)) {
    impl_->on_notification(*n);
  }
}

result<json::object> client_session::request(std::string_view method, json::object params,
                                             const request_options& opts) {
  auto w = std::make_shared<impl::waiter>();
  w->on_progress = opts.on_progress;
  std::int64_t id = 0;
  {
    std::lock_guard lock(impl_->mu);
    if (impl_->closed) return error{errc::connection_closed, "the client is closed"};
    id = impl_->next_id++;
    impl_->pending.emplace(id, w);
    if (opts.on_progress) {
      const std::string token = "p" + std::to_string(id);
      impl_->progress.emplace(token, w);
      auto& meta = params["_meta"];
      if (!meta.is_object()) meta = json::object{};
      meta.get_object()["progressToken"] = token;
    }
  }
  if (opts.on_sent) opts.on_sent(id);
  impl_->conn->send(jsonrpc::encode_request(id, method, params), send_context{});
  const auto timeout = opts.timeout.count() > 0 ? opts.timeout : impl_->opts.timeout;
  std::unique_lock lock(w->mu);
  if (w->cv.wait_for(lock, timeout, [&] { return w->outcome.has_value(); })) {
    return std::move(*w->outcome);
  }
  lock.unlock();
  cancel(id, "timed out");
  return error{errc::request_timeout, std::string(method) + " got no answer within " +
                                          std::to_string(timeout.count()) + " ms"};
}

void client_session::notify(std::string_view method, json::object params) {
  impl_->conn->send(jsonrpc::encode_notification(method, params), send_context{});
}

void client_session::cancel(std::int64_t id, std::string_view reason) {
  notify("notifications/cancelled", json::object{{"requestId", id}, {"reason", reason}});
  impl_->complete(id, error{errc::cancelled, "the request was cancelled"});
}

result<json::object> client_session::initialize() {
  json::object params{{"protocolVersion", impl_->opts.protocol_version},
                      {"capabilities", impl_->opts.capabilities},
                      {"clientInfo", json::object{{"name", impl_->opts.info.name},
                                                  {"version", impl_->opts.info.version}}}};
  auto r = request("initialize", std::move(params));
  if (!r) return r;
  {
    std::lock_guard lock(impl_->mu);
    impl_->server_result = *r;
  }
  notify("notifications/initialized");
  return r;
}

result<json::object> client_session::call_tool(std::string_view name, json::object arguments,
                                               const request_options& opts) {
  return request("tools/call", json::object{{"name", name}, {"arguments", std::move(arguments)}},
                 opts);
}

result<std::vector<json::object>> client_session::list_all_tools() {
  std::vector<json::object> all;
  std::optional<std::string> cursor;
  for (int page = 0; page < 100000; ++page) {
    json::object params;
    if (cursor) params["cursor"] = *cursor;
    auto r = request("tools/list", std::move(params));
    if (!r) return r.error();
    if (const auto* tools = r->if_contains("tools"); tools && tools->is_array()) {
      for (const auto& t : tools->get_array()) {
        if (t.is_object()) all.push_back(t.get_object());
      }
    }
    const auto* next = r->if_contains("nextCursor");
    if (!next || !next->is_string()) return all;
    cursor = std::string(next->get_string());
  }
  return error{errc::limit_exceeded, "tools/list did not end after 100000 pages"};
}

json::object client_session::server_result() const {
  std::lock_guard lock(impl_->mu);
  return impl_->server_result;
}

void client_session::close() {
  std::unordered_map<std::int64_t, std::shared_ptr<impl::waiter>> pending;
  {
    std::lock_guard lock(impl_->mu);
    if (impl_->closed) return;
    impl_->closed = true;
    pending.swap(impl_->pending);
  }
  for (auto& [id, w] : pending) {
    std::lock_guard lock(w->mu);
    w->outcome = error{errc::connection_closed, "the connection was closed"};
    w->cv.notify_all();
  }
  impl_->conn->close();
}

}  // namespace mcp
