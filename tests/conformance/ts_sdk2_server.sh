#!/usr/bin/env bash
# Runs the client tests against the TypeScript SDK 2.4.0 server (tests/client/
# ts_sdk2_server_test.cpp, the server tests/conformance/ts_sdk2_server.mjs): installs the pinned
# SDK (tests/conformance/pins/ts-sdk-2.4.0) once into ${MCP_NPM_CACHE:-~/.cache/mcp-cpp-npm}
# (scripts/setup.sh --npm does it ahead of time), puts the script beside its node_modules and
# runs the test binary with MCP_TS2_SERVER naming it.
#   ts_sdk2_server.sh TEST_BINARY [gtest arguments]
# Exit 77 (ctest SKIP_RETURN_CODE) only when node or npm is absent, or when the cache is missing
# and cannot be installed (no network).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
binary="${1:?usage: ts_sdk2_server.sh TEST_BINARY [gtest arguments]}"
shift

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "ts-sdk-2.4.0 server: node/npm not found: SKIPPED"
  exit 77
fi
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if ((node_major < 20)); then
  echo "ts-sdk-2.4.0 server: FAIL: the 2.x server needs Node.js >= 20, found $(node --version)" >&2
  exit 1
fi
if ! dir="$("$here/../../scripts/npm-cache.sh" "$here/pins/ts-sdk-2.4.0")"; then
  echo "ts-sdk-2.4.0 server: the npm cache is missing and npm ci failed" \
    "(offline? run scripts/setup.sh --npm): SKIPPED"
  exit 77
fi
cp "$here/ts_sdk2_server.mjs" "$dir/"  # resolved against the cache's node_modules
MCP_TS2_SERVER="$dir/ts_sdk2_server.mjs" exec "$binary" "$@"
