// Command groups of the mcp-cpp tool. Each `add_*_command` adds a subcommand to `app` whose
// callback stores the process exit status in `exit_code`.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "tools_cli.hpp"

namespace mcp::cli {

/// `schema validate SCHEMA_FILE INSTANCE_FILE...`: validates JSON instances.
void add_schema_command(CLI::App& app, int& exit_code);

/// `tools list | describe NAME | call NAME KEY=VALUE...`: a server's tools, against
/// `server_command` (what followed `--` on the command line) or `--url URL`.
void add_tools_command(CLI::App& app, int& exit_code, std::vector<std::string> server_command);

/// The options naming a server and how to talk to it (--url, --header, --timeout, --json,
/// --elicit, the OAuth options), into `target` and `json`.
void add_server_options(CLI::App* cmd, server_target& target, bool& json);

/// `resources list | read URI` and `prompts list | get NAME KEY=VALUE...` against a server.
void add_resources_command(CLI::App& app, int& exit_code, std::vector<std::string> server_command);
void add_prompts_command(CLI::App& app, int& exit_code, std::vector<std::string> server_command);
/// `watch [--resource URI]... [--count N] [--for SECONDS]`: the server's notifications of
/// changes as JSON lines, in either era (watch_command.cpp).
void add_watch_command(CLI::App& app, int& exit_code, std::vector<std::string> server_command);
/// `bridge --url URL`: a Streamable HTTP server served over stdio; `bridge --listen HOST:PORT
/// -- CMD ARGS`: a stdio server served over Streamable HTTP.
void add_bridge_command(CLI::App& app, int& exit_code, std::vector<std::string> server_command);

/// What `bridge --listen` serves and how.
struct bridge_listen_args {
  std::string listen;                ///< HOST:PORT
  std::vector<std::string> command;  ///< the stdio server, one child process per HTTP session
  std::vector<std::string> allowed_origins;
  std::vector<std::string> allowed_hosts;
  std::size_t max_sessions = 32;    ///< each is a process
  std::size_t max_requests = 4096;  ///< per session, sent to its child and not answered yet
  double idle_seconds = 1800;
};
/// Serves until SIGINT/SIGTERM (bridge_listen.cpp). Returns the exit status.
int run_bridge_listen(const bridge_listen_args& a);

/// `inspect`: an interactive session with a server.
void add_inspect_command(CLI::App& app, int& exit_code, std::vector<std::string> server_command);

/// `tasks list | get ID | result ID | cancel ID` against a server.
void add_tasks_command(CLI::App& app, int& exit_code, std::vector<std::string> server_command);

/// The OAuth options (--client-id, --scope, --token-store, ...) on `cmd`, into `o`.
void add_oauth_options(CLI::App* cmd, oauth_settings& o);

/// `auth login | logout | status --url URL`: OAuth sign-in to a server ahead of use, forgetting
/// it, and what is stored (never the tokens themselves).
void add_auth_command(CLI::App& app, int& exit_code);

}  // namespace mcp::cli
