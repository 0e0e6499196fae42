#!/usr/bin/env bash
# Instructions per `tools/call echo` of the server over Streamable HTTP (callgrind: the count does
# not depend on the machine's load), for the three paths era_compare.sh times:
#   2025-stateful  a 2025-11-25 session      2025-stateless  the demo with --stateless
#   2026           self-contained 2026-07-28 requests (`_meta` and the Mcp-* headers)
# The demo runs under valgrind with one I/O thread; one keep-alive connection (era_calls.py)
# makes 200 calls to warm up, the counters are zeroed, 2,000 calls are counted, dumped. With
# CONNECTIONS=C in the environment, C keep-alive connections take the calls in turn; with
# DEMO_ARGS (e.g. "--metrics 127.0.0.1:0"), the demo gets those flags too; ERA_PORT sets the
# ports' base (19850), for runs side by side.
#   era_callgrind.sh DEMO_SERVER [RUNS]     prints: <path> <instructions per call>, per run
# Needs: valgrind, python3, curl.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
demo="${1:?usage: era_callgrind.sh DEMO_SERVER [RUNS]}"
runs="${2:-1}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
port="${ERA_PORT:-19850}"  # the first server's is the next one
warm=200 counted=2000 conns="${CONNECTIONS:-1}"

count() {  # NAME ERA STATEFUL [FLAG]
  local name="$1" era="$2" stateful="$3" flag="${4:-}"
  port=$((port + 1))
  local url="http://127.0.0.1:$port/mcp" file="$out/$name.$port"
  valgrind --tool=callgrind --callgrind-out-file="$file" \
    "$demo" --http "127.0.0.1:$port" --no-rate-limit --io-threads 1 $flag ${DEMO_ARGS:-} >/dev/null 2>&1 &
  local pid=$!
  for _ in $(seq 1 100); do curl -s -o /dev/null "$url" && break; sleep 0.3; done
  python3 "$here/era_calls.py" "$url" "$era" "$stateful" "$warm" "$conns" || { kill "$pid"; return 1; }
  callgrind_control -z "$pid" >/dev/null 2>&1
  python3 "$here/era_calls.py" "$url" "$era" "$stateful" "$counted" "$conns" || { kill "$pid"; return 1; }
  callgrind_control -d "$pid" >/dev/null 2>&1
  kill -INT "$pid"
  wait "$pid" 2>/dev/null
  local dump total
  dump="$(ls -t "$file".* 2>/dev/null | head -1)"
  total="$(callgrind_annotate "${dump:-$file}" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }')"
  printf '%-15s %8d\n' "$name" $((total / counted))
}

for _ in $(seq 1 "$runs"); do
  count 2025-stateful 2025-11-25 1
  count 2025-stateless 2025-11-25 0 --stateless
  count 2026 2026-07-28 0
done
