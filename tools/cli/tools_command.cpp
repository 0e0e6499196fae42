// `mcp-cpp tools list | describe NAME | call NAME KEY=VALUE...` against `-- CMD ARGS...` or
// `--url URL`: the client duties of the MCP Tools page from the shell (arguments checked before
// sending, confirmation before a tool not marked read-only, progress, Ctrl-C cancels, timeouts,
// an audit log).
#include <mcp/audit.hpp>

#include <algorithm>
#include <atomic>
#include <csignal>
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

/// The server's name, version and protocol, safe to show.
std::string server_line(const client_session& c) {
  auto info = c.server_info();
  if (!info) return {};
  return terminal_safe(info->server_info.name + " " + info->server_info.version + " (protocol " +
                       info->protocol_version + ")");
}

/// Connects and lists every tool.
struct session {
  connected_server server;
  std::vector<tool_info> tools;
};
result<session> open_session(const tools_args& a, client_options opts) {
  auto server = connect(a.target, std::move(opts));
  if (!server) return server.error();
  auto tools = server->client->list_tools();
  if (!tools) return error{tools.error().code, "tools/list failed: " + tools.error().message};
  return session{std::move(*server), std::move(*tools)};
}

const tool_info* find_tool(const session& s, std::string_view name) {
  const auto t = std::find_if(s.tools.begin(), s.tools.end(),
                              [&](const tool_info& i) { return i.name == name; });
  return t != s.tools.end() ? &*t : nullptr;
}

std::string no_such_tool(std::string_view name) {
  return "the server has no tool named '" + std::string(name) + "' (mcp-cpp tools list shows them)";
}

/// `--json`: the listing as the server sent it (members the SDK does not model included).
void print_raw_tools(client_session& c, std::string_view only) {
  auto listed = c.tools();  // the listing list_tools just made, not a second one
  if (!listed) return;
  json::array out;
  for (auto& t : *listed) {
    const auto* n = t.if_contains("name");
    if (only.empty() || (n != nullptr && n->is_string() && n->get_string() == only)) {
      out.emplace_back(std::move(t));
    }
  }
  if (only.empty()) {
    std::cout << to_json_string(json::object{{"tools", std::move(out)}}) << "\n";
  } else if (!out.empty()) {
    std::cout << to_json_string(out.front()) << "\n";
  }
}

int run_list(const tools_args& a) {
  auto s = open_session(a, client_options_for(a.target));
  if (!s) return fail(s.error().message);
  if (a.json) {
    print_raw_tools(*s->server.client, {});
    return exit_ok;
  }
  std::cout << "server: " << server_line(*s->server.client) << "\n\n";
  print_tool_table(std::cout, s->tools);
  return exit_ok;
}

