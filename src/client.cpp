// The client face of a session: initialize, requests and the server's requests to the client,
// on the peer core (peer.hpp) the server face shares.
#include <mcp/client.hpp>
#include <mcp/executor.hpp>

#include <mutex>

#include "peer.hpp"

namespace mcp {

struct client_session::impl final : detail::peer {
  impl(std::shared_ptr<connection> conn, client_options o)
      : peer(std::move(conn), o.limits), opts(std::move(o)) {}
  ~impl() override { close_peer(); }

  client_options opts;
  std::mutex mu;
  json::object server_result;
  std::shared_ptr<executor> exec;  ///< runs the server's requests; made on first use

  /// The server's requests run off the receiving thread (a handler may wait for a user), in
  /// flight so that the server can cancel them.
  void on_request(jsonrpc::request&& req) override {
    const client_request_handler* handler = nullptr;
    for (const auto& [method, h] : opts.request_handlers) {
      if (method == req.method) handler = &h;
    }
    if (handler == nullptr) {
      if (req.method == "ping") return reply(req.id, json::object{});
      return reply_error(req.id, error{errc::method_not_found, "Method not found: " + req.method});
    }
    auto in_flight = std::make_shared<detail::inbound_request>(req.id);
    if (!track(in_flight)) {
      return reply_error(
          req.id, error{errc::invalid_request, "Invalid Request: id " + jsonrpc::to_string(req.id) +
                                                   " is already in use by a running request"});
    }
    executor_for_requests().post([self = std::static_pointer_cast<impl>(shared_from_this()),
                                  in_flight, h = *handler, req = std::move(req)] {
      result<json::object> r = error{errc::internal_error, "no result"};
      try {
        r = h(req.params);
      } catch (const std::exception& e) {
        r = error{errc::internal_error, req.method + " failed: " + e.what()};
      }
      if (!self->untrack(*in_flight)) return;  // cancelled by the server
      if (r) return self->reply(req.id, *r);
      self->reply_error(req.id, r.error());
    });
  }

  void on_notification(jsonrpc::notification&& n) override {
    if (opts.on_notification) opts.on_notification(n.method, n.params);
  }

  [[nodiscard]] std::optional<std::string> batch_refused() const override {
    return "Invalid Request: this client accepts no JSON-RPC batches";
  }

  /// A client has no one to report a broken server message to: it is dropped.
  void on_invalid(const error&, const std::optional<jsonrpc::request_id>&) override {}

  executor& executor_for_requests() {
    std::lock_guard lock(mu);
    if (!exec) exec = opts.handler_executor ? opts.handler_executor : make_thread_pool(1);
    return *exec;
  }
};

client_session::client_session(std::shared_ptr<connection> conn, client_options opts)
    : impl_(std::make_shared<impl>(std::move(conn), std::move(opts))) {}

client_session::~client_session() { close(); }

void client_session::receive(std::string_view message) { impl_->receive_text(message); }

result<json::object> client_session::request(std::string_view method, json::object params,
                                             const request_options& opts) {
  detail::outbound_options o;
  o.timeout = opts.timeout.count() > 0 ? opts.timeout : impl_->opts.timeout;
  o.on_progress = opts.on_progress;
  o.on_sent = opts.on_sent;
  return impl_->request(method, std::move(params), std::move(o));
}

void client_session::notify(std::string_view method, json::object params) {
  impl_->send(jsonrpc::encode_notification(method, params));
}

void client_session::cancel(std::int64_t id, std::string_view reason) {
  impl_->cancel_outbound(id, reason);
}

result<json::object> client_session::initialize() {
  json::object params{{"protocolVersion", impl_->opts.protocol_version},
                      {"capabilities", impl_->opts.capabilities},
                      {"clientInfo", json::object{{"name", impl_->opts.info.name},
                                                  {"version", impl_->opts.info.version}}}};
  auto r = request("initialize", std::move(params));
  if (!r) return r;
  if (const auto* v = r->if_contains("protocolVersion"); v != nullptr && v->is_string()) {
    impl_->conn().set_protocol_version(v->get_string());
  }
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

void client_session::close() { impl_->close_peer(); }

}  // namespace mcp
