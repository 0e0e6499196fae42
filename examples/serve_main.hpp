// The tail of an example's main(): serve Streamable HTTP at HOST:PORT when one is given,
// otherwise stdio.
#pragma once

#include <mcp/http_server.hpp>
#include <mcp/server.hpp>

#include <cstdio>
#include <memory>
#include <string>

namespace examples {

/// Serves `server` until it stops; returns the process exit code. `name` prefixes messages
/// on stderr (stdout belongs to the stdio transport).
inline int serve(mcp::server& server, const std::string& http, mcp::http_server_options opts,
                 const char* name) {
  if (http.empty()) {
    std::fprintf(stderr, "%s: speaking MCP over stdio (Ctrl-D to stop)\n", name);
    return server.serve_stdio();
  }
  if (!mcp::set_listen_address(opts, http)) {
    std::fprintf(stderr, "%s: --http needs HOST:PORT (e.g. 127.0.0.1:8080), not '%s'\n", name,
                 http.c_str());
    return 2;
  }
  opts.handle_signals = true;  // Ctrl-C or SIGTERM: a clean stop
  std::unique_ptr<mcp::http_server> srv;
  try {
    srv = std::make_unique<mcp::http_server>(server, std::move(opts));
  } catch (const std::exception& e) {  // unusable TLS files
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 1;
  }
  if (auto started = srv->start(); !started) {
    std::fprintf(stderr, "%s: %s\n", name, started.error().message.c_str());
    return 1;
  }
  std::fprintf(stderr, "%s: listening on %s\n", name, srv->url().c_str());
  return srv->serve();
}

}  // namespace examples
