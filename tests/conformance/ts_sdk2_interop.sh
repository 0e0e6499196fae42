#!/usr/bin/env bash
# Runs ts_sdk2_interop.mjs (the TypeScript SDK 2.4.0 client, pinned in
# tests/conformance/pins/ts-sdk-2.4.0) against the demo server over stdio (the client starts it)
# and over Streamable HTTP (one server on an ephemeral port), in each versionNegotiation mode:
# auto and { pin: '2026-07-28' } must negotiate 2026-07-28, legacy 2025-11-25. Every run is
# made, and each failure named, before the script fails.
#   ts_sdk2_interop.sh DEMO_SERVER
# The npm packages are installed once (npm ci) into ${MCP_NPM_CACHE:-~/.cache/mcp-cpp-npm}
# (scripts/setup.sh --npm does it ahead of time). Exit 77 (ctest SKIP_RETURN_CODE) only when
# node or npm is absent, or when the cache is missing and cannot be installed (no network).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
server="${1:?usage: ts_sdk2_interop.sh DEMO_SERVER}"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "ts-sdk-2.4.0 interop: node/npm not found: SKIPPED"
  exit 77
fi
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if ((node_major < 20)); then
  echo "ts-sdk-2.4.0 interop: FAIL: the 2.x client needs Node.js >= 20, found $(node --version)" >&2
  exit 1
fi
if ! dir="$("$here/../../scripts/npm-cache.sh" "$here/pins/ts-sdk-2.4.0")"; then
  echo "ts-sdk-2.4.0 interop: the npm cache is missing and npm ci failed" \
    "(offline? run scripts/setup.sh --npm): SKIPPED"
  exit 77
fi
cp "$here/ts_sdk2_interop.mjs" "$dir/"  # resolved against the cache's node_modules

work="$(mktemp -d)"
pid=""
cleanup() {
  [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

failed=()
run() {  # run KIND TARGET MODE
  if ! timeout 120 node "$dir/ts_sdk2_interop.mjs" "$@"; then failed+=("$1 $3"); fi
}
for mode in auto pin legacy; do
  run stdio "$server" "$mode"
done

# shellcheck source=../support/serve.sh
source "$here/../support/serve.sh"
if start_server "$work/server.err" "$server" --http 127.0.0.1:0 --page-size 3 \
  --task-store :memory:; then
  for mode in auto pin legacy; do
    run http "$url" "$mode"
  done
  kill "$pid" && wait "$pid" 2>/dev/null || true
  pid=""
else
  echo "ts-sdk-2.4.0 interop: FAIL: the demo server did not start:" >&2
  cat "$work/server.err" >&2
  failed+=("http (no server)")
fi

if ((${#failed[@]} > 0)); then
  echo "ts-sdk-2.4.0 interop: FAILED: $(IFS=,; echo "${failed[*]}")" >&2
  exit 1
fi
echo "ts-sdk-2.4.0 interop: PASSED (stdio and HTTP; auto, pin, legacy)"
