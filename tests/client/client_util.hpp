// Helpers for the client tests: client options in each mode, the demo server launched, the
// TypeScript SDK 1.x reference server when installed, and a scripted peer on a memory pair for
// what a real server does not send on demand (a refusal, a notification at a given moment).
#pragma once

#include <mcp/client.hpp>
#include <mcp/transport/memory.hpp>
#include <mcp/transport/process.hpp>

#include <boost/describe.hpp>
#include <boost/json/serialize.hpp>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace client_test {

using mcp::json::object;

struct text_in {
  std::string text;
};
BOOST_DESCRIBE_STRUCT(text_in, (), (text))

/// Client options negotiating automatically, answering elicitation with the name "Ada".
inline mcp::client_options automatic() {
  mcp::client_options o;
  o.info = {.name = "client-test", .version = "1"};
  o.negotiate = mcp::negotiation::automatic;
  o.on_elicitation = [](const mcp::elicitation_request&, std::stop_token) {
    return mcp::result<mcp::elicitation_answer>(
        mcp::elicitation_answer::accept(object{{"name", "Ada"}}));
  };
  return o;
}

inline std::string text_of(const mcp::result<object>& r) {
  return r ? mcp::client_session::joined_text(*r) : "error: " + r.error().message;
}

/// The demo server over stdio.
inline mcp::result<mcp::launched_server> launch_demo(mcp::client_options o) {
  return mcp::launch_server({.argv = {MCP_DEMO_SERVER, "--task-store", ":memory:"}}, std::move(o));
}

/// ts-ref-server.mjs of the shared benchmark kit, when it and its SDK are installed.
inline std::string ts_ref_server() {
  std::vector<std::filesystem::path> roots;
  if (const char* d = std::getenv("MCP_SHARED_DIR")) roots.emplace_back(d);
  roots.emplace_back(std::filesystem::path(MCP_SOURCE_DIR) / ".." / "shared");
  roots.emplace_back(std::filesystem::path(MCP_SOURCE_DIR) / ".." / ".." / "shared");
  const char* home = std::getenv("HOME");
  const auto cache = std::filesystem::path(home != nullptr ? home : "/") / ".cache/mcp-bench";
  if (!std::filesystem::exists(cache / "sdk-loader.mjs")) return {};
  if (std::system("command -v node >/dev/null 2>&1") != 0) return {};
  for (const auto& r : roots) {
    const auto p = r / "bench" / "ts-ref-server.mjs";
    if (std::filesystem::exists(p)) return std::filesystem::weakly_canonical(p).string();
  }
  return {};
}

/// What the scripted peer answers a request with.
struct reply {
  bool ok = true;
  object value;  // the result, or the error object
  static reply success(object r) { return reply{true, std::move(r)}; }
  static reply failure(int code, std::string message, object data = {}) {
    object e{{"code", code}, {"message", std::move(message)}};
    if (!data.empty()) e["data"] = std::move(data);
    return reply{false, std::move(e)};
  }
};

/// A server of the new era on a memory pair: answers server/discover itself and every other
/// request with `answer` (method, params); `notify` sends a notification.
struct scripted_peer {
  std::shared_ptr<mcp::memory_connection> server_end, client_end;
  std::function<reply(const std::string&, const object&)> answer;
  std::mutex mu;
  std::vector<std::string> methods;  // of every request and notification but discover
  std::vector<object> params;        // theirs
  std::int64_t discover_ttl_ms = 0;  // the discover answer's ttlMs (0: not to be kept)

  scripted_peer() {
    auto [s, c] = mcp::make_memory_pair();
    server_end = s;
    client_end = c;
    server_end->on_receive([this](std::string_view text) {
      auto v = mcp::parse_json(text);
      if (!v || !v->is_object()) return;
      const auto& m = v->get_object();
      const auto* method = m.if_contains("method");
      if (method == nullptr || !method->is_string()) return;
      const std::string name(method->get_string());
      const object p = m.contains("params") ? m.at("params").as_object() : object{};
      if (name != "server/discover") {
        std::lock_guard lock(mu);
        methods.push_back(name);
        params.push_back(p);
      }
      if (!m.contains("id")) return;
      object out{{"jsonrpc", "2.0"}, {"id", m.at("id")}};
      if (name == "server/discover") {
        out["result"] = object{{"resultType", "complete"},
                               {"supportedVersions", mcp::json::array{"2026-07-28"}},
                               {"capabilities", object{{"tools", object{}},
                                                       {"resources", object{{"subscribe", true}}}}},
                               {"ttlMs", discover_ttl_ms},
                               {"cacheScope", "public"}};
      } else {
        auto r = answer(name, p);
        out[r.ok ? "result" : "error"] = std::move(r.value);
      }
      server_end->send(mcp::json::serialize(out), {});
    });
  }

  /// A client session on the other end, wired.
  std::shared_ptr<mcp::client_session> client(mcp::client_options o) {
    auto c = std::make_shared<mcp::client_session>(client_end, std::move(o));
    std::weak_ptr<mcp::client_session> weak = c;
    client_end->on_receive([weak](std::string_view m) {
      if (auto s = weak.lock()) s->receive(m);
    });
    return c;
  }

  void notify(const std::string& method, object p) {
    object n{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(p)}};
    server_end->send(mcp::json::serialize(n), {});
  }

  /// How many requests or notifications of `method` arrived.
  int count(const std::string& method) {
    std::lock_guard lock(mu);
    int n = 0;
    for (const auto& m : methods) n += m == method ? 1 : 0;
    return n;
  }
};

}  // namespace client_test
