// The cluster tests' pieces: demo_server processes started with --redis on a real redis-server
// (ephemeral ports, 127.0.0.1), a round-robin HAProxy in front, and requests that name the node
// they go to. Used by cluster_test.cpp (whose main skips when redis-server or haproxy is
// missing) and its siblings in the same executable.
#pragma once

#include <mcp/json.hpp>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "http/modern_util.hpp"
#include "redis/redis_server.hpp"
#include "support/subprocess.hpp"

namespace mcp_test {

using namespace std::chrono_literals;

/// A demo_server process serving HTTP on an ephemeral port, sharing `redis_url`; started
/// through `launcher` when given (e.g. `env VAR=value`).
class node {
 public:
  node(const std::string& redis_url, const std::vector<std::string>& extra,
       const std::vector<std::string>& launcher = {})
      : proc_([&] {
          std::vector<std::string> argv = launcher;
          for (const auto& a : {std::string(MCP_DEMO_SERVER), std::string("--http"),
                                std::string("127.0.0.1:0"), std::string("--redis"), redis_url}) {
            argv.push_back(a);
          }
          argv.insert(argv.end(), extra.begin(), extra.end());
          return argv;
        }()) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (port_ == 0 && std::chrono::steady_clock::now() < deadline) {
      const auto err = proc_.drain_stderr();
      if (const auto at = err.find("http://127.0.0.1:"); at != std::string::npos) {
        const auto digits = at + std::string_view("http://127.0.0.1:").size();
        const auto end = err.find('/', digits);
        if (end != std::string::npos) port_ = std::stoi(err.substr(digits, end - digits));
      }
      std::this_thread::sleep_for(10ms);
    }
  }
  [[nodiscard]] std::uint16_t port() const { return static_cast<std::uint16_t>(port_); }
  std::string log() { return proc_.drain_stderr(); }
  /// kill -9: the process ends at once, its connections reset.
  void kill() {
    ::kill(proc_.pid(), SIGKILL);
    (void)proc_.wait();
  }

 private:
  mcp::test::subprocess proc_;
  int port_ = 0;
};

