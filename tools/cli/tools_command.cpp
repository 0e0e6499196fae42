// `mcp-cpp tools list | describe NAME | call NAME KEY=VALUE...` against `-- CMD ARGS...` or
// `--url URL`: the client duties of the MCP Tools page from the shell (arguments checked before
// sending, confirmation before a tool not marked read-only, progress, Ctrl-C cancels, timeouts,
// an audit log).
#include <algorithm>
#include <atomic>
#include <csignal>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "commands.hpp"
#include "tools_cli.hpp"
#include <pthread.h>
#include <unistd.h>

namespace mcp::cli {

namespace {

struct tools_args {
  server_target target;
  bool json = false;
  std::string name;
  std::vector<std::string> key_values;
  std::string args_json;
  double max_seconds = 0;
  bool yes = false;
  bool task = false;    ///< run the call as a task (taskSupport optional or required)
  bool detach = false;  ///< with a task: print its id and leave it running
  std::string out_dir;
  std::string audit;
};

std::string server_line_raw(const json::object& init) {
  std::string out;
  if (const auto* info = init.if_contains("serverInfo"); info && info->is_object()) {
    const auto& i = info->get_object();
    if (const auto* n = i.if_contains("name"); n && n->is_string()) out += n->get_string();
    if (const auto* v = i.if_contains("version"); v && v->is_string()) {
      out += " ";
      out += v->get_string();
    }
  }
  if (const auto* p = init.if_contains("protocolVersion"); p && p->is_string()) {
    out += " (protocol ";
    out += p->get_string();
    out += ")";
  }
  return out;
}

/// The server's name, version and protocol, safe to show.
std::string server_line(const json::object& init) { return terminal_safe(server_line_raw(init)); }

/// Connects and lists every tool.
struct session {
  connected_server server;
  std::vector<json::object> tools;
};
result<session> open_session(const tools_args& a) {
  auto server = connect(a.target);
  if (!server) return server.error();
  auto tools = server->client->list_all_tools();
  if (!tools) return error{tools.error().code, "tools/list failed: " + tools.error().message};
  return session{std::move(*server), std::move(*tools)};
}

const json::object* find_tool(const session& s, std::string_view name) {
  for (const auto& t : s.tools) {
    if (const auto* n = t.if_contains("name"); n && n->is_string() && n->get_string() == name) {
      return &t;
    }
  }
  return nullptr;
}

std::string no_such_tool(std::string_view name) {
  return "the server has no tool named '" + std::string(name) + "' (mcp-cpp tools list shows them)";
}

int run_list(const tools_args& a) {
  auto s = open_session(a);
  if (!s) return fail(s.error().message);
  if (a.json) {
    json::array tools;
    for (auto& t : s->tools) tools.emplace_back(std::move(t));
    std::cout << to_json_string(json::object{{"tools", std::move(tools)}}) << "\n";
    return exit_ok;
  }
  std::cout << "server: " << server_line(s->server.client->server_result()) << "\n\n";
  print_tool_table(std::cout, s->tools);
  return exit_ok;
}

int run_describe(const tools_args& a) {
  auto s = open_session(a);
  if (!s) return fail(s.error().message);
  const auto* tool = find_tool(*s, a.name);
  if (tool == nullptr) return fail(no_such_tool(a.name));
  if (a.json) {
    std::cout << to_json_string(json::value(*tool)) << "\n";
  } else {
    print_tool_description(std::cout, *tool);
  }
  return exit_ok;
}

// ---- call ----

/// Ctrl-C during a call: SIGINT is blocked in every thread (this one and those started after
/// it), and a watcher thread takes it with sigtimedwait. The first cancels the call once its id
/// is known (or ends the program before anything was sent); a second ends the program.
class interrupt_watch {
 public:
  interrupt_watch() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set_, nullptr);
  }
  ~interrupt_watch() {
    done_.store(true);
    if (thread_.joinable()) thread_.join();
  }
  interrupt_watch(const interrupt_watch&) = delete;
  interrupt_watch& operator=(const interrupt_watch&) = delete;

