// `mcp-cpp tasks list | get ID | result ID | cancel ID`: the tasks a server runs for this caller
// (MCP 2025-11-25 tasks), against `-- CMD ARGS` or `--url URL` as for tools. Which tasks a
// caller sees is the server's rule: ours binds a task to the caller's principal (with OAuth, the
// token's subject; over stdio, the local user of a server whose task store outlives the
// process), or to the HTTP session without authentication (then only the session that made it).
#include <boost/json/serialize.hpp>

#include <iostream>
#include <memory>

#include "commands.hpp"
#include "tools_cli.hpp"

namespace mcp::cli {

namespace {

struct tasks_args {
  server_target target;
  bool json = false;
  std::string id;
  std::string out_dir = ".";
};

json::object task_json(const task_info& t) {
  json::object o{{"taskId", t.id},
                 {"status", std::string(to_string(t.status))},
                 {"createdAt", t.created_at},
                 {"lastUpdatedAt", t.last_updated_at}};
  if (!t.status_message.empty()) o["statusMessage"] = t.status_message;
  if (t.ttl_ms) o["ttl"] = *t.ttl_ms;
  return o;
}

void print_task(const task_info& t) {
  std::cout << terminal_safe(t.id) << "  " << to_string(t.status) << "  "
            << terminal_safe(t.created_at);
  if (!t.status_message.empty()) std::cout << "  " << terminal_safe(t.status_message);
  std::cout << "\n";
}

/// Connects, runs `body` on the client; a connection error is exit 2.
template <class Body>
int with_client(const tasks_args& a, Body&& body) {
  auto s = connect(a.target);
  if (!s) return fail(s.error().message);
  return body(*s->client);
}

int run_list(const tasks_args& a) {
  return with_client(a, [&](client_session& c) {
    auto tasks = c.list_all_tasks();
    if (!tasks) return fail("tasks/list failed: " + tasks.error().message);
    if (a.json) {
      json::array out;
      for (const auto& t : *tasks) out.emplace_back(task_json(t));
      std::cout << json::serialize(out) << "\n";
    } else {
      for (const auto& t : *tasks) print_task(t);
    }
    return exit_ok;
  });
}

int run_get(const tasks_args& a) {
  return with_client(a, [&](client_session& c) {
    auto t = c.get_task(a.id);
    if (!t) return fail("tasks/get " + a.id + " failed: " + t.error().message);
    if (a.json) {
      std::cout << json::serialize(task_json(*t)) << "\n";
    } else {
      print_task(*t);
    }
    return exit_ok;
  });
}

int run_result(const tasks_args& a) {
  return with_client(a, [&](client_session& c) {
    auto r = c.task_result(a.id);  // waits for the task's end (the client's --timeout)
    if (!r) return fail("tasks/result " + a.id + " failed: " + r.error().message);
    if (a.json) {
      std::cout << json::serialize(*r) << "\n";
    } else if (auto shown = print_call_result(std::cout, *r, "task", a.out_dir); !shown) {
      return fail(shown.error().message);
    }
    const auto* e = r->if_contains("isError");
    return e != nullptr && e->is_bool() && e->get_bool() ? exit_failed : exit_ok;
  });
}

int run_cancel(const tasks_args& a) {
  return with_client(a, [&](client_session& c) {
    auto t = c.cancel_task(a.id);
    if (!t) return fail("tasks/cancel " + a.id + " failed: " + t.error().message);
    print_task(*t);
    return exit_ok;
  });
}

}  // namespace

void add_tasks_command(CLI::App& app, int& exit_code, std::vector<std::string> server_command) {
  auto* group = app.add_subcommand(
      "tasks", "The tasks a server runs for this caller: list, get, result, cancel");
  group->require_subcommand(1);
  auto args = std::make_shared<tasks_args>();
  args->target.command = std::move(server_command);
  auto add = [&](const char* name, const char* help, int (*run)(const tasks_args&), bool id) {
    auto* cmd = group->add_subcommand(name, help);
    add_server_options(cmd, args->target, args->json);
    if (id) cmd->add_option("ID", args->id, "the task's id")->required();
    cmd->callback([args, &exit_code, run] { exit_code = run(*args); });
    return cmd;
  };
  add("list", "Every task with its status", run_list, false);
  add("get", "One task's status", run_get, true);
  add("result", "Waits for the task's end and shows its result (exit 1 for isError)", run_result,
      true)
      ->add_option("--out-dir", args->out_dir, "where images and audio are saved")
      ->capture_default_str();
  add("cancel", "Cancels a task that is still running", run_cancel, true);
}

}  // namespace mcp::cli
