#!/usr/bin/env bash
# The demo server with observation off, with metrics (--metrics) and with traces exported
# (--otlp, to a loopback collector that answers 200 and drops the body), interleaved through
# the kit's compare.mjs, over stdio and over Streamable HTTP (stateless). For bench/RESULTS.md:
# calls/s and the server's CPU per call of each against "off" in the same run.
#   compare.sh DEMO_SERVER [ROUNDS] [CALLS_PER_ROUND] [HTTP_SECONDS]
# With MCP_BASELINE_DEMO set to another build of the demo, its six rows (before-*) are measured
# in the same rounds, for before/after figures. Instructions per call: instructions.sh.
# Needs: node, wrk (Debian package wrk).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
kit="${MCP_BENCH_KIT:-$here/../../../shared/bench}"
demo="$(realpath "${1:?usage: compare.sh DEMO_SERVER [ROUNDS] [CALLS_PER_ROUND] [HTTP_SECONDS]}")"
rounds="${2:-3}"
calls="${3:-100000}"
seconds="${4:-8}"
work="$(mktemp -d)"
collector=""
cleanup() {
  [[ -n "$collector" ]] && kill "$collector" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# A collector that costs as little as possible (reads the body, answers {}).
node "$here/null-collector.mjs" 18390 &
collector=$!
otlp=http://127.0.0.1:18390
d="$(printf '%q' "$demo") --no-rate-limit --task-store :memory:"
cat >"$work/servers.txt" <<SERVERS
off-stdio      stdio  -                           $d
metrics-stdio  stdio  -                           $d --metrics 127.0.0.1:0
traces-stdio   stdio  -                           $d --metrics 127.0.0.1:0 --otlp $otlp
off-http       http   http://127.0.0.1:18391/mcp  $d --http 127.0.0.1:18391 --stateless
metrics-http   http   http://127.0.0.1:18392/mcp  $d --http 127.0.0.1:18392 --stateless --metrics 127.0.0.1:0
traces-http    http   http://127.0.0.1:18393/mcp  $d --http 127.0.0.1:18393 --stateless --metrics 127.0.0.1:0 --otlp $otlp
SERVERS
if [[ -n "${MCP_BASELINE_DEMO:-}" ]]; then
  b="$(printf '%q' "$(realpath "$MCP_BASELINE_DEMO")") --no-rate-limit --task-store :memory:"
  cat >>"$work/servers.txt" <<SERVERS
before-off-stdio      stdio  -                           $b
before-metrics-stdio  stdio  -                           $b --metrics 127.0.0.1:0
before-traces-stdio   stdio  -                           $b --metrics 127.0.0.1:0 --otlp $otlp
before-off-http       http   http://127.0.0.1:18396/mcp  $b --http 127.0.0.1:18396 --stateless
before-metrics-http   http   http://127.0.0.1:18397/mcp  $b --http 127.0.0.1:18397 --stateless --metrics 127.0.0.1:0
before-traces-http    http   http://127.0.0.1:18398/mcp  $b --http 127.0.0.1:18398 --stateless --metrics 127.0.0.1:0 --otlp $otlp
SERVERS
fi
node "$kit/compare.mjs" "$work/servers.txt" --runs "$rounds" --n "$calls" --duration "$seconds" \
  --ref-stdio off-stdio --ref-http off-http