  /// From now on a Ctrl-C cancels request `id` (once set) through `cancel`.
  void start(std::function<void(std::int64_t)> cancel) {
    thread_ = std::thread([this, cancel = std::move(cancel)] {
      bool cancelled = false;
      while (!done_.load()) {
        timespec wait{0, 100'000'000};
        if (sigtimedwait(&set_, nullptr, &wait) == SIGINT) {
          if (interrupted_.exchange(true)) std::_Exit(exit_usage);  // the second Ctrl-C
          if (!sending_.load()) {
            std::cerr << "\nmcp-cpp: interrupted before the call was sent\n";
            std::_Exit(exit_usage);
          }
        }
        if (interrupted_.load() && !cancelled && id_.load() >= 0) {
          cancelled = true;
          cancel(id_.load());
        }
      }
    });
  }
  void sending() { sending_.store(true); }
  void sent(std::int64_t id) { id_.store(id); }
  [[nodiscard]] bool interrupted() const { return interrupted_.load(); }

 private:
  sigset_t set_{};
  std::thread thread_;
  std::atomic<bool> done_{false};
  std::atomic<bool> sending_{false};
  std::atomic<bool> interrupted_{false};
  std::atomic<std::int64_t> id_{-1};
};

/// Appends one JSON line per call to the --audit file.
class audit_log {
 public:
  bool open(const std::string& path) {
    if (path.empty()) return true;
    file_.open(path, std::ios::app | std::ios::binary);
    return static_cast<bool>(file_);
  }
  void write(const std::string& server, const std::string& tool, const json::object& arguments,
             std::string_view outcome, std::chrono::steady_clock::duration took,
             std::string_view message = {}) {
    if (!file_.is_open()) return;
    json::object line{
        {"time", now_utc()},
        {"server", server},
        {"tool", tool},
        {"arguments", arguments},
        {"outcome", outcome},
        {"duration_ms", std::chrono::duration_cast<std::chrono::milliseconds>(took).count()}};
    if (!message.empty()) line["message"] = message;
    file_ << to_json_string(json::value(std::move(line))) << "\n" << std::flush;
  }

 private:
  static std::string now_utc() {
    const auto now = std::chrono::system_clock::now();
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() %
        1000;
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[40];
    const auto n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    char frac[8];
    std::snprintf(frac, sizeof frac, ".%03dZ", static_cast<int>(ms));
    return std::string(buf, n) + frac;
  }
  std::ofstream file_;
};

/// Asks on the terminal before calling a tool not annotated read-only. False: do not call
/// (after saying why).
bool confirmed(const tools_args& a, const json::object& tool, const json::object& arguments,
               const std::string& server) {
  if (a.yes || read_only(tool)) return true;
  if (::isatty(STDIN_FILENO) == 0) {
    std::cerr << "mcp-cpp: " << a.name
              << " is not annotated read-only; not calling it without confirmation (stdin is "
                 "not a terminal: pass --yes to call it anyway)\n";
    return false;
  }
  std::string shown_badges;
  for (const auto& b : badges(tool)) shown_badges += (shown_badges.empty() ? "" : ", ") + b;
  std::cerr << "Tool " << a.name << " on " << server
            << "\n  annotations (unverified hints): " << shown_badges
            << "\n  arguments: " << pretty_json(json::value(arguments)) << "\n"
            << "Call it? [y/N] " << std::flush;
  std::string answer;
  if (!std::getline(std::cin, answer)) answer.clear();
  if (answer == "y" || answer == "Y" || answer == "yes") return true;
  std::cerr << "mcp-cpp: not called\n";
  return false;
}

