// File: mcp/version.hpp
//
// The version of mcp-cpp: macros for the headers you compile against, functions for the library
// you run with. The two differ only when a program built against one release runs with the
// shared library of another; `mcp::version()` tells which one is loaded.
//
// This header is where the version is set: CMake reads MCP_VERSION_MAJOR/MINOR/PATCH from it
// for `project(mcp VERSION ...)`, the shared libraries' SONAME and the package version files.
// Releases follow docs/packaging.md ("Versions"); CHANGELOG.md says what each one changed.
//
// Example:
//
//   #if MCP_VERSION < MCP_MAKE_VERSION(0, 2, 0)
//   #error "needs mcp-cpp 0.2 or newer"
//   #endif
//   std::printf("mcp-cpp %s (headers %s), MCP %s\n", std::string(mcp::version()).c_str(),
//               MCP_VERSION_STRING, std::string(mcp::protocol_revisions().front()).c_str());
#pragma once

/// \file
/// The version of the mcp-cpp headers (macros) and of the library a program runs with.

#include <span>
#include <string_view>

/// Major version: 0 while the API may still change between minor releases.
#define MCP_VERSION_MAJOR 0
/// Minor version: for 0.x releases, a new minor may change the API and the ABI.
#define MCP_VERSION_MINOR 1
/// Patch version: fixes only, same API and ABI.
#define MCP_VERSION_PATCH 0

/// Version x.y.z as one integer, for `#if`: MCP_MAKE_VERSION(0, 1, 0) is 1000.
#define MCP_MAKE_VERSION(x, y, z) ((x)*1000000 + (y)*1000 + (z))
/// The version of these headers as one integer (see MCP_MAKE_VERSION).
#define MCP_VERSION MCP_MAKE_VERSION(MCP_VERSION_MAJOR, MCP_VERSION_MINOR, MCP_VERSION_PATCH)

#define MCP_DETAIL_STRINGIFY2(x) #x
#define MCP_DETAIL_STRINGIFY(x) MCP_DETAIL_STRINGIFY2(x)
/// The version of these headers as a string literal, "MAJOR.MINOR.PATCH".
#define MCP_VERSION_STRING                \
  MCP_DETAIL_STRINGIFY(MCP_VERSION_MAJOR) \
  "." MCP_DETAIL_STRINGIFY(MCP_VERSION_MINOR) "." MCP_DETAIL_STRINGIFY(MCP_VERSION_PATCH)

namespace mcp {

/// The version of the library the program runs with, "MAJOR.MINOR.PATCH" (MCP_VERSION_STRING
/// when it was built). Thread-safe; never fails.
[[nodiscard]] std::string_view version() noexcept;

/// The MCP protocol revisions the library speaks, newest first (the same list as
/// `supported_protocol_versions()`). Thread-safe (a constant table); never fails.
[[nodiscard]] std::span<const std::string_view> protocol_revisions() noexcept;

}  // namespace mcp
