// `mcp-cpp resources list | read URI` and `mcp-cpp prompts list | get NAME KEY=VALUE...`: a
// server's resources, resource templates and prompts from the shell, against `-- CMD ARGS` or
// `--url URL` as for tools. Contents are shown as tool results are (render.cpp): text as text
// made terminal-safe, binary contents saved to files; `--json` prints the raw result.
#include <boost/json/serialize.hpp>

#include <iostream>
#include <memory>

#include "commands.hpp"
#include "tools_cli.hpp"

namespace mcp::cli {

namespace {

struct listing_args {
  server_target target;
  bool json = false;
  std::string name;  ///< a URI or a prompt name
  std::vector<std::string> key_values;
  std::string out_dir = ".";
};

/// Prints `items` as lines of `first` (padded) and the rest, or as JSON.
int print_items(const std::vector<json::object>& items, bool as_json, std::string_view first,
                std::initializer_list<std::string_view> rest) {
  if (as_json) {
    json::array a;
    for (const auto& i : items) a.emplace_back(i);
    std::cout << json::serialize(a) << "\n";
    return exit_ok;
  }
  std::size_t width = 0;
  for (const auto& i : items) width = std::max(width, string_at(i, first).size());
  for (const auto& i : items) {
    auto head = string_at(i, first);
    std::cout << head << std::string(width - head.size() + 2, ' ');
    std::string tail;
    for (auto k : rest) {
      if (auto v = string_at(i, k); !v.empty()) tail += (tail.empty() ? "" : "  ") + v;
    }
    std::cout << tail << "\n";
  }
  return exit_ok;
}

int run_resources_list(const listing_args& a) {
  auto s = connect(a.target);
  if (!s) return fail(s.error().message);
  auto resources = s->client->list_all("resources/list", "resources");
  if (!resources) return fail("resources/list failed: " + resources.error().message);
  auto templates = s->client->list_all("resources/templates/list", "resourceTemplates");
  if (!templates) return fail("resources/templates/list failed: " + templates.error().message);
  if (a.json) {
    json::array r, t;
    for (auto& x : *resources) r.emplace_back(std::move(x));
    for (auto& x : *templates) t.emplace_back(std::move(x));
    std::cout << json::serialize(
                     json::object{{"resources", std::move(r)}, {"resourceTemplates", std::move(t)}})
              << "\n";
    return exit_ok;
  }
  print_items(*resources, false, "uri", {"mimeType", "title", "description"});
  if (!templates->empty()) {
    std::cout << "templates:\n";
    print_items(*templates, false, "uriTemplate", {"mimeType", "title", "description"});
  }
  return exit_ok;
}

int run_resources_read(const listing_args& a) {
  auto s = connect(a.target);
  if (!s) return fail(s.error().message);
  auto r = s->client->read_resource(a.name);
  if (!r) return fail("resources/read " + a.name + " failed: " + r.error().message);
  if (a.json) {
    std::cout << json::serialize(*r) << "\n";
    return exit_ok;
  }
  // Each content shown as an embedded resource of a tool result would be.
  json::array blocks;
  if (const auto* c = r->if_contains("contents"); c != nullptr && c->is_array()) {
    for (const auto& item : c->get_array()) {
      blocks.emplace_back(json::object{{"type", "resource"}, {"resource", item}});
    }
  }
  auto shown = print_call_result(std::cout, json::object{{"content", std::move(blocks)}},
                                 "resource", a.out_dir);
  return shown ? exit_ok : fail(shown.error().message);
}

int run_prompts_list(const listing_args& a) {
  auto s = connect(a.target);
  if (!s) return fail(s.error().message);
  auto prompts = s->client->list_all("prompts/list", "prompts");
  if (!prompts) return fail("prompts/list failed: " + prompts.error().message);
  if (a.json) return print_items(*prompts, true, "name", {});
  for (auto& p : *prompts) {  // the arguments, required ones marked, as a column
    std::string args;
    if (const auto* list = p.if_contains("arguments"); list != nullptr && list->is_array()) {
      for (const auto& arg : list->get_array()) {
        if (!arg.is_object()) continue;
        const auto* req = arg.get_object().if_contains("required");
        args += (args.empty() ? "" : " ") + string_at(arg.get_object(), "name") +
                (req != nullptr && req->is_bool() && req->get_bool() ? "" : "?");
      }
    }
    p["(arguments)"] = args.empty() ? std::string("-") : "(" + args + ")";
  }
  return print_items(*prompts, false, "name", {"(arguments)", "title", "description"});
}

int run_prompts_get(const listing_args& a) {
  json::object arguments;
  for (const auto& kv : a.key_values) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) return fail("expected KEY=VALUE, got '" + kv + "'");
    arguments[kv.substr(0, eq)] = kv.substr(eq + 1);  // prompt arguments are strings
  }
  auto s = connect(a.target);
  if (!s) return fail(s.error().message);
  auto r = s->client->get_prompt(a.name, std::move(arguments));
  if (!r) return fail("prompts/get " + a.name + " failed: " + r.error().message);
  if (a.json) {
    std::cout << json::serialize(*r) << "\n";
    return exit_ok;
  }
  if (auto d = string_at(*r, "description"); !d.empty()) std::cout << d << "\n";
  if (const auto* m = r->if_contains("messages"); m != nullptr && m->is_array()) {
    for (const auto& msg : m->get_array()) {
      if (!msg.is_object()) continue;
      std::cout << "--- " << string_at(msg.get_object(), "role") << "\n";
      const auto* content = msg.get_object().if_contains("content");
      if (content == nullptr) continue;
      auto shown = print_call_result(std::cout, json::object{{"content", json::array{*content}}},
                                     a.name, a.out_dir);
      if (!shown) return fail(shown.error().message);
    }
  }
  return exit_ok;
}