/// The progress line on stderr: a bar redrawn in place on a terminal (when the total is
/// known), one line per notification otherwise.
class progress_line {
 public:
  progress_line() : tty_(::isatty(STDERR_FILENO) != 0) {}
  void show(const json::object& p) {
    std::string line = "progress: ";
    const auto* v = p.if_contains("progress");
    const auto* t = p.if_contains("total");
    if (tty_ && v && t && v->is_number() && t->is_number() && t->to_number<double>() > 0) {
      const double part = std::clamp(v->to_number<double>() / t->to_number<double>(), 0.0, 1.0);
      const auto filled = static_cast<std::size_t>(part * 20.0);
      line = "[" + std::string(filled, '#') + std::string(20 - filled, '.') + "] ";
    }
    if (v != nullptr) line += to_json_string(*v);
    if (t != nullptr) line += "/" + to_json_string(*t);
    if (const auto* m = p.if_contains("message"); m && m->is_string()) {
      line += " ";
      line += terminal_safe(m->get_string());
    }
    std::cerr << (tty_ ? "\r\033[K" : "") << line << (tty_ ? "" : "\n") << std::flush;
    shown_ = true;
  }
  void clear() {
    if (tty_ && shown_) std::cerr << "\r\033[K" << std::flush;
  }

 private:
  bool tty_;
  std::atomic<bool> shown_{false};
};

int run_call(const tools_args& a) {
  audit_log audit;
  if (!audit.open(a.audit)) return fail("cannot open the audit file " + a.audit);
  interrupt_watch interrupts;  // before any thread starts: they all inherit the blocked SIGINT
  // Every call that got this far leaves one audit line, whatever stops it.
  std::string server = a.target.url.empty() ? join_command(a.target.command) : a.target.url;
  auto given = build_arguments({}, a.args_json, a.key_values);  // untyped, until the schema
  json::object shown = given ? *given : json::object{};
  auto refuse = [&](std::string_view outcome, const std::string& message) {
    audit.write(server, a.name, shown, outcome, {}, message);
    return fail(message);
  };
  auto s = open_session(a);
  if (!s) return refuse("protocol_error", s.error().message);
  const auto client = s->server.client;
  interrupts.start(
      [client](std::int64_t id) { client->cancel(id, "interrupted by the user (Ctrl-C)"); });
  const auto* tool = find_tool(*s, a.name);
  const json::object unlisted{{"name", a.name}};
  if (tool == nullptr && s->server.oauth && !s->server.oauth->authorization().empty()) {
    // A server that lists only the tools a token may call hides the others; calling one is
    // how the server gets to say which scopes it needs (and the client to step up).
    std::cerr << "mcp-cpp: " << terminal_safe(a.name)
              << " is not listed for this authorization; calling it anyway, unchecked\n";
    tool = &unlisted;
  }
  if (tool == nullptr) return refuse("protocol_error", no_such_tool(a.name));
  const bool as_task = a.task || a.detach || task_support(*tool) == "required";
  if (as_task && task_support(*tool) == "forbidden") {
    return refuse("protocol_error", a.name + " does not run as a task (execution.taskSupport)");
  }
  json::object schema;
  if (const auto* is = tool->if_contains("inputSchema"); is && is->is_object()) {
    schema = is->get_object();
  }
  auto arguments = build_arguments(schema, a.args_json, a.key_values);
  if (!arguments) return refuse("invalid_arguments", arguments.error().message);
  shown = *arguments;
  std::string warning;
  if (auto ok = check_arguments(schema, *arguments, warning); !ok) {
    return refuse("invalid_arguments",
                  "invalid arguments for " + a.name + ": " + ok.error().message);
  }
  if (!warning.empty()) std::cerr << "mcp-cpp: warning: " << warning << "\n";
  if (!confirmed(a, *tool, *arguments, server)) {
    audit.write(server, a.name, *arguments, "denied", {});
    return exit_usage;
  }
  progress_line progress;
  request_options opts;
  opts.on_progress = [&progress](const json::object& p) { progress.show(p); };
  opts.on_sent = [&interrupts](std::int64_t id) { interrupts.sent(id); };
  opts.reset_on_progress = true;  // --timeout is the longest silence; --max-time the whole call
  opts.max_total = std::chrono::milliseconds(static_cast<std::int64_t>(a.max_seconds * 1000.0));
  interrupts.sending();
  const auto t0 = std::chrono::steady_clock::now();
  result<json::object> r = error{errc::internal_error, "not called"};
  if (as_task) {
    // tools/call with params.task: the server answers with the task at once; then
    // tasks/result waits for its end (or --detach leaves it running).
    auto t = client->call_tool_as_task(a.name, *arguments, {}, opts);
    if (!t) {
      audit.write(server, a.name, *arguments, "protocol_error", {}, t.error().message);
      return fail("tools/call as a task failed: " + t.error().message);
    }
    std::cerr << "mcp-cpp: task " << terminal_safe(t->id) << " " << to_string(t->status) << "\n";
    if (a.detach) {
      audit.write(server, a.name, *arguments, "task", {}, "task " + t->id);
      std::cout << terminal_safe(t->id) << "\n";
      return exit_ok;
    }
    // tasks/result answers when the task ends: --max-time bounds the wait (progress belongs to
    // the tools/call that created the task, so it cannot extend it). Ctrl-C or the limit
    // cancels the task itself, not only the wait.
    request_options wait_opts;
    wait_opts.on_sent = opts.on_sent;
    wait_opts.timeout = opts.max_total.count() > 0 ? opts.max_total : std::chrono::hours(24);
    r = client->task_result(t->id, wait_opts);
    if (!r && (interrupts.interrupted() || r.error().is(errc::cancelled) ||
               r.error().is(errc::request_timeout))) {
      (void)client->cancel_task(t->id);
    }
  } else {
    r = client->call_tool(a.name, *arguments, opts);
  }
  const auto took = std::chrono::steady_clock::now() - t0;
  progress.clear();
  if (!r) {
    const auto& e = r.error();
    if (interrupts.interrupted() || e.is(errc::cancelled)) {
      audit.write(server, a.name, *arguments, "cancelled", took, "interrupted by the user");
      return fail("interrupted: the call was cancelled (notifications/cancelled sent)");
    }
    audit.write(server, a.name, *arguments, "protocol_error", took, e.message);
    if (e.is(errc::request_timeout)) {
      return fail("no answer from the server in time (" + e.message +
                  "; see --timeout and --max-time); the call was cancelled");
    }
    return fail("tools/call failed: " + e.message);
  }
  const auto* is_error = r->if_contains("isError");
  const bool tool_error = is_error && is_error->is_bool() && is_error->get_bool();
  audit.write(server, a.name, *arguments, tool_error ? "tool_error" : "ok", took);
  if (a.json) {
    std::cout << to_json_string(json::value(*r)) << "\n";
  } else if (auto printed = print_call_result(std::cout, *r, a.name, a.out_dir); !printed) {
    return fail(printed.error().message);
  }
  if (tool_error) {
    std::cerr << "mcp-cpp: " << a.name << " reported an error (isError)\n";
    return exit_failed;
  }
  return exit_ok;
}

