// `mcp-cpp bridge --listen HOST:PORT -- CMD ARGS`: a stdio MCP server served over Streamable
// HTTP. Each HTTP session (an initialize without `MCP-Session-Id`) gets a child process of its
// own running CMD, since a stdio server speaks with one client. The HTTP side is the library's
// `http_server` (sessions, Origin and Host checks, SSE, resumption, limits); the child side is a
// `process_connection`. Between them, `child_session` passes each message on (re-encoded, one
// line) and routes what the child writes:
//   - an answer goes to the stream of the request it answers;
//   - a progress notification goes with the request that gave its token;
//   - anything else the child sends on its own (logs, list_changed, its requests for sampling,
//     elicitation or roots) goes to the session's GET stream when one is open, else with the
//     newest request still running (it would be dropped otherwise).
// Writing to a child happens on a writer thread of its own, so that a child that stops reading
// holds up nobody else; what waits for it is bounded (past 16 MiB the session ends). A child
// that exits ends its session (the client gets 404 and starts again); a session that ends
// (DELETE, idle expiry, the bridge stopping) shuts its child down as the stdio transport says
// (close stdin, wait, SIGTERM, SIGKILL), off the I/O threads.
#include <mcp/http_server.hpp>
#include <mcp/jsonrpc.hpp>
#include <mcp/transport/process.hpp>

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "commands.hpp"
#include "tools_cli.hpp"

namespace mcp::cli {

namespace {

/// Runs shutdowns (which may take seconds) on threads of their own; `join` waits for all of
/// them. Without a thread to be had, a shutdown runs on the caller.
class reaper : public std::enable_shared_from_this<reaper> {
 public:
  void reap(std::function<void()> shutdown) {
    {
      std::lock_guard lock(mu_);
      ++running_;
    }
    try {
      std::thread([self = shared_from_this(), shutdown]() mutable {
        {
          auto run = std::move(shutdown);  // destroyed (the child with it) before done()
          run();
        }
        self->done();
      }).detach();
    } catch (const std::system_error&) {
      shutdown();
      done();
    }
  }
  void join() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return running_ == 0; });
  }

 private:
  void done() {
    std::lock_guard lock(mu_);
    --running_;
    cv_.notify_all();
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::size_t running_ = 0;
};

/// What waits to be written to a child, and the thread that writes it.
class child_writer {
 public:
  static constexpr std::size_t max_bytes = std::size_t{16} << 20U;

  /// Queues `message`. False when the child is that far behind (or closed).
  bool push(std::string message) {
    std::lock_guard lock(mu_);
    if (closed_ || bytes_ + message.size() > max_bytes) return false;
    bytes_ += message.size();
    queue_.push_back(std::move(message));
    cv_.notify_one();
    return true;
  }
  /// Writes to `child` until `close`.
  void run(process_connection& child) {
    std::unique_lock lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return closed_ || !queue_.empty(); });
      if (closed_) return;
      auto m = std::move(queue_.front());
      queue_.pop_front();
      bytes_ -= m.size();
      lock.unlock();
      child.send(std::move(m), {});
      lock.lock();
    }
  }
  void close() {
    std::lock_guard lock(mu_);
    closed_ = true;
    queue_.clear();
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  std::size_t bytes_ = 0;
  bool closed_ = false;
};

/// The id of a message the child wrote, when it is a response (an id and no method).
std::optional<jsonrpc::request_id> response_id(const json::object& m) {
  const auto* id = m.if_contains("id");
  if (id == nullptr || m.contains("method")) return std::nullopt;
  auto r = jsonrpc::id_from_json(*id);
  return r ? std::optional(*r) : std::nullopt;
}

/// The encoded form of a message the HTTP side decoded.
std::string encode(const jsonrpc::message& m) {
  if (const auto* r = std::get_if<jsonrpc::request>(&m)) {
    return jsonrpc::encode_request(r->id, r->method, r->params);
  }
  if (const auto* n = std::get_if<jsonrpc::notification>(&m)) {
    return jsonrpc::encode_notification(n->method, n->params);
  }
  if (const auto* a = std::get_if<jsonrpc::response>(&m)) {
    return a->err ? jsonrpc::encode_error(a->id, *a->err)
                  : jsonrpc::encode_result(a->id, a->result.value_or(json::object{}));
  }
  return jsonrpc::encode_error(std::nullopt, std::get<jsonrpc::orphan_error>(m).err);
}

