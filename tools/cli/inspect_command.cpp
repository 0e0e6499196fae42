// `mcp-cpp inspect`: an interactive session with one server (-- CMD ARGS or --url URL). It says
// what the server exposes, then reads commands, one per line:
//
//   tools | describe NAME | call NAME | resources | read URI | prompts | get NAME | help | quit
//
// `call` asks for each argument of the tool's inputSchema in turn (type, whether required, the
// default shown: Enter takes it or leaves an optional argument out), types the answers by the
// schema, checks them, shows the call and asks before a tool that is not read-only, then shows
// progress and the result. Lines come from stdin, so the session can be driven by a terminal
// (tmux), a pipe or a script; everything the server says is made terminal-safe.
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "commands.hpp"
#include "tools_cli.hpp"

namespace mcp::cli {

namespace {

struct inspect_args {
  server_target target;
  bool json = false;  // unused
};

std::string text_of(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

/// Reads one answer; nullopt at the end of input.
std::optional<std::string> ask(const std::string& question) {
  std::cout << question << std::flush;
  std::string line;
  if (!std::getline(std::cin, line)) return std::nullopt;
  return line;
}

/// One inspect session on a connected server.
class session {
 public:
  explicit session(connected_server s) : server_(std::move(s)) {}

  void run() {
    greet();
    std::string line;
    const auto read_command = [&line] {
      std::cout << "mcp> " << std::flush;
      set_prompt_reading(true);
      const bool got = static_cast<bool>(std::getline(std::cin, line));
      set_prompt_reading(false);
      return got;
    };
    while (read_command()) {
      std::istringstream in(line);
      std::string cmd, arg;
      in >> cmd;
      std::getline(in >> std::ws, arg);
      if (cmd.empty()) continue;
      if (cmd == "quit" || cmd == "exit") break;
      dispatch(cmd, arg);
    }
    std::cout << "\n";
  }

 private:
  client_session& client() { return *server_.client; }

  void greet() {
    auto init = client().server_info();
    if (!init) return say("initialize: " + init.error().message);
    std::cout << "connected to "
              << terminal_safe(init->server_info.name + " " + init->server_info.version) << " ("
              << terminal_safe(init->protocol_version) << ")\n";
    if (init->instructions && !init->instructions->empty()) {
      std::cout << terminal_safe(*init->instructions) << "\n";
    }
    const auto& caps = init->capabilities;
    std::string exposes;
    if (caps.tools) exposes += " tools";
    if (caps.resources) exposes += " resources";
    if (caps.prompts) exposes += " prompts";
    std::cout << "it offers:" << (exposes.empty() ? " nothing listed" : exposes)
              << ". Type help for the commands.\n";
  }

  void dispatch(const std::string& cmd, const std::string& arg) {
    if (cmd == "help") {
      std::cout << "tools | describe NAME | call NAME | resources | read URI | prompts | "
                   "get NAME | quit\n";
    } else if (cmd == "tools") {
      if (auto t = client().list_tools()) {
        print_tool_table(std::cout, *t);
      } else {
        say("tools/list failed: " + t.error().message);
      }
    } else if (cmd == "describe" || cmd == "call") {
      auto t = client().list_tools();
      if (!t) return say("tools/list failed: " + t.error().message);
      const auto tool =
          std::find_if(t->begin(), t->end(), [&](const tool_info& i) { return i.name == arg; });
      if (tool == t->end()) return say("no tool named '" + arg + "' (tools lists them)");
      if (cmd == "describe") return print_tool_description(std::cout, *tool);
      call(*tool);
    } else if (cmd == "resources") {
      list("resources/list", client().list_resources(), &resource_info::uri);
      list("resources/templates/list", client().list_resource_templates(),
           &resource_template_info::uri_template);
    } else if (cmd == "read") {
      auto r = client().read_resource_contents(arg);
      if (!r) return say("resources/read failed: " + r.error().message);
      json::array blocks;
      for (const auto& item : r->contents) {
        blocks.emplace_back(json::object{{"type", "resource"}, {"resource", to_json(item)}});
      }
      show(json::object{{"content", std::move(blocks)}}, "resource");
    } else if (cmd == "prompts") {
      list("prompts/list", client().list_prompts(), &prompt_info::name);
    } else if (cmd == "get") {
      get_prompt(arg);
    } else {
      say("unknown command '" + cmd + "' (help lists them)");
    }
  }

  static void say(const std::string& message) { std::cout << terminal_safe(message) << "\n"; }

  template <class T>
  void list(std::string_view method, const result<std::vector<T>>& items, std::string T::*name) {
    if (!items) return say(std::string(method) + " failed: " + items.error().message);
    for (const auto& i : *items) {
      std::cout << "  " << terminal_safe(i.*name);
      if (i.description && !i.description->empty()) {
        std::cout << "  " << terminal_safe(*i.description);
      }
      std::cout << "\n";
    }
  }

  void show(const json::object& result, const std::string& name) {
    if (auto shown = print_call_result(std::cout, result, name, "."); !shown) {
      say(shown.error().message);
    }
  }

  void call(const tool_info& tool) {
    const auto& name = tool.name;
    const auto& schema = tool.input_schema;
    std::vector<std::string> required;
    if (const auto* r = schema.if_contains("required"); r != nullptr && r->is_array()) {
      for (const auto& n : r->get_array()) {
        if (n.is_string()) required.emplace_back(n.get_string());
      }
    }
    // KEY=VALUE words from the answers, typed by the schema as on the command line.
    std::vector<std::string> words;
    if (const auto* props = schema.if_contains("properties"); props && props->is_object()) {
      for (const auto& [key, value] : props->get_object()) {
        const std::string k(key);
        const auto* p = value.if_object();
        const bool needed = std::find(required.begin(), required.end(), k) != required.end();
        std::string q = "  " + terminal_safe(k);
        if (p != nullptr) {
          if (auto t = text_of(*p, "type"); !t.empty()) q += " (" + terminal_safe(t) + ")";
          if (auto d = text_of(*p, "description"); !d.empty()) q += " " + terminal_safe(d);
          if (const auto* def = p->if_contains("default")) {
            q += " [default " + terminal_safe(json::serialize(*def)) + "]";
          }
        }
        q += needed ? ", required: " : ": ";
        auto answer = ask(q);
        if (!answer) return;
        if (!answer->empty()) words.push_back(k + "=" + *answer);
      }
    }
    auto arguments = build_arguments(schema, {}, words);
    if (!arguments) return say(arguments.error().message);
    std::string warning;
    if (auto ok = check_arguments(schema, *arguments, warning); !ok) {
      return say("not called: " + ok.error().message);
    }
    std::cout << "call " << terminal_safe(name) << " " << pretty_json(json::value(*arguments))
              << "\n";
    request_options opts;
    opts.on_progress = [](const json::object& p) {
      std::cout << "  progress "
                << (p.contains("progress") ? json::serialize(p.at("progress")) : "?")
                << (p.contains("total") ? " of " + json::serialize(p.at("total")) : "") << "\n"
                << std::flush;
    };
    opts.reset_on_progress = true;
    const auto t0 = std::chrono::steady_clock::now();
    result<json::object> r = error{errc::internal_error, "not called"};
    if (tool.task_mode() ==
        task_support::required) {  // runs only as a task: start it, wait for its end
      auto t = client().call_tool_as_task(name, *arguments, {}, opts);
      if (!t && t.error().is(errc::user_rejected)) return say("not called");
      if (!t) return say("tools/call as a task failed: " + t.error().message);
      say("task " + t->id + " started");
      r = client().task_result(t->id, opts);
    } else {
      r = client().call_tool(name, *arguments, opts);
    }
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
            .count();
    if (!r && r.error().is(errc::user_rejected)) return say("not called");
    if (!r) return say("tools/call failed: " + r.error().message);
    show(*r, name);
    const auto* e = r->if_contains("isError");
    std::cout << "(" << (e != nullptr && e->is_bool() && e->get_bool() ? "tool error, " : "") << ms
              << " ms)\n";
  }

  void get_prompt(const std::string& name) {
    auto prompts = client().list_prompts();
    if (!prompts) return say("prompts/list failed: " + prompts.error().message);
    const auto p = std::find_if(prompts->begin(), prompts->end(),
                                [&](const prompt_info& i) { return i.name == name; });
    if (p == prompts->end()) return say("no prompt named '" + name + "' (prompts lists them)");
    json::object arguments;
    for (const auto& a : p->arguments) {
      auto answer = ask("  " + terminal_safe(a.name) + ": ");
      if (!answer) return;
      if (!answer->empty()) arguments[a.name] = *answer;
    }
    auto r = client().get_prompt_messages(name, std::move(arguments));
    if (!r) return say("prompts/get failed: " + r.error().message);
    for (const auto& msg : r->messages) {
      std::cout << "--- " << terminal_safe(msg.role) << "\n";
      show(json::object{{"content", json::array{msg.content}}}, name);
    }
  }

  connected_server server_;
};

}  // namespace

void add_inspect_command(CLI::App& app, int& exit_code, std::vector<std::string> server_command) {
  auto* cmd = app.add_subcommand(
      "inspect",
      "An interactive session with a server: list, describe, call (asking for each "
      "argument), read, get");
  auto args = std::make_shared<inspect_args>();
  args->target.command = std::move(server_command);
  add_server_options(cmd, args->target, args->json);
  cmd->callback([args, &exit_code] {
    // A tool not marked read-only is called after a yes (the client's confirmation hook).
    auto opts = client_options_for(args->target);
    opts.trust_server_annotations = true;
    opts.confirm = confirm_unless_read_only([](const call_confirmation&) {
      auto yes = ask("  it is not marked read-only (hints are unverified). Call it? [y/N] ");
      return yes && (*yes == "y" || *yes == "yes");
    });
    auto s = connect(args->target, std::move(opts));
    if (!s) {
      std::cerr << "mcp-cpp: " << terminal_safe(s.error().message) << "\n";
      exit_code = exit_usage;
      return;
    }
    session(std::move(*s)).run();
    exit_code = exit_ok;
  });
}

}  // namespace mcp::cli
