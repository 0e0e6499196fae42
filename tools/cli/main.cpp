// mcp-cpp: the SDK's command-line tool. Each command group registers itself on the CLI11 app
// (see commands.hpp); adding a group means one more `add_..._command` call below.
//
// Exit status: 0 success, 1 a check failed (e.g. an invalid instance), 2 usage or input error.
#include <CLI/CLI.hpp>

#include <iostream>

#include "commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"mcp-cpp: tools for the mcp-cpp Model Context Protocol SDK"};
  app.require_subcommand(1);
  int exit_code = 0;
  mcp::cli::add_schema_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    (void)app.exit(e);
    return mcp::cli::exit_usage;
  }
  return exit_code;
}
