#!/usr/bin/env bash
# Runs trace-e2e.mjs (the TypeScript SDK and OpenTelemetry's JS tracer, pinned in package.json
# beside it) against the demo server and the mcp-cpp command.
#   run.sh DEMO_SERVER MCP_CPP
# Exit 77 (ctest SKIP_RETURN_CODE) only when node or npm is absent.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
demo="${1:?usage: run.sh DEMO_SERVER MCP_CPP}"
cli="${2:?usage: run.sh DEMO_SERVER MCP_CPP}"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "trace-e2e: node/npm not found: SKIPPED"
  exit 77
fi
dir="$("$here/../../../scripts/npm-cache.sh" "$here")"
cp "$here/trace-e2e.mjs" "$dir/"  # resolved against the cache's node_modules
timeout 120 node "$dir/trace-e2e.mjs" check "$demo" "$cli"
