#!/usr/bin/env bash
# Interop tests of the Streamable HTTP server with clients written by others, run by ctest:
#
#   run.sh ts-sdk    DEMO_SERVER   # @modelcontextprotocol/sdk client over HTTP and stdio: list,
#                                  # call, progress, tasks
#   run.sh inspector DEMO_SERVER   # MCP Inspector CLI: tools/list and tools/call
#   run.sh ts-sdk-bearer DEMO_SERVER  # the SDK client with JWT bearer tokens against the demo as
#                                  # a protected resource (keys and tokens: tests/support/jwt.sh)
#
# The npm packages are pinned by package.json + package-lock.json beside this script and
# installed once (npm ci) into ${MCP_NPM_CACHE:-$HOME/.cache/mcp-cpp-npm}/http-interop-<hash>.
# Exit 77 (ctest SKIP_RETURN_CODE) only when node or npm is absent; anything else that goes
# wrong, including a failed install, is a failure.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mode="${1:?usage: run.sh ts-sdk|ts-sdk-bearer|inspector DEMO_SERVER}"
demo="${2:?usage: run.sh ts-sdk|ts-sdk-bearer|inspector DEMO_SERVER}"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "interop: node/npm not found: SKIPPED"
    exit 77
fi

cache="${MCP_NPM_CACHE:-$HOME/.cache/mcp-cpp-npm}"
hash="$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -c1-12)"
dir="$cache/http-interop-$hash"
mkdir -p "$dir"
(
    flock 9  # ctest may run both tests at once
    if [[ ! -f "$dir/.installed" ]]; then
        cp "$here/package.json" "$here/package-lock.json" "$dir/"
        (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) >&2
        touch "$dir/.installed"
    fi
) 9>"$dir.lock"

work="$(mktemp -d)"
pid=""
cleanup() {
    [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

flags=(--http 127.0.0.1:0 --task-store "$work/tasks.db")
if [[ "$mode" == ts-sdk-bearer ]]; then
    # shellcheck source=../support/jwt.sh
    source "$here/../support/jwt.sh"
    jwt_keys "$work"
    flags+=(--jwks "$work/jwks.json" --issuer https://auth.interop --audience https://demo.interop/mcp
            --scope mcp)
fi
# shellcheck source=../support/serve.sh
source "$here/../support/serve.sh"
start_server "$work/demo.err" "$demo" "${flags[@]}" ||
    { echo "interop: the demo server did not start:" >&2; cat "$work/demo.err" >&2; exit 1; }
echo "interop: demo server at $url"

case "$mode" in
ts-sdk)
    cp "$here/ts-sdk-client.mjs" "$dir/"  # resolved against the cache's node_modules
    timeout 120 node "$dir/ts-sdk-client.mjs" "$url"
    timeout 120 node "$dir/ts-sdk-client.mjs" --stdio "$demo"
    ;;
ts-sdk-bearer)
    cp "$here/ts-sdk-bearer.mjs" "$dir/"
    aud=https://demo.interop/mcp
    timeout 120 node "$dir/ts-sdk-bearer.mjs" "$url" \
        "$(jwt_token "$work" EdDSA https://auth.interop "$aud" mcp)" \
        "$(jwt_token "$work" RS256 https://auth.interop "$aud" "mcp demo.admin")"
    ;;
inspector)
    export CI=true HOME="$work/home"
    mkdir -p "$HOME"
    inspector=(timeout 120 node "$dir/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js" --cli --format json)
    check() {  # what, expected substring, output
        if [[ "$3" != *"$2"* ]]; then
            echo "interop: FAIL: $1: expected $2 in: $3" >&2
            exit 1
        fi
        echo "interop: ok: $1"
    }
    out="$("${inspector[@]}" "$url" --method tools/list </dev/null)"
    check "tools/list" '"name":"echo"' "$out"
    check "tools/list" '"name":"slow_count"' "$out"
    out="$("${inspector[@]}" "$url" --method tools/call --tool-name echo --tool-arg text=inspected </dev/null)"
    check "tools/call echo" '"text":"inspected"' "$out"
    out="$("${inspector[@]}" "$url" --method tools/call --tool-name slow_count --tool-arg steps=2 --tool-arg step_ms=10 </dev/null)"
    check "tools/call slow_count" '"completed":2' "$out"
    out="$("${inspector[@]}" "$url" --method tools/call --tool-name forecast --tool-arg city=Oslo --tool-arg days=2 </dev/null)"
    check "tools/call forecast" '"city":"Oslo"' "$out"
    set +e
    out="$("${inspector[@]}" "$url" --method tools/call --tool-name fail --tool-arg reason=x </dev/null 2>&1)"
    rc=$?
    set -e
    [[ $rc -eq 5 ]] || { echo "interop: FAIL: tools/call fail exited $rc, expected 5 (tool_is_error): $out" >&2; exit 1; }
    echo "interop: ok: tools/call fail (isError, exit 5)"
    ;;
*)
    echo "interop: unknown mode $mode" >&2
    exit 2
    ;;
esac
echo "interop: $mode PASSED"
