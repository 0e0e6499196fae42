#!/usr/bin/env bash
# `tools/call echo` over Streamable HTTP in both protocol eras, against the raw Beast floor, for
# bench/RESULTS.md. Every server is fresh per measurement and the order rotates each round:
#   limit          ../shared/bench/limits/limit_http_fast.cpp (2 threads)
#   2025-stateful  the demo, a 2025-11-25 session (initialize, then Mcp-Session-Id)
#   2025-stateless the demo with --stateless, 2025-11-25 requests
#   2026           the demo (same flags as 2025-stateful), self-contained 2026-07-28 requests
# Each measurement: wrk 2 threads / 32 connections, 2 s warm-up, 8 s measured; the server's CPU
# per call from /proc/<pid>/task/*/schedstat (all its threads, the measured phase only).
#   era_compare.sh DEMO_SERVER [ROUNDS]
# Needs: wrk, node and the kit set up (bash ../shared/bench/setup.sh), and /tmp/limit_http_fast
# (g++ -O2 -std=c++17 ../shared/bench/limits/limit_http_fast.cpp -o /tmp/limit_http_fast -pthread).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
kit="${MCP_BENCH_KIT:-$here/../../../shared/bench}"
demo="${1:?usage: era_compare.sh DEMO_SERVER [ROUNDS]}"
rounds="${2:-5}"
limit="${LIMIT_HTTP_FAST:-/tmp/limit_http_fast}"
port=19700

cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f", s }'; }

measure() {  # NAME ERA STATEFUL COMMAND(with PORT)
  local name="$1" era="$2" stateful="$3" cmd="$4"
  port=$((port + 1))
  local url="http://127.0.0.1:$port/mcp"
  ${cmd//PORT/$port} >/dev/null 2>&1 &
  local pid=$! sid=""
  node "$kit/http-session.mjs" wait "$url" >/dev/null 2>&1 || sleep 1.5
  [[ "$stateful" == 1 ]] && sid="$(node "$kit/http-session.mjs" open "$url")"
  export MCP_ERA="$era" MCP_SESSION_ID="$sid"
  wrk -t2 -c32 -d2s --timeout 5s -s "$here/mcp-call-era.lua" "$url" >/dev/null 2>&1
  local c0 out c1
  c0="$(cpu_ns "$pid")"
  out="$(timeout -k 5 40 wrk -t2 -c32 -d8s --timeout 5s -s "$here/mcp-call-era.lua" "$url" 2>&1 | grep '^ERASTAT')"
  c1="$(cpu_ns "$pid")"
  kill "$pid"
  wait "$pid" 2>/dev/null
  local n rps errors
  n="$(sed -n 's/.*requests=\([0-9]*\).*/\1/p' <<<"$out")"
  rps="$(sed -n 's/.*rps=\([0-9.]*\).*/\1/p' <<<"$out")"
  errors="$(sed -n 's/.*errors=\([0-9]*\).*/\1/p' <<<"$out")"
  awk -v r="$r" -v name="$name" -v rps="$rps" -v n="$n" -v a="$c0" -v b="$c1" -v e="$errors" \
      -v load="$(cut -d' ' -f1 /proc/loadavg)" \
      'BEGIN { printf "r%s %-15s %8.0f calls/s  %5.2f us/call  errors=%s  load=%s\n", r, name, rps, (b - a) / 1000 / n, e, load }'
}

servers=(limit 2025-stateful 2025-stateless 2026)
for r in $(seq 1 "$rounds"); do
  for i in 0 1 2 3; do
    s="${servers[$(((i + r - 1) % 4))]}"
    case "$s" in
      limit) measure limit 2025-11-25 0 "$limit PORT 2" ;;
      2025-stateful) measure 2025-stateful 2025-11-25 1 "$demo --http 127.0.0.1:PORT --no-rate-limit --io-threads 2" ;;
      2025-stateless) measure 2025-stateless 2025-11-25 0 "$demo --http 127.0.0.1:PORT --stateless --no-rate-limit --io-threads 2" ;;
      2026) measure 2026 2026-07-28 0 "$demo --http 127.0.0.1:PORT --no-rate-limit --io-threads 2" ;;
    esac
  done
done