/// One HTTP session's child process, as the `server_session` the HTTP server talks to.
/// Thread-safety: `receive` from I/O threads, child lines from its reader thread; one mutex.
class child_session final : public server_session,
                            public std::enable_shared_from_this<child_session> {
 public:
  /// `max_running`: requests forwarded and not answered that a session may have; more are
  /// refused here.
  child_session(std::shared_ptr<connection> out, std::shared_ptr<reaper> r, json_limits limits,
                std::size_t max_running)
      : out_(std::move(out)), reaper_(std::move(r)), limits_(limits), max_running_(max_running) {}

  /// Launches `argv` for a new session writing to `out`; null when it cannot be run.
  static std::shared_ptr<child_session> open(const std::vector<std::string>& argv,
                                             std::shared_ptr<connection> out,
                                             std::shared_ptr<reaper> r, json_limits limits,
                                             std::size_t max_running) {
    auto child = make_process_connection({.argv = argv});
    if (!child) {
      std::cerr << "mcp-cpp bridge: " << terminal_safe(child.error().message) << "\n";
      return nullptr;
    }
    auto s = std::make_shared<child_session>(std::move(out), std::move(r), limits, max_running);
    s->child_ = *child;
    try {
      s->writing_ = std::thread([w = s->writer_, c = s->child_] { w->run(*c); });
    } catch (const std::system_error&) {
      s->child_->close();
      return nullptr;
    }
    std::weak_ptr<child_session> weak = s;
    s->child_->start(
        [weak](std::string_view line) {
          if (auto self = weak.lock()) self->from_child(line);
        },
        [weak] {
          if (auto self = weak.lock()) self->close();
        });
    return s;
  }
  ~child_session() override { close(); }

  void receive(std::string_view text) override {
    auto v = parse_json(text, limits_);
    if (!v || !v->is_object()) return;
    auto m = jsonrpc::decode(std::move(*v));
    if (m) receive(std::move(*m));
  }

  void receive(jsonrpc::message&& m) override {
    bool refused = false;
    {
      std::lock_guard lock(mu_);
      if (closed_) return;
      // A client that never waits for its answers is refused here.
      refused = std::holds_alternative<jsonrpc::request>(m) && running_.size() >= max_running_;
      if (const auto* r = std::get_if<jsonrpc::request>(&m); r != nullptr && !refused) {
        running_.push_back(r->id);
        // One initialize per session: a second one is the child's to refuse.
        if (r->method == "initialize" && version_.empty() && !initialize_) initialize_ = r->id;
        if (const auto* meta = r->params.if_contains("_meta"); meta && meta->is_object()) {
          if (const auto* token = meta->get_object().if_contains("progressToken")) {
            progress_[json::serialize(*token)] = r->id;
          }
        }
      } else if (const auto* n = std::get_if<jsonrpc::notification>(&m)) {
        // A cancelled request: the child will not answer it, so it is forgotten here too.
        if (auto id = jsonrpc::cancelled_request(n->method, n->params)) forget(*id);
      }
    }
    if (refused) {
      const auto& id = std::get<jsonrpc::request>(m).id;
      out_->send(jsonrpc::encode_error(id, error{errc::invalid_request,
                                                 "Invalid Request: too many requests in flight"}),
                 send_context{.related_request = &id, .is_final_response = true});
      return;
    }
    if (!writer_->push(encode(m))) close();  // the child is too far behind: give up on it
  }

  void close() override {
    std::shared_ptr<process_connection> child;
    std::thread writing;
    {
      std::lock_guard lock(mu_);
      if (closed_) return;
      closed_ = true;
      child = child_;
      writing = std::move(writing_);
    }
    out_->close();  // ends the HTTP session's streams; the server forgets the session
    writer_->close();
    reaper_->reap(
        [child = std::move(child), w = std::make_shared<std::thread>(std::move(writing))] {
          if (child) child->close();  // also ends a write the child was not reading
          if (w->joinable()) w->join();
        });
  }

  [[nodiscard]] std::string protocol_version() const override {
    std::lock_guard lock(mu_);
    return version_;
  }
  [[nodiscard]] bool initialized() const override {
    std::lock_guard lock(mu_);
    return !version_.empty();
  }
  [[nodiscard]] std::size_t active_calls() const override {
    std::lock_guard lock(mu_);
    return running_.size();
  }
  void set_caller(principal who) override { (void)who; }  // the child knows no callers

 private:
  /// One line the child wrote: a message, or a batch of them.
  void from_child(std::string_view line) {
    auto v = parse_json(line, limits_);
    if (!v) return;  // not JSON: nothing a client could use
    if (auto* batch = v->if_array()) {
      for (auto& item : *batch) route(item, json::serialize(item));
    } else {
      route(*v, std::string(line));
    }
  }

  void route(const json::value& v, std::string text) {
    const auto* m = v.if_object();
    if (m == nullptr) return;
    std::optional<jsonrpc::request_id> related;
    bool final = false;
    bool ended = false;
    {
      std::lock_guard lock(mu_);
      if (auto id = response_id(*m)) {
        auto it = std::find(running_.begin(), running_.end(), *id);
        if (it == running_.end()) return;  // answers nothing the client is waiting for
        forget(*id);
        related = std::move(*id);
        final = true;
        if (initialize_ && *initialize_ == *related) {
          initialize_.reset();
          ended = !learn_version(*m);
        }
      } else if (auto owner = progress_request(*m)) {
        related = std::move(*owner);
      } else if (is_progress(*m)) {
        return;  // for a request that was answered or cancelled: no stream wants it
      } else if (!out_->delivers_unrelated() && !running_.empty()) {
        related = running_.back();  // else it would be dropped: the newest call carries it
      }
    }
    out_->send(std::move(text), send_context{.related_request = related ? &*related : nullptr,
                                             .is_final_response = final});
    if (ended) close();  // initialize failed: this session has no future
  }

  /// A request that is answered or cancelled. Under `mu_`.
  void forget(const jsonrpc::request_id& id) {
    std::erase(running_, id);
    std::erase_if(progress_, [&](const auto& p) { return p.second == id; });
  }

  /// Keeps the negotiated version from an initialize answer. False when it is an error.
  bool learn_version(const json::object& answer) {
    const auto* r = answer.if_contains("result");
    const auto* v =
        r != nullptr && r->is_object() ? r->get_object().if_contains("protocolVersion") : nullptr;
    if (v == nullptr || !v->is_string()) return false;
    version_ = std::string(v->get_string());
    out_->set_protocol_version(version_);
    return true;
  }

  static bool is_progress(const json::object& m) {
    const auto* method = m.if_contains("method");
    return method != nullptr && method->is_string() &&
           method->get_string() == "notifications/progress";
  }

  /// The request a notifications/progress belongs to (by its token). Under `mu_`.
  std::optional<jsonrpc::request_id> progress_request(const json::object& m) const {
    if (!is_progress(m)) return std::nullopt;
    const auto* params = m.if_contains("params");
    const auto* token =
        params && params->is_object() ? params->get_object().if_contains("progressToken") : nullptr;
    if (token == nullptr) return std::nullopt;
    auto it = progress_.find(json::serialize(*token));
    return it == progress_.end() ? std::nullopt : std::optional(it->second);
  }

  std::shared_ptr<connection> out_;
  std::shared_ptr<reaper> reaper_;
  json_limits limits_;
  std::size_t max_running_;
  std::shared_ptr<process_connection> child_;
  std::shared_ptr<child_writer> writer_ = std::make_shared<child_writer>();
  std::thread writing_;  ///< runs writer_ until close
  mutable std::mutex mu_;
  bool closed_ = false;
  std::string version_;
  std::optional<jsonrpc::request_id> initialize_;
  std::vector<jsonrpc::request_id> running_;             ///< requests forwarded, oldest first
  std::map<std::string, jsonrpc::request_id> progress_;  ///< serialized token → request
};

}  // namespace

