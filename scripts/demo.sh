#!/usr/bin/env bash
# The main job: builds mcp-cpp (Release) and starts the demo tools server.
#
#   scripts/demo.sh                        MCP over stdio (what MCP clients launch)
#   scripts/demo.sh --http 127.0.0.1:8080  Streamable HTTP on that address
#
# Set-up (Debian packages) is installed on first use when run as root.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
scripts/setup.sh
export MCP_CCACHE="$(command -v ccache || true)"
# Cache hits across checkouts at different paths (CI builds a fresh clone).
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
cmake --preset release >/dev/null
cmake --build --preset release -j"$(nproc)" --target demo_server >&2
bin="$root/build/release/examples/demo_server"
if [[ $# -eq 0 ]]; then
  cat >&2 <<MSG

mcp-cpp demo server, speaking MCP over stdio. To connect a client, configure it to launch:
    $bin
e.g. MCP Inspector:  npx @modelcontextprotocol/inspector --cli --method tools/list -- $bin
For Streamable HTTP: scripts/demo.sh --http 127.0.0.1:8080  (then http://127.0.0.1:8080/mcp)

MSG
fi
exec "$bin" "$@"