void add_target_options(CLI::App* cmd, tools_args& a) { add_server_options(cmd, a.target, a.json); }

}  // namespace

void add_server_options(CLI::App* cmd, server_target& target, bool& json) {
  auto& a = target;
  cmd->add_option("--url", a.url,
                  "the server's Streamable HTTP endpoint (instead of -- CMD ARGS...)");
  cmd->add_option("--header", a.headers,
                  "'Name: value' sent with every HTTP request, e.g. a token (repeatable)");
  cmd->add_option("--ca-file", a.ca_file,
                  "https: trust the certificates in this PEM file instead of the system's");
  cmd->add_option("--timeout", a.timeout_seconds,
                  "seconds to wait for each answer (for a call: since its last progress)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_flag("--json", json, "print the raw JSON result, for scripts");
  cmd->add_option("--elicit", a.elicit,
                  "how to answer a server asking for input: ask (on a terminal; else decline), "
                  "accept-defaults (a form's defaults), decline")
      ->check(CLI::IsMember({"ask", "accept-defaults", "decline"}))
      ->capture_default_str();
  cmd->add_option("--sampling", a.sampling,
                  "whether the server may ask for a model reply (sampling): none (not offered), "
                  "ask (you type the reply on the terminal)")
      ->check(CLI::IsMember({"none", "ask"}))
      ->capture_default_str();
  cmd->add_option("--protocol", a.protocol,
                  "the MCP revision to speak: legacy (initialize, 2025-11-25 or what the server "
                  "offers), auto (2026-07-28 when the server speaks it, else legacy), or one "
                  "revision exactly (2026-07-28, 2025-11-25, ...)")
      ->check([](const std::string& v) {
        auto p = parse_negotiation(v);
        return p ? std::string() : p.error().message;
      })
      ->capture_default_str();
  cmd->add_option("--root", a.roots,
                  "a directory the server may work in, offered as a root (repeatable)");
  cmd->add_option("--otlp", a.otlp,
                  "send a span of every request to this OpenTelemetry collector (OTLP/HTTP JSON, "
                  "e.g. http://127.0.0.1:4318); the trace context goes to the server in _meta");
  add_oauth_options(cmd, a.oauth);
  cmd->footer(
      "The server: -- CMD ARGS... at the end launches CMD (no shell) and speaks MCP over its "
      "stdin and stdout; or --url URL (a server that asks for OAuth gets it: the authorization "
      "page opens in $BROWSER or xdg-open, and its URL is printed). Exit status: 0 success, 1 the "
      "tool returned an error "
      "(isError), 2 usage, connection or protocol error.");
}

void add_tools_command(CLI::App& app, int& exit_code, std::vector<std::string> server_command) {
  auto* tools = app.add_subcommand(
      "tools",
      "List, describe and call a server's tools. Annotations (read-only, destructive, "
      "idempotent, open-world) are hints from the server, not guarantees: trust them only as "
      "far as you trust the server");
  tools->require_subcommand(1);
  auto args = std::make_shared<tools_args>();
  args->target.command = std::move(server_command);

  auto* list = tools->add_subcommand(
      "list", "A table of the server's tools with their annotation badges and task support");
  add_target_options(list, *args);
  list->callback([args, &exit_code] { exit_code = run_list(*args); });

  auto* describe = tools->add_subcommand(
      "describe", "A tool's description and arguments: type, required, default, range, enum");
  describe->add_option("NAME", args->name, "the tool")->required();
  add_target_options(describe, *args);
  describe->callback([args, &exit_code] { exit_code = run_describe(*args); });

  auto* call = tools->add_subcommand(
      "call",
      "Call a tool. Arguments are checked against its inputSchema before anything is sent. A "
      "tool not annotated read-only is called only after a yes at the prompt (or --yes); the "
      "annotation is the server's unverified hint. Progress is shown on stderr; Ctrl-C cancels "
      "the call (exit status 2)");
  call->add_option("NAME", args->name, "the tool")->required();
  call->add_option("KEY=VALUE", args->key_values,
                   "an argument; VALUE is typed by the tool's inputSchema (numbers, booleans, "
                   "arrays and objects as JSON, strings as they are)");
  call->add_option("--args", args->args_json,
                   "the arguments as one JSON object (KEY=VALUE words apply on top)");
  call->add_option("--max-time", args->max_seconds,
                   "seconds the call may take in all, progress or not (default: no bound; "
                   "--timeout counts from the last progress notification)")
      ->check(CLI::NonNegativeNumber);
  call->add_flag("-y,--yes", args->yes, "call without asking, even a tool not marked read-only");
  call->add_flag("--task", args->task,
                 "run it as a task (tools/call with params.task) and wait for its result; a tool "
                 "that runs only as a task always does");
  call->add_flag("--detach", args->detach,
                 "with a task: print its id and leave it running (see mcp-cpp tasks)");
  call->add_option("--out-dir", args->out_dir,
                   "where images, audio and binary resources are saved (default: .)");
  call->add_option("--audit", args->audit,
                   "append one JSON line per call to FILE: time, server, tool, arguments, "
                   "outcome (ok, tool_error, protocol_error, denied, invalid_arguments, "
                   "cancelled), duration_ms, and message when it did not succeed");
  add_target_options(call, *args);
  call->callback([args, &exit_code] { exit_code = run_call(*args); });
}

}  // namespace mcp::cli
