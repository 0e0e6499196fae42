// Command groups of the mcp-cpp tool. Each `add_*_command` adds a subcommand to `app` whose
// callback stores the process exit status in `exit_code`.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace mcp::cli {

inline constexpr int exit_ok = 0;
inline constexpr int exit_failed = 1;  ///< the command ran and found a problem
inline constexpr int exit_usage = 2;   ///< bad arguments, unreadable input, schema error

/// `schema validate SCHEMA_FILE INSTANCE_FILE...`: validates JSON instances.
void add_schema_command(CLI::App& app, int& exit_code);

/// `tools list | describe NAME | call NAME KEY=VALUE...`: a server's tools, against
/// `server_command` (what followed `--` on the command line) or `--url URL`.
void add_tools_command(CLI::App& app, int& exit_code, std::vector<std::string> server_command);

}  // namespace mcp::cli
