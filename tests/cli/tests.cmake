# The parts of `mcp-cpp tools` that need no server (tools/cli/tools_cli.hpp, in the target
# mcp_cli_parts of tools/cli/tools.cmake, which also runs the command itself at the wire).
mcp_add_test(mcp_cli_tests cli/tools_cli_test.cpp)
target_link_libraries(mcp_cli_tests PRIVATE mcp_cli_parts)
