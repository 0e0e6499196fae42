#!/usr/bin/env bash
# Runs ts_sdk_interop.mjs (the TypeScript SDK client, pinned in tests/interop/package.json)
# against the everything server over stdio, then over Streamable HTTP, then (given MCP_CPP) over
# stdio to `mcp-cpp bridge --url`, which speaks HTTP to the same server, and over HTTP to
# `mcp-cpp bridge --listen`, which runs the server over stdio behind it.
#   ts_sdk_interop.sh EVERYTHING_SERVER [MCP_CPP]
# Exit 77 (ctest SKIP_RETURN_CODE) only when node or npm is absent.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
server="${1:?usage: ts_sdk_interop.sh EVERYTHING_SERVER [MCP_CPP]}"
cli="${2:-}"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "ts-sdk-interop: node/npm not found: SKIPPED"
  exit 77
fi
dir="$("$here/../../scripts/npm-cache.sh" "$here/../interop")"
cp "$here/ts_sdk_interop.mjs" "$dir/"  # resolved against the cache's node_modules

timeout 120 node "$dir/ts_sdk_interop.mjs" stdio "$server"

work="$(mktemp -d)"
pid=""
cleanup() {
  [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
# shellcheck source=../support/serve.sh
source "$here/../support/serve.sh"
start() {
  start_server "$work/server.err" "$@" ||
    { echo "ts-sdk-interop: the server did not start:" >&2; cat "$work/server.err" >&2; exit 1; }
}
start "$server" --http 127.0.0.1:0 --page-size 3
timeout 120 node "$dir/ts_sdk_interop.mjs" http "$url"
if [[ -n "$cli" ]]; then
  timeout 120 node "$dir/ts_sdk_interop.mjs" bridge "$cli" "$url"
  kill "$pid" && wait "$pid" 2>/dev/null || true
  start "$cli" bridge --listen 127.0.0.1:0 -- "$server" --page-size 3
  timeout 120 node "$dir/ts_sdk_interop.mjs" listen "$url"
  # The session ended (DELETE): its child is shut down, and the bridge stops cleanly.
  kill "$pid" && wait "$pid" || { echo "ts-sdk-interop: the bridge exited badly" >&2; exit 1; }
  pid=""
fi
