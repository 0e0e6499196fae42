#!/usr/bin/env bash
# Runs COMMAND with the TypeScript SDK 2.4.0 at hand, for the tests that use it (the 2.x client
# against our server: ts_sdk2_interop.sh; our client against the 2.x server: ctest
# mcp_conformance_ts_sdk2_server). Installs the pinned SDK (tests/conformance/pins/ts-sdk-2.4.0)
# once into ${MCP_NPM_CACHE:-~/.cache/mcp-cpp-npm} (scripts/setup.sh --npm does it ahead of
# time), puts SCRIPT (a .mjs; a bare name is taken from this directory) beside its node_modules,
# where its imports resolve, and runs COMMAND with MCP_TS2_SCRIPT naming that copy.
#   ts_sdk2.sh SCRIPT.mjs COMMAND [ARGS...]
# Exit 77 (ctest SKIP_RETURN_CODE) only when node or npm is absent, or when the cache is missing
# and cannot be installed (no network); 1 when node is older than 20 (the 2.x SDK needs 20).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
script="${1:?usage: ts_sdk2.sh SCRIPT.mjs COMMAND [ARGS...]}"
shift
if (($# == 0)); then
  echo "usage: ts_sdk2.sh SCRIPT.mjs COMMAND [ARGS...]" >&2
  exit 2
fi
[[ "$script" == */* ]] || script="$here/$script"
name="ts-sdk-2.4.0 ($(basename "$script"))"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "$name: node/npm not found: SKIPPED"
  exit 77
fi
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if ((node_major < 20)); then
  echo "$name: FAIL: the 2.x SDK needs Node.js >= 20, found $(node --version)" >&2
  exit 1
fi
if ! dir="$("$here/../../scripts/npm-cache.sh" "$here/pins/ts-sdk-2.4.0")"; then
  echo "$name: the npm cache is missing and npm ci failed (offline? run scripts/setup.sh --npm):" \
    "SKIPPED"
  exit 77
fi
cp "$script" "$dir/"
MCP_TS2_SCRIPT="$dir/$(basename "$script")" exec "$@"
