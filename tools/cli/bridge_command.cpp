// `mcp-cpp bridge --url URL` (the other direction, `--listen`, is bridge_listen.cpp): a stdio MCP
// server that is a Streamable HTTP server elsewhere. A client that speaks only stdio (a desktop
// host, say) runs `mcp-cpp bridge --url URL` as its server: each line on stdin goes to the server
// as a POST (requests on their own exchange, their answers and whatever the server sends on the GET
// stream written to stdout, one line each, re-serialised so that a message is always one line). The
// session id, the protocol version header (from the initialize answer, which is awaited before
// anything else is forwarded), SSE resumption and OAuth (as for `tools --url`) are the HTTP client
// transport's. Lines that are not JSON-RPC, batches and lines over 4 MiB get a -32700/-32600 answer
// here and go no further. At the end of stdin the answers still owed are awaited (at most
// --timeout), then the HTTP session is closed (DELETE).
// A client of the 2026-07-28 era (its requests carry their revision in `_meta`) has no
// initialize and no session: each request goes as it is, with the headers that revision wants
// beside it (MCP-Protocol-Version from `_meta`, Mcp-Method, Mcp-Name, and the Mcp-Param-* of the
// tool's `x-mcp-header` properties, learnt from the tools/list answers that pass through).
#include <mcp/jsonrpc.hpp>
#include <mcp/transport/stdio.hpp>

#include <boost/json/serialize.hpp>

#include <condition_variable>
#include <csignal>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>

#include "commands.hpp"
#include "param_headers.hpp"
#include "tools_cli.hpp"
#include <unistd.h>

namespace mcp::cli {

namespace {

struct bridge_args {
  server_target target;
  bool json = false;  // unused: the bridge prints only MCP messages
  bridge_listen_args listen;
};

/// What the bridge tracks between its two sides: the requests forwarded and not answered yet
/// (so that the end of stdin waits for their answers), and the initialize request (its answer
/// carries the protocol version, and nothing else is forwarded before it: the session id comes
/// with it). Requests are known by their id's JSON text (`jsonrpc::to_string`).
class traffic {
 public:
  void sent(const jsonrpc::request_id& id, bool initialize) {
    auto key = jsonrpc::to_string(id);
    std::lock_guard lock(mu_);
    if (initialize) initialize_ = key;
    pending_.insert(std::move(key));
  }
  /// A message from the server: when it answers a forwarded request, that one is done. Returns
  /// the negotiated protocol version when it answers initialize.
  std::optional<std::string> received(const json::value& message) {
    const auto* o = message.if_object();
    const auto* id = o != nullptr ? o->if_contains("id") : nullptr;
    if (id == nullptr || o->contains("method")) return std::nullopt;
    const auto rid = jsonrpc::id_from_json(*id);
    if (!rid) return std::nullopt;  // answers no request the bridge could have forwarded
    const auto key = jsonrpc::to_string(*rid);
    std::optional<std::string> version;
    std::lock_guard lock(mu_);
    pending_.erase(key);
    if (initialize_ && *initialize_ == key) {
      initialize_.reset();
      if (const auto* r = o->if_contains("result"); r != nullptr && r->is_object()) {
        if (const auto* v = r->get_object().if_contains("protocolVersion"); v && v->is_string()) {
          version = std::string(v->get_string());
        }
      }
    }
    cv_.notify_all();
    return version;
  }
  /// The client cancelled request `id`: no answer will come for it.
  void cancelled(const jsonrpc::request_id& id) {
    const auto key = jsonrpc::to_string(id);
    std::lock_guard lock(mu_);
    pending_.erase(key);
    cv_.notify_all();
  }
  /// Waits (at most `limit`) until initialize is answered; with `all`, until every forwarded
  /// request is.
  void wait(bool all, std::chrono::milliseconds limit) {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, limit, [&] { return all ? pending_.empty() : !initialize_.has_value(); });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::set<std::string> pending_;
  std::optional<std::string> initialize_;
};

/// The 2026-07-28 side: the `x-mcp-header` properties of each tool a tools/list answer named
/// (learnt on the reading thread, used on the writing one), and the headers of a request.
class modern_headers {
 public:
  using header_list = std::vector<std::pair<std::string, std::string>>;

