// Test support: drives a server session at the wire level over the in-memory pair. Messages are
// sent as raw text and every message the server writes is queued for the test to inspect.
#pragma once

#include <mcp/server.hpp>
#include <mcp/transport/memory.hpp>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace mcp::test {

class wire {
 public:
  explicit wire(server& srv, session_options opts = {}) {
    auto [server_end, client_end] = make_memory_pair();
    server_end_ = server_end;
    client_end_ = client_end;
    session_ = srv.open_session(server_end, std::move(opts));
    server_end->on_receive([s = session_](std::string_view m) { s->receive(m); });
    // A server thread may deliver while the wire goes (close does not wait for a delivery in
    // flight): the receiver holds the inbox, not the wire.
    client_end->on_receive([in = in_](std::string_view m) {
      const std::lock_guard lock(in->mu);
      in->messages.emplace_back(m);
      in->cv.notify_all();
    });
  }
  ~wire() { session_->close(); }
  wire(const wire&) = delete;
  wire& operator=(const wire&) = delete;

  /// Sends raw text as the client.
  void send(std::string_view text) { client_end_->send(std::string(text), send_context{}); }
  void send(const char* text) { send(std::string_view(text)); }
  void send(const json::object& o) { send(to_json_string(o)); }

  /// The next message the server wrote, parsed; nothing after `timeout`.
  std::optional<json::value> next(std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    std::unique_lock lock(in_->mu);
    if (!in_->cv.wait_for(lock, timeout, [&] { return !in_->messages.empty(); })) {
      return std::nullopt;
    }
    std::string m = std::move(in_->messages.front());
    in_->messages.pop_front();
    lock.unlock();
    auto v = parse_json(m);
    if (!v) return json::value(json::string("<unparseable: " + m + ">"));
    return std::move(*v);
  }

  /// The next message that is a response (skipping notifications and requests).
  std::optional<json::value> next_response(
      std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    for (;;) {
      auto m = next(timeout);
      if (!m) return m;
      if (m->is_object() && !m->get_object().contains("method")) return m;
    }
  }

  /// Sends a request and returns the response to it.
  json::value call(std::string_view method, json::object params = {}, json::value id = 1) {
    send(json::object{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
    auto r = next_response();
    return r ? *r : json::value(nullptr);
  }

  /// initialize + notifications/initialized; returns the initialize result.
  json::value initialize(std::string_view version = "2025-11-25", json::object caps = {}) {
    auto r = call("initialize",
                  json::object{{"protocolVersion", version},
                               {"capabilities", std::move(caps)},
                               {"clientInfo", json::object{{"name", "test"}, {"version", "1"}}}},
                  0);
    send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    return r;
  }

  /// Messages queued and not yet read.
  std::size_t pending() {
    const std::lock_guard lock(in_->mu);
    return in_->messages.size();
  }

  server_session& session() { return *session_; }
  memory_connection& client_end() { return *client_end_; }

 private:
  std::shared_ptr<memory_connection> server_end_;
  std::shared_ptr<memory_connection> client_end_;
  std::shared_ptr<server_session> session_;
  struct inbox {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<std::string> messages;
  };
  std::shared_ptr<inbox> in_ = std::make_shared<inbox>();
};

/// Parses a JSON literal in a test (aborts the test on invalid JSON via a null value).
inline json::value j(std::string_view text) {
  auto v = parse_json(text);
  return v ? *v : json::value(json::string("<invalid test JSON>"));
}

}  // namespace mcp::test