/// A subcommand of `group` with the server options and `run` as its action.
CLI::App* command(CLI::App* group, const char* name, const char* help,
                  const std::shared_ptr<listing_args>& args, int& exit_code,
                  int (*run)(const listing_args&)) {
  auto* cmd = group->add_subcommand(name, help);
  add_server_options(cmd, args->target, args->json);
  cmd->callback([args, &exit_code, run] { exit_code = run(*args); });
  return cmd;
}

}  // namespace

void add_resources_command(CLI::App& app, int& exit_code, std::vector<std::string> server_command) {
  auto* group = app.add_subcommand("resources", "List and read a server's resources");
  group->require_subcommand(1);
  auto args = std::make_shared<listing_args>();
  args->target.command = std::move(server_command);
  command(group, "list", "The resources and resource templates", args, exit_code,
          run_resources_list);
  auto* read = command(group, "read", "A resource's contents (binary ones saved to files)", args,
                       exit_code, run_resources_read);
  read->add_option("URI", args->name, "the resource's URI")->required();
  read->add_option("--out-dir", args->out_dir, "where binary contents are saved")
      ->capture_default_str();
}

void add_prompts_command(CLI::App& app, int& exit_code, std::vector<std::string> server_command) {
  auto* group = app.add_subcommand("prompts", "List a server's prompts and get one");
  group->require_subcommand(1);
  auto args = std::make_shared<listing_args>();
  args->target.command = std::move(server_command);
  command(group, "list", "The prompts with their arguments (? marks optional ones)", args,
          exit_code, run_prompts_list);
  auto* get = command(group, "get", "A prompt's messages, its arguments given as KEY=VALUE", args,
                      exit_code, run_prompts_get);
  get->add_option("NAME", args->name, "the prompt's name")->required();
  get->add_option("KEY=VALUE", args->key_values, "the prompt's arguments (strings)");
  get->add_option("--out-dir", args->out_dir, "where binary contents are saved")
      ->capture_default_str();
}

}  // namespace mcp::cli