  /// The revision a request of the new era names in its `_meta`; nothing for the old era.
  static std::optional<std::string> revision(const json::object& params) {
    const auto* meta = params.if_contains("_meta");
    const auto* v = meta != nullptr && meta->is_object()
                        ? meta->get_object().if_contains("io.modelcontextprotocol/protocolVersion")
                        : nullptr;
    if (v == nullptr || !v->is_string()) return std::nullopt;
    return std::string(v->get_string());
  }

  /// Learns the tools of a tools/list answer (any result with a `tools` array).
  void learn(const json::object& message) {
    const auto* r = message.if_contains("result");
    const auto* tools =
        r != nullptr && r->is_object() ? r->get_object().if_contains("tools") : nullptr;
    if (tools == nullptr || !tools->is_array()) return;
    std::lock_guard lock(mu_);
    for (const auto& t : tools->get_array()) {
      const auto* tool = t.if_object();
      const auto* name = tool != nullptr ? tool->if_contains("name") : nullptr;
      const auto* schema = tool != nullptr ? tool->if_contains("inputSchema") : nullptr;
      if (name == nullptr || !name->is_string()) continue;
      std::vector<detail::param_header> params;
      if (schema != nullptr && schema->is_object()) {
        try {
          params = detail::param_headers_of(schema->get_object(), name->get_string());
        } catch (const std::invalid_argument&) {
          // Invalid annotations: no headers (the server says what it needs).
        }
      }
      tools_.insert_or_assign(std::string(name->get_string()), std::move(params));
    }
  }

  /// Mcp-Method, Mcp-Name and Mcp-Param-* for request `method` with `params`.
  header_list of(std::string_view method, const json::object& params) {
    header_list out;
    out.emplace_back("Mcp-Method", detail::encode_header_value(method));
    std::string_view key;
    if (method == "tools/call" || method == "prompts/get") key = "name";
    if (method == "resources/read") key = "uri";
    if (method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel") {
      key = "taskId";
    }
    const auto* name = key.empty() ? nullptr : params.if_contains(key);
    if (name != nullptr && name->is_string()) {
      out.emplace_back("Mcp-Name", detail::encode_header_value(name->get_string()));
    }
    const auto* args = params.if_contains("arguments");
    if (method == "tools/call" && name != nullptr && name->is_string() && args != nullptr &&
        args->is_object()) {
      std::lock_guard lock(mu_);
      if (auto it = tools_.find(name->get_string()); it != tools_.end()) {
        for (auto& h : detail::param_header_values(it->second, args->get_object())) {
          out.push_back(std::move(h));
        }
      }
    }
    return out;
  }