/// HAProxy round-robin over `ports`, on a free port.
class proxy {
 public:
  /// `server_options`: appended to each server line (e.g. "check inter 100ms fall 1 rise 1");
  /// `backend`: lines added to the backend section (e.g. "  retry-on conn-failure").
  explicit proxy(const std::vector<std::uint16_t>& ports, const std::string& server_options = {},
                 const std::string& backend = {}) {
    static std::atomic<int> made{0};
    dir_ = std::filesystem::temp_directory_path() /
           ("mcp-haproxy-" + std::to_string(::getpid()) + "-" + std::to_string(++made));
    std::filesystem::create_directories(dir_);
    for (int attempt = 0; attempt < 5 && !ready_; ++attempt) {
      port_ = free_port();
      std::ofstream cfg(dir_ / "haproxy.cfg");
      cfg << "global\n  maxconn 256\ndefaults\n  mode http\n  option http-no-delay\n"
             "  timeout connect 2s\n"
             "  timeout client 60s\n  timeout server 60s\nfrontend mcp\n  bind 127.0.0.1:"
          << port_ << "\n  default_backend nodes\nbackend nodes\n  balance roundrobin\n"
          << backend;
      int i = 0;
      for (const auto p : ports) {
        cfg << "  server n" << ++i << " 127.0.0.1:" << p << " " << server_options << "\n";
      }
      cfg.close();
      proc_ = std::make_unique<mcp::test::subprocess>(
          std::vector<std::string>{binary(), "-f", (dir_ / "haproxy.cfg").string(), "-db"});
      for (int wait = 0; wait < 200 && !ready_; ++wait) {
        std::this_thread::sleep_for(10ms);
        try {
          raw_client probe(port_);
          ready_ = true;
        } catch (const std::exception&) {
        }
      }
    }
  }
  ~proxy() {
    proc_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  proxy(const proxy&) = delete;
  proxy& operator=(const proxy&) = delete;
  [[nodiscard]] std::uint16_t port() const { return port_; }
  [[nodiscard]] bool ready() const { return ready_; }

  static std::string binary() {
    for (const char* p : {"/usr/sbin/haproxy", "/usr/bin/haproxy", "/usr/local/sbin/haproxy"}) {
      if (::access(p, X_OK) == 0) return p;
    }
    return {};
  }

 private:
  static std::uint16_t free_port() {
    net::io_context io;
    tcp::acceptor a(io, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
    return a.local_endpoint().port();
  }
  std::filesystem::path dir_;
  std::unique_ptr<mcp::test::subprocess> proc_;
  std::uint16_t port_ = 0;
  bool ready_ = false;
};

class Cluster : public ::testing::Test {
 protected:
  void start(std::size_t n, const std::vector<std::string>& extra = {}) {
    ASSERT_TRUE(redis_.running());
    for (std::size_t i = 0; i < n; ++i) {
      nodes_.push_back(std::make_unique<node>(redis_.url(), extra));
      ASSERT_NE(nodes_.back()->port(), 0) << nodes_.back()->log();
    }
  }
  /// One more node, started through `launcher`.
  void start_through(const std::vector<std::string>& launcher,
                     const std::vector<std::string>& extra = {}) {
    ASSERT_TRUE(redis_.running());
    nodes_.push_back(std::make_unique<node>(redis_.url(), extra, launcher));
    ASSERT_NE(nodes_.back()->port(), 0) << nodes_.back()->log();
  }
  std::uint16_t port(std::size_t i) const { return nodes_[i]->port(); }
  std::vector<std::uint16_t> ports() const {
    std::vector<std::uint16_t> all;
    for (const auto& n : nodes_) all.push_back(n->port());
    return all;
  }

  mcp::test::redis_server redis_;
  std::vector<std::unique_ptr<node>> nodes_;
};

/// Opens a 2025-11-25 session on `port` with `caps`; its id.
inline std::string open_on(std::uint16_t port, const std::string& caps = "{}") {
  const std::string init =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
      R"("capabilities":)" +
      caps + R"(,"clientInfo":{"name":"cluster-test","version":"1"}}})";
  auto r = request(port, "POST", init, post_headers({}, ""));
  EXPECT_EQ(r.status, 200U) << r.body;
  const auto sid = r.header("mcp-session-id");
  request(port, "POST", R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
          post_headers(sid));
  return sid;
}

inline response call_on(std::uint16_t port, const std::string& sid, const std::string& id,
                        const std::string& tool, const std::string& args, bool progress = false) {
  return request(port, "POST", call_body(id, tool, args, progress), post_headers(sid));
}

inline std::string text_of(const response& r) {
  const auto res = result_of(answer_of(r));
  return first_text(res);
}

/// The JSON-RPC messages in an SSE body read so far.
inline std::vector<mcp::json::object> messages_in(const std::string& body) {
  std::vector<mcp::json::object> out;
  response r;
  r.body = body;
  for (const auto& e : r.events()) {
    if (e.data.empty()) continue;
    auto v = mcp::parse_json(e.data);
    if (v && v->is_object()) out.push_back(v->get_object());
  }
  return out;
}

/// How many messages of `method` the SSE body holds.
inline std::size_t count_of(const std::string& body, std::string_view method) {
  std::size_t n = 0;
  for (const auto& m : messages_in(body)) {
    const auto* x = m.if_contains("method");
    if (x != nullptr && x->is_string() && x->get_string() == method) ++n;
  }
  return n;
}

/// The first message of `method` in the SSE body; empty when none.
inline mcp::json::object first_of(const std::string& body, std::string_view method) {
  for (auto& m : messages_in(body)) {
    const auto* x = m.if_contains("method");
    if (x != nullptr && x->is_string() && x->get_string() == method) return m;
  }
  return {};
}

/// A GET stream of session `sid` on `port`, open once its priming event came.
class get_stream {
 public:
  get_stream(std::uint16_t port, const std::string& sid) : c_(port) {
    c_.send_raw(make_request("GET", port, "",
                             {{"Accept", "text/event-stream"},
                              {"Mcp-Session-Id", sid},
                              {"MCP-Protocol-Version", "2025-11-25"}}));
    open_ = c_.read_until(r_, [](const std::string& b) { return b.find("\n\n") != b.npos; });
  }
  [[nodiscard]] bool open() const { return open_ && r_.status == 200U; }
  /// Reads until `method` came `n` times; false on timeout.
  bool wait_for(std::string_view method, std::size_t n, std::chrono::milliseconds timeout = 10s) {
    return wait_until([&](const std::string& b) { return count_of(b, method) >= n; }, timeout);
  }
  /// Reads until `pred(body so far)`; false on timeout.
  bool wait_until(const std::function<bool(const std::string&)>& pred,
                  std::chrono::milliseconds timeout = 10s) {
    return c_.read_until(r_, pred, timeout);
  }
  [[nodiscard]] const std::string& body() const { return r_.body; }

 private:
  raw_client c_;
  response r_;
  bool open_ = false;
};

/// Accepts elicitation `asked` (a request read from a stream) with `content` (a JSON object),
/// POSTed to `port` in session `sid`; what went wrong, or empty.
inline std::string accept_elicitation(std::uint16_t port, const std::string& sid,
                                      const mcp::json::object& asked, const std::string& content) {
  const auto answer = R"({"jsonrpc":"2.0","id":)" + mcp::json::serialize(asked.at("id")) +
                      R"(,"result":{"action":"accept","content":)" + content + "}}";
  auto r = request(port, "POST", answer, post_headers(sid));
  if (r.status == 202U) return {};
  return "the answer got " + std::to_string(r.status) + ": " + r.body;
}

/// POSTs `body` to `port` (session `sid`) on a connection of its own, accepts with `content`
/// the elicitation that comes on its stream (answered through `answer_port`) and reads on until
/// `until` came; what went wrong, or empty. `got`: the stream read.
inline std::string answer_on_stream(std::uint16_t port, std::uint16_t answer_port,
                                    const std::string& sid, const std::string& body,
                                    const std::string& content, const std::string& until,
                                    response& got) {
  raw_client c(port);
  c.send_raw(make_request("POST", port, body, post_headers(sid)));
  if (!c.read_until(
          got, [](const std::string& b) { return count_of(b, "elicitation/create") == 1; }, 5s)) {
    return "no elicitation came: " + got.body;
  }
  if (auto failed =
          accept_elicitation(answer_port, sid, first_of(got.body, "elicitation/create"), content);
      !failed.empty()) {
    return failed;
  }
  if (!c.read_until(
          got, [&](const std::string& b) { return b.find(until) != b.npos; }, 5s)) {
    return "no result came: " + got.body;
  }
  return {};
}

/// The `_meta` of a 2026-07-28 request declaring the tasks extension.
inline std::string tasks_meta() {
  return modern_meta(R"({"extensions":{"io.modelcontextprotocol/tasks":{}}})");
}

/// A listen naming task `id` on `port`, open once acknowledged.
class task_listen {
 public:
  task_listen(std::uint16_t port, const std::string& id) : c_(port) {
    c_.send_raw(
        make_request("POST", port,
                     modern_body("\"l\"", "subscriptions/listen",
                                 R"("notifications":{"taskIds":[")" + id + R"("]})", tasks_meta()),
                     modern_headers("subscriptions/listen")));
    open_ = c_.read_until(r_, [](const std::string& b) {
      return count_of(b, "notifications/subscriptions/acknowledged") == 1;
    });
  }
  [[nodiscard]] bool open() const { return open_; }
  /// The notifications/tasks with `status` that came so far.
  std::vector<mcp::json::object> told_of(std::string_view status) const {
    std::vector<mcp::json::object> found;
    for (auto& m : messages_in(r_.body)) {
      const auto* method = m.if_contains("method");
      if (method == nullptr || *method != "notifications/tasks") continue;
      const auto* st = m.at("params").at("status").if_string();
      if (st != nullptr && *st == status) found.push_back(std::move(m));
    }
    return found;
  }
  /// How many notifications/tasks with `status` came so far.
  std::size_t told(std::string_view status) const { return told_of(status).size(); }
  /// Reads until `status` was told `n` times; false on timeout.
  bool wait_for(std::string_view status, std::size_t n, std::chrono::milliseconds timeout) {
    return c_.read_until(
        r_, [&](const std::string&) { return told(status) >= n; }, timeout);
  }
  [[nodiscard]] const std::string& body() const { return r_.body; }

 private:
  raw_client c_;
  response r_;
  bool open_ = false;
};

}  // namespace mcp_test
