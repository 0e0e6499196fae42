#!/usr/bin/env bash
# mcp-cpp against the TypeScript SDK's reference server (../shared/bench/ts-ref-server.mjs: tools
# echo and add), both SDK lines (v1, v2): over stdio; over Streamable HTTP, stateful and
# stateless; the stdio server over HTTP behind `mcp-cpp bridge --listen`; and the HTTP server
# over stdio through `mcp-cpp bridge --url`, with mcp-cpp as the stdio client.
#
#   ts_ref_server.sh MCP_CPP
# Exit 77 (SKIPPED) when ../shared/bench or its SDK (../shared/bench/setup.sh) is absent.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cli="${1:?usage: ts_ref_server.sh MCP_CPP}"
ref="$here/../../../shared/bench/ts-ref-server.mjs"
cache="${MCP_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-bench}"
if [[ ! -f "$ref" ]] || ! command -v node >/dev/null || [[ ! -f "$cache/sdk-loader.mjs" ]]; then
  echo "ts-ref-server: needs ../shared/bench/ts-ref-server.mjs and its SDK (../shared/bench/setup.sh): SKIPPED"
  exit 77
fi
dir="$(mktemp -d)"
pid=""
cleanup() {
  [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
fail() {
  echo "FAIL ($pass): $*"
  for f in "$dir"/out "$dir"/server.log; do [[ -f "$f" ]] && { echo "--- $f"; cat "$f"; }; done
  exit 1
}
free_port() {
  node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => {
    console.log(s.address().port); s.close(); });'
}
# check ARGS...: mcp-cpp lists the two tools and calls both, against the server ARGS name.
check() {
  timeout 60 "$cli" tools list "$@" </dev/null >"$dir/out" 2>&1 || fail "tools list: exit $?"
  grep -q "^2 tools\." "$dir/out" || fail "tools list: not 2 tools"
  out=$(timeout 60 "$cli" tools call echo text=interop --yes "$@" </dev/null 2>"$dir/out") ||
    fail "tools call echo: exit $?"
  [[ "$out" == interop ]] || fail "echo gave '$out'"
  out=$(timeout 60 "$cli" tools call add a=2 b=3.5 --yes "$@" </dev/null 2>"$dir/out") ||
    fail "tools call add: exit $?"
  [[ "$out" == 5.5 ]] || fail "add gave '$out'"
  # A bad argument is refused here, with the schema's reason, before anything is sent.
  timeout 60 "$cli" tools call add a=two b=1 --yes "$@" </dev/null >"$dir/out" 2>&1
  [[ $? == 2 ]] || fail "a bad argument was not a usage error"
  echo "ts-ref-server ($pass): OK"
}
# start_http ARGS...: the server ARGS in the background; waits for its port ($port).
start_http() {
  "$@" >"$dir/server.log" 2>&1 </dev/null &
  pid=$!
  for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return
    sleep 0.1
  done
  fail "the server did not listen on $port"
}
stop() { kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; pid=""; }

for sdk in v1 v2; do
  pass="$sdk stdio"
  check -- node "$ref" stdio --sdk "$sdk"
  for state in stateful stateless; do
    pass="$sdk http $state"
    port=$(free_port)
    start_http node "$ref" http --sdk "$sdk" --port "$port" "--$state"
    check --url "http://127.0.0.1:$port/mcp"
    if [[ $state == stateful ]]; then
      pass="$sdk http $state, through bridge --url"
      check -- "$cli" bridge --url "http://127.0.0.1:$port/mcp"
    fi
    stop
  done
  pass="$sdk stdio, through bridge --listen"
  port=$(free_port)
  start_http "$cli" bridge --listen "127.0.0.1:$port" -- node "$ref" stdio --sdk "$sdk"
  check --url "http://127.0.0.1:$port/mcp"
  stop
done
