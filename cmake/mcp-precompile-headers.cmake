# mcp_precompile_headers(<target> [HEADERS <header>...]): an opt-in precompiled header for a
# program that uses mcp-cpp. The SDK's public headers (and the Boost and standard headers they
# include) are compiled once per target into a precompiled header, and every source file of
# <target> starts from it, so that editing a tool's body recompiles only that body. HEADERS
# defaults to <mcp/server.hpp>; give more (e.g. <mcp/client.hpp>, <mcp/asio.hpp>) for the
# headers your sources include. Available after find_package(mcp) and after add_subdirectory of
# mcp-cpp; <target> must link mcp::mcp (or a component that needs it).
#
#   add_executable(weather main.cpp)
#   target_link_libraries(weather PRIVATE mcp::mcp)
#   mcp_precompile_headers(weather)
#
# This is target_precompile_headers(<target> PRIVATE <headers>): CMake 3.16 or newer, with any
# compiler CMake knows how to precompile for (GCC, Clang, MSVC).
function(mcp_precompile_headers target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "HEADERS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "mcp_precompile_headers: unexpected arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "mcp_precompile_headers: no target '${target}'")
  endif()
  if(NOT arg_HEADERS)
    set(arg_HEADERS <mcp/server.hpp>)
  endif()
  target_precompile_headers(${target} PRIVATE ${arg_HEADERS})
endfunction()
