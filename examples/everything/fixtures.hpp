// File: examples/everything/fixtures.hpp
//
// The fixtures of the official MCP conformance suite (@modelcontextprotocol/conformance), built
// from the SDK's public API only: served by the everything server (main.cpp) and by the
// embedded application example (examples/embedded_app.cpp), which mounts them at /mcp in a
// Beast server of its own.
#pragma once

#include <mcp/server.hpp>

#include <cstddef>

namespace everything {

/// The server's options: its identity, and list pages of `page_size` items.
mcp::server_options options(std::size_t page_size = 100);
/// Registers every tool, resource, template and prompt of the suite on `s`.
void add_fixtures(mcp::server& s);

}  // namespace everything
