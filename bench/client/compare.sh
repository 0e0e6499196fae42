#!/usr/bin/env bash
# The client side against its references, same machine, same run, interleaved (bench/RESULTS.md,
# "Client"):
#   - calls/s of our client (client_calls) and of the TypeScript SDK client (ts_client_calls.mjs,
#     the SDK pinned in tests/interop) against the same demo server, over stdio and HTTP, one
#     call at a time and 16 in flight;
#   - 16 calls in flight from one thread (client_calls stdio-async / http-async);
#   - the same calls one at a time with no client library at all (bare_calls.cpp): what the
#     server and the transport leave for any client;
#   - wall time of `mcp-cpp tools list -- demo_server` and of the MCP Inspector's CLI (pinned in
#     tests/interop) doing the same, whole processes.
#
#   bench/client/compare.sh BUILD_DIR [ROUNDS] [CALLS]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$(cd "${1:?usage: compare.sh BUILD_DIR [ROUNDS] [CALLS]}" && pwd)"
rounds="${2:-3}"
n="${3:-50000}"  # long enough for Node.js to compile the TS client's hot code (RESULTS.md)
demo="$build/examples/demo_server"
calls="$build/bench/client_calls"
bare="$build/bench/bare_calls"
cli="$build/tools/mcp-cpp"
npm_dir="$("$root/scripts/npm-cache.sh" "$root/tests/interop")"
cp "$here/ts_client_calls.mjs" "$npm_dir/"
inspector="$npm_dir/node_modules/.bin/mcp-inspector"

log="$(mktemp)"
"$demo" --http 127.0.0.1:0 --no-rate-limit --task-store :memory: 2>"$log" &
pid=$!
trap 'kill $pid 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 1 100); do
  url="$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$log" | head -n1)"
  [[ -n "$url" ]] && break
  sleep 0.1
done

# Milliseconds of one run of a command (its output discarded).
ms() {
  local t0 t1
  t0=$(date +%s%N)
  "$@" >/dev/null 2>&1
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000000))
}

for round in $(seq 1 "$rounds"); do
  echo "== round $round"
  "$bare" stdio "$n" -- "$demo" --no-rate-limit --task-store :memory:
  "$bare" http "$n" "$url"
  for w in 1 16; do
    "$calls" stdio "$n" "$w" -- "$demo" --no-rate-limit --task-store :memory:
    node --no-warnings "$npm_dir/ts_client_calls.mjs" stdio "$n" "$w" -- "$demo" --no-rate-limit --task-store :memory:
    "$calls" http "$n" "$w" "$url"
    node --no-warnings "$npm_dir/ts_client_calls.mjs" http "$n" "$w" "$url"
  done
  # 16 in flight from one thread, as the TypeScript client keeps 16 promises (call_tool_async).
  "$calls" stdio-async "$n" 16 -- "$demo" --no-rate-limit --task-store :memory:
  "$calls" http-async "$n" 16 "$url"
  ours=() theirs=()
  for _ in 1 2 3 4 5; do
    ours+=("$(ms "$cli" tools list -- "$demo" --no-rate-limit --task-store :memory:)")
    theirs+=("$(ms node "$inspector" --cli "$demo" --no-rate-limit --task-store :memory: --method tools/list)")
  done
  echo "tools list wall time, ms: mcp-cpp ${ours[*]}; Inspector CLI ${theirs[*]}"
done
