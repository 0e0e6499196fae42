#!/usr/bin/env bash
# Our client in the 2026-07-28 era against the TypeScript SDK 2.4.0 client pinned to 2026-07-28,
# and against our own client in the 2025-11-25 era: calls/s of `tools/call echo` over Streamable
# HTTP, one call at a time (how a host calls tools), the same demo server for all three, rounds
# interleaved (bench/RESULTS.md, "Client in 2026-07-28"). The load average before and after each
# round is printed: the figures mean little on a busy machine.
#
#   bench/client/modern.sh BUILD_DIR [ROUNDS] [CALLS]
#
# BUILD_DIR holds examples/demo_server and bench/client_calls (preset ci builds both). The
# TypeScript client is installed from tests/conformance/pins/ts-sdk-2.4.0 into the npm cache
# (scripts/npm-cache.sh; network the first time).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$(cd "${1:?usage: modern.sh BUILD_DIR [ROUNDS] [CALLS]}" && pwd)"
rounds="${2:-3}"
n="${3:-20000}"  # long enough for Node.js to compile the TS client's hot code
demo="$build/examples/demo_server"
calls="$build/bench/client_calls"
for f in "$demo" "$calls"; do
  [[ -x "$f" ]] || { echo "modern.sh: $f is missing (cmake --build --preset ci --target demo_server client_calls)" >&2; exit 2; }
done
npm_dir="$("$root/scripts/npm-cache.sh" "$root/tests/conformance/pins/ts-sdk-2.4.0")"
cp "$here/ts2_client_calls.mjs" "$npm_dir/"

log="$(mktemp)"
"$demo" --http 127.0.0.1:0 --no-rate-limit --task-store :memory: 2>"$log" &
pid=$!
trap 'kill $pid 2>/dev/null; rm -f "$log"' EXIT
url=""
for _ in $(seq 1 100); do
  url="$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$log" | head -n1)"
  [[ -n "$url" ]] && break
  sleep 0.1
done
[[ -n "$url" ]] || { echo "modern.sh: the demo server did not start:" >&2; cat "$log" >&2; exit 1; }

# Each client's own CPU (user + system, the process and its threads; not the server's) for the
# whole run, connection and start-up included: less sensitive to a busy machine than calls/s.
TIMEFORMAT='  client CPU: %U s user + %S s system'
echo "nproc $(nproc); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq 1 "$rounds"); do
  echo "== round $round (load $(cut -d' ' -f1-3 /proc/loadavg))"
  time "$calls" http-modern "$n" 1 "$url"
  time node --no-warnings "$npm_dir/ts2_client_calls.mjs" "$n" 1 "$url"
  time "$calls" http "$n" 1 "$url"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
