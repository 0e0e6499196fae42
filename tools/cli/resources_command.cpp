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

/// `--json`: every page of `method`'s listing under `key`, as the server sent it.
result<json::array> raw_listing(client_session& c, std::string_view method, std::string_view key) {
  auto items = c.list_all(method, key);
  if (!items) {
    return error{items.error().code, std::string(method) + " failed: " + items.error().message};
  }
  return json::array(items->begin(), items->end());
}

/// Prints rows of columns, the first padded to the widest, empty columns left out.
void print_rows(const std::vector<std::vector<std::string>>& rows) {
  std::size_t width = 0;
  for (const auto& r : rows) width = std::max(width, r.front().size());
  for (const auto& r : rows) {
    std::string tail;
    for (std::size_t i = 1; i < r.size(); ++i) {
      if (!r[i].empty()) tail += (tail.empty() ? "" : "  ") + r[i];
    }
    std::cout << r.front() << std::string(width - r.front().size() + 2, ' ') << tail << "\n";
  }
}

/// An optional string made safe to show; empty when absent.
std::string shown(const std::optional<std::string>& s) { return s ? terminal_safe(*s) : ""; }

template <class T>
std::vector<std::string> resource_row(const T& r, const std::string& uri) {
  return {terminal_safe(uri), shown(r.mime_type), shown(r.title), shown(r.description)};
}

int run_resources_list(const listing_args& a) {
  auto s = connect(a.target);
  if (!s) return fail(s.error().message);
  if (a.json) {
    auto r = raw_listing(*s->client, "resources/list", "resources");
    auto t = raw_listing(*s->client, "resources/templates/list", "resourceTemplates");
    if (!r || !t) return fail((r ? t.error() : r.error()).message);
    std::cout << json::serialize(json::object{{"resources", *r}, {"resourceTemplates", *t}})
              << "\n";
    return exit_ok;
  }
  auto resources = s->client->list_resources();
  if (!resources) return fail("resources/list failed: " + resources.error().message);
  auto templates = s->client->list_resource_templates();
  if (!templates) return fail("resources/templates/list failed: " + templates.error().message);
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : *resources) rows.push_back(resource_row(r, r.uri));
  print_rows(rows);
  if (!templates->empty()) {
    std::cout << "templates:\n";
    rows.clear();
    for (const auto& t : *templates) rows.push_back(resource_row(t, t.uri_template));
    print_rows(rows);
  }
  return exit_ok;
}

int run_resources_read(const listing_args& a) {
  auto s = connect(a.target);
  if (!s) return fail(s.error().message);
  if (a.json) {
    auto raw = s->client->read_resource(a.name);
    if (!raw) return fail("resources/read " + a.name + " failed: " + raw.error().message);
    std::cout << json::serialize(*raw) << "\n";
    return exit_ok;
  }
  auto r = s->client->read_resource_contents(a.name);
  if (!r) return fail("resources/read " + a.name + " failed: " + r.error().message);
  // Each content shown as an embedded resource of a tool result would be.
  json::array blocks;
  for (const auto& item : r->contents) {
    blocks.emplace_back(json::object{{"type", "resource"}, {"resource", to_json(item)}});
  }
  auto printed = print_call_result(std::cout, json::object{{"content", std::move(blocks)}},
                                   "resource", a.out_dir);
  return printed ? exit_ok : fail(printed.error().message);
}

int run_prompts_list(const listing_args& a) {
  auto s = connect(a.target);
  if (!s) return fail(s.error().message);
  if (a.json) {
    auto raw = raw_listing(*s->client, "prompts/list", "prompts");
    if (!raw) return fail(raw.error().message);
    std::cout << json::serialize(*raw) << "\n";
    return exit_ok;
  }
  auto prompts = s->client->list_prompts();
  if (!prompts) return fail("prompts/list failed: " + prompts.error().message);
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : *prompts) {  // the arguments, required ones marked, as a column
    std::string args;
    for (const auto& arg : p.arguments) {
      args += (args.empty() ? "" : " ") + terminal_safe(arg.name) + (arg.required ? "" : "?");
    }
    rows.push_back({terminal_safe(p.name), args.empty() ? std::string("-") : "(" + args + ")",
                    shown(p.title), shown(p.description)});
  }
  print_rows(rows);
  return exit_ok;
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
  if (a.json) {
    auto raw = s->client->get_prompt(a.name, std::move(arguments));
    if (!raw) return fail("prompts/get " + a.name + " failed: " + raw.error().message);
    std::cout << json::serialize(*raw) << "\n";
    return exit_ok;
  }
  auto r = s->client->get_prompt_messages(a.name, std::move(arguments));
  if (!r) return fail("prompts/get " + a.name + " failed: " + r.error().message);
  if (r->description && !r->description->empty()) std::cout << shown(r->description) << "\n";
  for (const auto& msg : r->messages) {
    std::cout << "--- " << terminal_safe(msg.role) << "\n";
    auto printed = print_call_result(std::cout, json::object{{"content", json::array{msg.content}}},
                                     a.name, a.out_dir);
    if (!printed) return fail(printed.error().message);
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
