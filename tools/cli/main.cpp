// mcp-cpp: the SDK's command-line tool. Each command group registers itself on the CLI11 app
// (see commands.hpp); adding a group means one more `add_..._command` call below.
//
// In the command groups that talk to a server, everything after the first `--` is the command
// line of the server to launch (`mcp-cpp tools list -- demo_server`); CLI11 parses what comes
// before it. Elsewhere `--` keeps its usual meaning (the end of the options).
//
// Exit status: 0 success, 1 a check failed (an invalid instance, a tool error), 2 usage, input,
// connection or protocol error.
#include <CLI/CLI.hpp>

#include <chrono>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "commands.hpp"
#include "tools_cli.hpp"

int main(int argc, char** argv) {
  CLI::App app{"mcp-cpp: tools for the mcp-cpp Model Context Protocol SDK"};
  app.require_subcommand(1);
  int exit_code = 0;
  int own_args = argc;
  std::vector<std::string> server_command;
  const std::string_view group = argc > 1 ? std::string_view(argv[1]) : std::string_view();
  const bool talks_to_a_server = group == "tools" || group == "resources" || group == "prompts" ||
                                 group == "tasks" || group == "inspect" || group == "bridge" ||
                                 group == "watch";
  for (int i = 1; talks_to_a_server && i < argc; ++i) {
    if (std::string_view(argv[i]) == "--") {
      own_args = i;
      server_command.assign(argv + i + 1, argv + argc);
      break;
    }
  }
  mcp::cli::add_auth_command(app, exit_code);
  mcp::cli::add_bridge_command(app, exit_code, server_command);
  mcp::cli::add_schema_command(app, exit_code);
  mcp::cli::add_prompts_command(app, exit_code, server_command);
  mcp::cli::add_resources_command(app, exit_code, server_command);
  mcp::cli::add_tasks_command(app, exit_code, server_command);
  mcp::cli::add_inspect_command(app, exit_code, server_command);
  mcp::cli::add_watch_command(app, exit_code, server_command);
  mcp::cli::add_tools_command(app, exit_code, std::move(server_command));
  try {
    app.parse(own_args, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    (void)app.exit(e);
    return mcp::cli::exit_usage;
  } catch (const std::exception& e) {  // e.g. a token store that cannot be written
    std::cerr << "mcp-cpp: " << e.what() << "\n";
    return mcp::cli::exit_usage;
  }
  mcp::cli::wait_for_prompts(std::chrono::seconds(1));  // each session is closed by now
  return exit_code;
}
