#!/usr/bin/env bash
# Runs ts_sdk2_interop.mjs (the TypeScript SDK 2.4.0 client, pinned in
# tests/conformance/pins/ts-sdk-2.4.0) against the demo server over stdio (the client starts it)
# and over Streamable HTTP (one server on an ephemeral port), in each versionNegotiation mode:
# auto and { pin: '2026-07-28' } must negotiate 2026-07-28, legacy 2025-11-25. Every run is
# made, and each failure named, before the script fails.
#   ts_sdk2_interop.sh DEMO_SERVER
# The pinned SDK is installed through ts_sdk2.sh (npm ci once into
# ${MCP_NPM_CACHE:-~/.cache/mcp-cpp-npm}), which also decides when the test is SKIPPED (exit 77).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
server="${1:?usage: ts_sdk2_interop.sh DEMO_SERVER}"

# The pinned SDK installed, this script beside it (MCP_TS2_SCRIPT): see ts_sdk2.sh.
if [[ "${MCP_TS2_SCRIPT:-}" != */ts_sdk2_interop.mjs ]]; then
  exec "$here/ts_sdk2.sh" ts_sdk2_interop.mjs "$here/ts_sdk2_interop.sh" "$@"
fi

work="$(mktemp -d)"
pid=""
cleanup() {
  [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

failed=()
run() {  # run KIND TARGET MODE
  if ! timeout 120 node "$MCP_TS2_SCRIPT" "$@"; then failed+=("$1 $3"); fi
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
