#!/usr/bin/env bash
# mcp-cpp against a server no one here wrote: the reference @modelcontextprotocol/server-everything
# (pinned in tests/interop/package.json), over stdio, over Streamable HTTP, and over Streamable
# HTTP to `mcp-cpp bridge --listen`, which runs it over stdio behind (a child per session). Every tool is
# listed and called (with arguments its schema asks for; progress, structured content, images,
# resource links and references, an elicitation answered with its defaults, a tool that runs only
# as a task), resources are listed and read, prompts listed and got.
#
#   server_everything.sh MCP_CPP
# Exit 77 (SKIPPED) only when node or npm is absent.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cli="${1:?usage: server_everything.sh MCP_CPP}"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "server-everything: node/npm not found: SKIPPED"
  exit 77
fi
npm_dir="$("$here/../../scripts/npm-cache.sh" "$here")" || exit 1
# shellcheck source=../support/serve.sh
source "$here/../support/serve.sh"
server="$npm_dir/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
dir="$(mktemp -d)"
pid=""
cleanup() {
  [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
fail() {
  echo "FAIL ($transport): $*"
  for f in "$dir"/out "$dir"/err; do [[ -f "$f" ]] && { echo "--- $f"; cat "$f"; }; done
  exit 1
}

# mcp-cpp GROUP ARGS... against the server of this pass; output in $dir/out and $dir/err.
run() {
  local group="$1"
  shift
  if [[ "$transport" == stdio ]]; then
    timeout 60 "$cli" "$group" "$@" -- node "$server" stdio </dev/null >"$dir/out" 2>"$dir/err"
  else
    timeout 60 "$cli" "$group" "$@" --url "$url" </dev/null >"$dir/out" 2>"$dir/err"
  fi
}
# expect WORDS -- PATTERN: the command succeeds and its output matches PATTERN.
expect() {
  local args=() pattern
  while [[ "$1" != "--" ]]; do args+=("$1"); shift; done
  pattern="$2"
  run "${args[@]}" || fail "mcp-cpp ${args[*]}: exit status $?"
  grep -Eq -e "$pattern" "$dir/out" "$dir/err" || fail "mcp-cpp ${args[*]}: no '$pattern'"
}

for transport in stdio http listen; do
  if [[ "$transport" == listen ]]; then
    start_server "$dir/server.log" "$cli" bridge --listen 127.0.0.1:0 -- node "$server" stdio ||
      fail "the bridge printed no URL: $(cat "$dir/server.log")"
  elif [[ "$transport" == http ]]; then
    port="$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => {
      console.log(s.address().port); s.close(); });')"
    PORT="$port" node "$server" streamableHttp >"$dir/server.log" 2>&1 &
    pid=$!
    url="http://127.0.0.1:$port/mcp"
    for _ in $(seq 1 100); do
      grep -q "listening on port" "$dir/server.log" && break
      sleep 0.1
    done
  fi
  expect tools list -- "^1[0-9] tools\."
  expect tools call echo message=hi -- "Echo: hi"
  expect tools call get-sum a=2 b=3 -- "5"
  expect tools call get-annotated-message messageType=error -- "[Ee]rror"
  expect tools call get-env -- "."
  expect tools call get-resource-links count=2 -- "\[link "
  expect tools call get-resource-reference resourceType=Text resourceId=1 -- "\[resource "
  expect tools call get-structured-content location=Chicago -- "structured content:"
  expect tools call get-tiny-image --out-dir "$dir" -- "\[image saved to "
  expect tools call trigger-long-running-operation duration=1 steps=3 -- "progress"
  # Its form requires a name with no default: --elicit accept-defaults declines it.
  expect tools call trigger-elicitation-request --yes --elicit accept-defaults -- "declined"
  expect tools call simulate-research-query topic=mcp --yes -- "task [^ ]+ (working|completed)"
  expect tools call toggle-simulated-logging --yes -- "."
  # trigger-url-elicitation: a URL elicitation, which --elicit accept-defaults declines.
  expect tools call trigger-url-elicitation url=https://example.com --yes --elicit accept-defaults \
    -- "."
  # gzip-file-as-resource fetches from the internet: called with data that is not a URL.
  run tools call gzip-file-as-resource name=x.gz data=hello --yes
  [[ $? -le 1 ]] || fail "gzip-file-as-resource: a protocol error"
  expect resources list -- "demo://resource/static/document/|://"
  first_uri="$(grep -Eo '^[a-z]+://[^ ]+' "$dir/out" | head -n1)"
  [[ -n "$first_uri" ]] || fail "resources list shows no URI"
  expect resources read "$first_uri" -- "\[resource "
  expect prompts list -- "simple-prompt|simple_prompt"
  simple="$(grep -Eo '^simple[-_]prompt' "$dir/out" | head -n1)"
  expect prompts get "$simple" -- "--- user"
  echo "server-everything ($transport): OK"
  [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  pid=""
done
