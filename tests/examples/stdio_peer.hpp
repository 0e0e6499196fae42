// Test support for the examples: a client speaking JSON-RPC line by line to an example run as
// a subprocess over stdio. Requests wait for their answer; what arrives meanwhile
// (notifications) is kept in order.
#pragma once

#include <mcp/json.hpp>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "support/subprocess.hpp"

namespace mcp::test {

class stdio_peer {
 public:
  /// Starts `argv` and initializes a 2025-11-25 session with it.
  explicit stdio_peer(std::vector<std::string> argv)
      : proc_(std::make_unique<subprocess>(std::move(argv))) {
    using json::object;
    initialize_result =
        call("initialize", object{{"protocolVersion", "2025-11-25"},
                                  {"capabilities", object{}},
                                  {"clientInfo", object{{"name", "t"}, {"version", "1"}}}});
    send(object{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
  }

  /// Writes one message.
  void send(const json::value& m) { ASSERT_TRUE(proc_->write_line(json::serialize(m))); }

  /// Sends a request and returns its id (answered later by `wait_for`).
  int request(std::string_view method, json::object params) {
    const int id = next_id_++;
    send(json::object{
        {"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
    return id;
  }

  /// Reads until the answer to `id` (a string saying what went wrong when none comes).
  json::value wait_for(int id) {
    for (;;) {
      auto line = proc_->read_line(std::chrono::seconds(20));
      if (!line) return json::value("<no answer; stderr: " + proc_->drain_stderr() + ">");
      auto v = parse_json(*line);
      if (!v || !v->is_object()) return json::value("<not JSON: " + *line + ">");
      const auto& o = v->as_object();
      if (o.contains("method")) {
        notifications.push_back(o);
        continue;
      }
      if (o.contains("id") && o.at("id") == id) return *v;
    }
  }

  /// A request and its answer.
  json::value call(std::string_view method, json::object params) {
    return wait_for(request(method, std::move(params)));
  }

  /// A tools/call and its answer.
  json::value call_tool(std::string_view name, json::object args) {
    return call("tools/call", json::object{{"name", name}, {"arguments", std::move(args)}});
  }

  subprocess& proc() { return *proc_; }

  json::value initialize_result;
  std::vector<json::object> notifications;  ///< every notification received, in order

 private:
  std::unique_ptr<subprocess> proc_;
  int next_id_ = 0;
};

/// The text of a tools/call answer's first content block ("" when there is none).
inline std::string first_text(const json::value& answer) {
  const auto* r = answer.is_object() ? answer.as_object().if_contains("result") : nullptr;
  if (r == nullptr || !r->is_object()) return "";
  const auto* c = r->as_object().if_contains("content");
  if (c == nullptr || !c->is_array() || c->as_array().empty()) return "";
  const auto* t = c->as_array()[0].as_object().if_contains("text");
  return t != nullptr && t->is_string() ? std::string(t->as_string()) : "";
}

}  // namespace mcp::test
