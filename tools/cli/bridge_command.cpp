// `mcp-cpp bridge --url URL`: a stdio MCP server that is a Streamable HTTP server elsewhere. A
// client that speaks only stdio (a desktop host, say) runs `mcp-cpp bridge --url URL` as its
// server: each line on stdin goes to the server as a POST (requests on their own exchange,
// their answers and whatever the server sends on the GET stream written to stdout, one line
// each). The session id, the protocol version header (from the initialize answer), SSE
// resumption and OAuth (as for `tools --url`) are the HTTP client transport's. Lines that are
// not JSON-RPC get a -32700/-32600 answer here and go no further. At the end of stdin the HTTP
// session is closed (DELETE).
#include <mcp/jsonrpc.hpp>
#include <mcp/transport/stdio.hpp>

#include <iostream>
#include <memory>
#include <mutex>
#include <optional>

#include "commands.hpp"
#include "tools_cli.hpp"
#include <unistd.h>

namespace mcp::cli {

namespace {

struct bridge_args {
  server_target target;
  bool json = false;  // unused: the bridge prints only MCP messages
};

/// The initialize request in flight (its id), to learn the negotiated version from its answer.
class version_watch {
 public:
  void initialize_sent(json::value id) {
    std::lock_guard lock(mu_);
    id_ = std::move(id);
  }
  /// The protocol version when `message` answers the initialize request.
  std::optional<std::string> answer(std::string_view message) {
    std::lock_guard lock(mu_);
    if (!id_) return std::nullopt;
    auto v = parse_json(message);
    if (!v || !v->is_object()) return std::nullopt;
    const auto& o = v->get_object();
    const auto* id = o.if_contains("id");
    const auto* result = o.if_contains("result");
    if (id == nullptr || *id != *id_ || result == nullptr || !result->is_object()) {
      return std::nullopt;
    }
    id_.reset();
    const auto* pv = result->get_object().if_contains("protocolVersion");
    return pv != nullptr && pv->is_string() ? std::optional<std::string>(pv->get_string())
                                            : std::nullopt;
  }

 private:
  std::mutex mu_;
  std::optional<json::value> id_;
};

int run_bridge(const bridge_args& a) {
  if (a.target.url.empty()) {
    std::cerr << "mcp-cpp: bridge needs --url URL\n";
    return exit_usage;
  }
  auto link = open_http(a.target);
  if (!link) {
    std::cerr << "mcp-cpp: " << terminal_safe(link.error().message) << "\n";
    return exit_usage;
  }
  auto conn = link->conn;
  auto out = std::make_shared<fd_connection>(STDOUT_FILENO);
  auto watch = std::make_shared<version_watch>();
  conn->on_receive([out, watch, conn_weak = std::weak_ptr(conn)](std::string_view m) {
    if (auto v = watch->answer(m)) {
      if (auto c = conn_weak.lock()) c->set_protocol_version(*v);
    }
    out->send(std::string(m), {});
  });
  const int rc = read_lines(STDIN_FILENO, {}, [&](std::string_view line) {
    auto v = parse_json(line);
    if (!v) {
      out->send(jsonrpc::encode_error(
                    std::nullopt, error{errc::parse_error, "Parse error: " + v.error().message}),
                {});
      return;
    }
    json::value copy = *v;
    auto m = jsonrpc::decode(std::move(copy));
    if (!m && !v->is_array()) {  // batches go as they are: the server answers them
      out->send(jsonrpc::encode_error(m.error().id, m.error().err), {});
      return;
    }
    const auto* req = m ? std::get_if<jsonrpc::request>(&*m) : nullptr;
    if (req != nullptr && req->method == "initialize") {
      watch->initialize_sent(jsonrpc::id_to_json(req->id));
    }
    send_context ctx;
    if (req != nullptr) ctx.request = &req->id;
    conn->send(std::string(line), ctx);
    const auto* n = m ? std::get_if<jsonrpc::notification>(&*m) : nullptr;
    if (n != nullptr && n->method == "notifications/initialized") {
      conn->open_event_stream();  // what the server sends on its own (a 405 says it has none)
    }
  });
  conn->close();
  return rc == 0 ? exit_ok : exit_usage;
}

}  // namespace

void add_bridge_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "bridge",
      "Serve a Streamable HTTP MCP server (--url URL) over stdio, for clients that speak only "
      "stdio: run `mcp-cpp bridge --url URL` as their server command");
  auto args = std::make_shared<bridge_args>();
  add_server_options(cmd, args->target, args->json);
  cmd->callback([args, &exit_code] { exit_code = run_bridge(*args); });
}

}  // namespace mcp::cli