 private:
  std::mutex mu_;
  std::map<std::string, std::vector<detail::param_header>, std::less<>> tools_;
};

int run_bridge(const bridge_args& a) {
  if (a.target.url.empty()) {
    std::cerr << "mcp-cpp: bridge needs --url URL\n";
    return exit_usage;
  }
  ::signal(SIGPIPE, SIG_IGN);  // a client that goes away is the end of stdin, not a crash
  auto link = open_http(a.target);
  if (!link) {
    std::cerr << "mcp-cpp: " << terminal_safe(link.error().message) << "\n";
    return exit_usage;
  }
  auto conn = link->conn;
  auto out = std::make_shared<fd_connection>(STDOUT_FILENO);
  auto seen = std::make_shared<traffic>();
  auto modern = std::make_shared<modern_headers>();
  conn->on_receive([out, seen, modern, conn_weak = std::weak_ptr(conn)](std::string_view m) {
    auto v = parse_json(m);
    if (!v) return;  // the transport hands over only what parsed; nothing else to pass on
    if (const auto* o = v->if_object()) modern->learn(*o);
    if (auto version = seen->received(*v)) {
      if (auto c = conn_weak.lock()) c->set_protocol_version(*version);
    }
    // No HTTP answer (the connection's `connection_closed`, an SDK code) goes out as the
    // server-range -32000 with its reason, as a JSON-RPC peer expects.
    if (auto* o = v->if_object(); o != nullptr) {
      if (auto* err = o->if_contains("error"); err != nullptr && err->is_object()) {
        if (auto* code = err->get_object().if_contains("code");
            code != nullptr && *code == static_cast<int>(errc::connection_closed)) {
          *code = -32000;
        }
      }
    }
    out->send(json::serialize(*v), {});  // one line, whatever the server's formatting
  });
  const auto answer_here = [&out](const std::optional<jsonrpc::request_id>& id, error e) {
    out->send(jsonrpc::encode_error(id, e), {});
  };
  const auto wait_limit =
      std::chrono::milliseconds(static_cast<std::int64_t>(a.target.timeout_seconds * 1000.0));
  const int rc = read_lines(
      STDIN_FILENO, {},
      [&](std::string_view line) {
        auto v = parse_json(line);
        if (!v) {
          return answer_here(std::nullopt,
                             error{errc::parse_error, "Parse error: " + v.error().message});
        }
        if (v->is_array()) {
          return answer_here(std::nullopt,
                             error{errc::invalid_request,
                                   "Invalid Request: the bridge forwards no JSON-RPC batches"});
        }
        auto m = jsonrpc::decode(std::move(*v));
        if (!m) return answer_here(m.error().id, m.error().err);
        const auto* req = std::get_if<jsonrpc::request>(&*m);
        send_context ctx;
        modern_headers::header_list headers;
        if (req != nullptr) {
          seen->sent(req->id, req->method == "initialize");
          ctx.request = &req->id;
          if (auto revision = modern_headers::revision(req->params)) {
            conn->set_protocol_version(*revision);  // the header of this request and what follows
            headers = modern->of(req->method, req->params);
            ctx.headers = &headers;
          }
        }
        const auto* n = std::get_if<jsonrpc::notification>(&*m);
        std::optional<jsonrpc::request_id> cancels;
        if (n != nullptr) cancels = jsonrpc::cancelled_request(n->method, n->params);
        if (cancels) {
          seen->cancelled(*cancels);
          ctx.cancels = &*cancels;  // the transport ends that request's exchange
        }
        conn->send(std::string(line), ctx);  // a stdin line is one message already
        if (req != nullptr && req->method == "initialize") seen->wait(false, wait_limit);
        if (n != nullptr && n->method == "notifications/initialized") {
          // What the server sends on its own (405: it has none); nothing waits for its answer.
          conn->open_event_stream_in_background();
        }
      },
      [&](std::size_t) {
        answer_here(std::nullopt,
                    error{errc::invalid_request, "Invalid Request: a message longer than 4 MiB"});
      });
  seen->wait(true, wait_limit);  // the answers to what was forwarded, before closing
  conn->close();
  return rc == 0 ? exit_ok : exit_usage;
}

}  // namespace

void add_bridge_command(CLI::App& app, int& exit_code, std::vector<std::string> server_command) {
  auto* cmd = app.add_subcommand(
      "bridge",
      "Serve a Streamable HTTP MCP server (--url URL) over stdio, for clients that speak only "
      "stdio; or serve a stdio MCP server (-- CMD ARGS) over Streamable HTTP (--listen "
      "HOST:PORT), one child process per HTTP session");
  auto args = std::make_shared<bridge_args>();
  args->listen.command = std::move(server_command);
  add_server_options(cmd, args->target, args->json);
  auto& l = args->listen;
  cmd->add_option("--listen", l.listen,
                  "Serve `-- CMD ARGS` over Streamable HTTP at http://HOST:PORT/mcp (port 0: any). "
                  "There is no authentication: whoever reaches the port can start CMD, so keep "
                  "HOST a loopback address unless the network is yours");
  cmd->add_option("--allow-origin", l.allowed_origins,
                  "--listen: a browser Origin allowed besides loopback ones (repeatable)");
  cmd->add_option("--allow-host", l.allowed_hosts,
                  "--listen: a Host name allowed (repeatable; default: loopback names when bound "
                  "to loopback)");
  cmd->add_option("--max-sessions", l.max_sessions,
                  "--listen: sessions (child processes) at once; further clients get 503")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--max-requests", l.max_requests,
                  "--listen: requests a session may have in flight (sent to its child, not "
                  "answered yet); more are refused with -32600")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--idle-timeout", l.idle_seconds,
                  "--listen: seconds a session may stay unused before its child is shut down")
      ->check(CLI::Range(1.0, 1.0e7));
  cmd->callback([args, &exit_code] {
    if (!args->listen.listen.empty()) {
      if (!args->target.url.empty()) {
        std::cerr << "mcp-cpp: bridge takes --url URL or --listen HOST:PORT -- CMD, not both\n";
        exit_code = exit_usage;
        return;
      }
      exit_code = run_bridge_listen(args->listen);
      return;
    }
    if (!args->listen.command.empty()) {
      std::cerr << "mcp-cpp: a server command needs --listen HOST:PORT\n";
      exit_code = exit_usage;
      return;
    }
    exit_code = run_bridge(*args);
  });
}

}  // namespace mcp::cli