int run_bridge_listen(const bridge_listen_args& a) {
  http_server_options opts;
  opts.handle_signals = true;  // Ctrl-C or SIGTERM: every session closed, each child shut down
  if (!set_listen_address(opts, a.listen)) {
    std::cerr << "mcp-cpp: --listen needs HOST:PORT (e.g. 127.0.0.1:8080), not '"
              << terminal_safe(a.listen) << "'\n";
    return exit_usage;
  }
  if (a.command.empty()) {
    std::cerr << "mcp-cpp: bridge --listen needs the server's command: -- CMD ARGS\n";
    return exit_usage;
  }
  opts.allowed_origins = a.allowed_origins;
  opts.allowed_hosts = a.allowed_hosts;
  opts.max_sessions = a.max_sessions;
  opts.session_idle_timeout =
      std::chrono::milliseconds(static_cast<std::int64_t>(a.idle_seconds * 1000.0));
  ::signal(SIGPIPE, SIG_IGN);  // a client or child that goes away is an error, not the end
  auto children = std::make_shared<reaper>();
  const json_limits limits{};
  int rc = exit_ok;
  {
    http_server http(
        [argv = a.command, children, limits, max = a.max_requests](std::shared_ptr<connection> out,
                                                                   const session_options&) {
          return child_session::open(argv, std::move(out), children, limits, max);
        },
        opts, limits);
    if (auto started = http.start(); !started) {
      std::cerr << "mcp-cpp: " << terminal_safe(started.error().message) << "\n";
      return exit_usage;
    }
    if (opts.host != "127.0.0.1" && opts.host != "localhost" && opts.host != "::1") {
      std::cerr << "mcp-cpp bridge: warning: " << terminal_safe(opts.host)
                << " is not a loopback address, and the bridge does not authenticate: anyone "
                   "who reaches it can start the server's command\n";
    }
    std::cerr << "mcp-cpp bridge: listening on " << http.url() << " for "
              << terminal_safe(a.command.front()) << " (a child process per session)\n";
    rc = http.serve() == 0 ? exit_ok : exit_usage;
  }  // stopped: every session closed, each child being shut down
  children->join();
  return rc;
}

}  // namespace mcp::cli