int run_describe(const tools_args& a) {
  auto s = open_session(a, client_options_for(a.target));
  if (!s) return fail(s.error().message);
  const auto* tool = find_tool(*s, a.name);
  if (tool == nullptr) return fail(no_such_tool(a.name));
  if (a.json) {
    print_raw_tools(*s->server.client, a.name);
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
  /// The request `id` is out (before it, at the confirmation prompt say, Ctrl-C ends the
  /// program).
  void sent(std::int64_t id) {
    id_.store(id);
    sending_.store(true);
  }
  [[nodiscard]] bool interrupted() const { return interrupted_.load(); }

 private:
  sigset_t set_{};
  std::thread thread_;
  std::atomic<bool> done_{false};
  std::atomic<bool> sending_{false};
  std::atomic<bool> interrupted_{false};
  std::atomic<std::int64_t> id_{-1};
};

/// The --audit file's sink: one line per call, from the client's record of each tools/call
/// (client_options::audit) and from the refusals that never reach the client. `server` names
/// the command line or URL; a JSON-RPC error or no answer is a `protocol_error`.
using audit_sink = std::function<void(call_record)>;
result<audit_sink> open_audit(const std::string& path, const std::string& server) {
  if (path.empty()) return audit_sink([](const call_record&) {});
  auto file = make_audit_file({.path = path});
  if (!file) return file.error();
  return audit_sink([file = std::move(*file), server](call_record r) {
    r.server = server;
    if (r.outcome == "error" || r.outcome == "timeout") r.outcome = "protocol_error";
    file(audit_line(r));
  });
}

/// The confirmation hook (client_options::confirm, through confirm_unless_read_only with the
/// server's annotations believed): asks on the terminal; without one, refuses and says why.
bool ask_on_terminal(const call_confirmation& c, const std::string& server) {
  const std::string name(c.tool);
  if (::isatty(STDIN_FILENO) == 0) {
    std::cerr << "mcp-cpp: " << name
              << " is not annotated read-only; not calling it without confirmation (stdin is "
                 "not a terminal: pass --yes to call it anyway)\n";
    return false;
  }
  const tool_info unlisted{.name = name, .input_schema = {}};
  std::string shown_badges;
  for (const auto& b : badges(c.definition != nullptr ? *c.definition : unlisted)) {
    shown_badges += (shown_badges.empty() ? "" : ", ") + b;
  }
  std::cerr << "Tool " << name << " on " << server
            << "\n  annotations (unverified hints): " << shown_badges
            << "\n  arguments: " << pretty_json(json::value(c.arguments)) << "\n"
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
  // Every call that got this far leaves one audit line, whatever stops it: the client writes
  // those of the calls it makes (denied ones included), this function those it refuses first.
  const std::string server = a.target.url.empty() ? join_command(a.target.command) : a.target.url;
  auto audit = open_audit(a.audit, server);
  if (!audit) return fail("cannot open the audit file " + a.audit);
  interrupt_watch interrupts;  // before any thread starts: they all inherit the blocked SIGINT
  auto given = build_arguments({}, a.args_json, a.key_values);  // untyped, until the schema
  json::object shown = given ? *given : json::object{};
  auto refuse = [&](std::string outcome, const std::string& message) {
    (*audit)({.server = {},
              .tool = a.name,
              .arguments = shown,
              .outcome = std::move(outcome),
              .detail = message,
              .time = std::chrono::system_clock::now()});
    return fail(message);
  };
  client_options copts = client_options_for(a.target);
  copts.audit = *audit;
  copts.trust_server_annotations = true;  // read-only tools run unasked, as the help says
  if (!a.yes) {
    copts.confirm = confirm_unless_read_only(
        [server](const call_confirmation& c) { return ask_on_terminal(c, server); });
  }
  auto s = open_session(a, std::move(copts));
  if (!s) return refuse("protocol_error", s.error().message);
  const auto client = s->server.client;
  interrupts.start(
      [client](std::int64_t id) { client->cancel(id, "interrupted by the user (Ctrl-C)"); });
  const auto* tool = find_tool(*s, a.name);
  const tool_info unlisted{.name = a.name, .input_schema = {}};
  if (tool == nullptr && s->server.oauth && !s->server.oauth->authorization().empty()) {
    // A server that lists only the tools a token may call hides the others; calling one is
    // how the server gets to say which scopes it needs (and the client to step up).
    std::cerr << "mcp-cpp: " << terminal_safe(a.name)
              << " is not listed for this authorization; calling it anyway, unchecked\n";
    tool = &unlisted;
  }
  if (tool == nullptr) return refuse("protocol_error", no_such_tool(a.name));
  const auto mode = tool->task_mode();
  const bool as_task = a.task || a.detach || mode == mcp::task_support::required;
  if (as_task && mode == mcp::task_support::forbidden) {
    return refuse("protocol_error", a.name + " does not run as a task (execution.taskSupport)");
  }
  auto arguments = build_arguments(tool->input_schema, a.args_json, a.key_values);
  if (!arguments) return refuse("invalid_arguments", arguments.error().message);
  shown = *arguments;
  std::string warning;
  if (auto ok = check_arguments(tool->input_schema, *arguments, warning); !ok) {
    return refuse("invalid_arguments",
                  "invalid arguments for " + a.name + ": " + ok.error().message);
  }
  if (!warning.empty()) std::cerr << "mcp-cpp: warning: " << warning << "\n";
  progress_line progress;
  request_options opts;
  opts.on_progress = [&progress](const json::object& p) { progress.show(p); };
  opts.on_sent = [&interrupts](std::int64_t id) { interrupts.sent(id); };
  opts.reset_on_progress = true;  // --timeout is the longest silence; --max-time the whole call
  opts.max_total = std::chrono::milliseconds(static_cast<std::int64_t>(a.max_seconds * 1000.0));
  result<json::object> r = error{errc::internal_error, "not called"};
  if (as_task) {
    // tools/call with params.task: the server answers with the task at once (the client's
    // audit line says "task"); then tasks/result waits for its end, or --detach leaves it.
    auto t = client->call_tool_as_task(a.name, *arguments, {}, opts);
    if (!t && t.error().is(errc::user_rejected)) return exit_usage;
    if (!t) return fail("tools/call as a task failed: " + t.error().message);
    std::cerr << "mcp-cpp: task " << terminal_safe(t->id) << " " << to_string(t->status) << "\n";
    if (a.detach) {
      std::cout << terminal_safe(t->id) << "\n";
      return exit_ok;
    }
    // tasks/result answers when the task ends: --max-time bounds the wait (progress belongs to
    // the tools/call that created the task, so it cannot extend it). Ctrl-C or the limit
    // cancels the task itself, not only the wait.
    request_options wait_opts;
    wait_opts.on_sent = opts.on_sent;
    wait_opts.timeout = opts.max_total.count() > 0 ? opts.max_total : std::chrono::hours(24);
    const auto t0 = std::chrono::steady_clock::now();
    r = client->task_result(t->id, wait_opts);
    if (!r && (interrupts.interrupted() || r.error().is(errc::cancelled) ||
               r.error().is(errc::request_timeout))) {
      (void)client->cancel_task(t->id);
    }
    const auto* e = r ? r->if_contains("isError") : nullptr;
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - t0);
    (*audit)({.server = {},
              .tool = a.name,
              .arguments = *arguments,
              .outcome = !r                                              ? "error"
                         : e != nullptr && e->is_bool() && e->get_bool() ? "tool_error"
                                                                         : "ok",
              .duration = took,
              .detail = r ? std::string() : r.error().message,
              .time = std::chrono::system_clock::now() - took});
  } else {
    r = client->call_tool(a.name, *arguments, opts);
  }
  progress.clear();
  if (!r) {
    const auto& e = r.error();
    if (e.is(errc::user_rejected)) return exit_usage;  // the hook said why
    if (interrupts.interrupted() || e.is(errc::cancelled)) {
      return fail("interrupted: the call was cancelled (notifications/cancelled sent)");
    }
    if (e.is(errc::request_timeout)) {
      return fail("no answer from the server in time (" + e.message +
                  "; see --timeout and --max-time); the call was cancelled");
    }
    return fail("tools/call failed: " + e.message);
  }
  const auto* is_error = r->if_contains("isError");
  const bool tool_error = is_error && is_error->is_bool() && is_error->get_bool();
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
                  "send a span of every request to this OpenTelemetry collector (OTLP/HTTP, "
                  "e.g. http://127.0.0.1:4318; protobuf unless "
                  "OTEL_EXPORTER_OTLP_PROTOCOL=http/json); the trace context goes to the server "
                  "in _meta");
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
