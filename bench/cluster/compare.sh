#!/usr/bin/env bash
# `tools/call echo` through a cluster, for bench/RESULTS.md: 1, 2 and 3 demo processes sharing
# a redis-server (--redis) behind a round-robin HAProxy, against one demo without Redis or
# proxy (the reference, measured in the same run). Both eras: a 2025-11-25 session (opened once,
# its calls spread over the nodes, each node serving it from the shared record) and
# self-contained 2026-07-28 requests. Every setup is fresh per measurement; the order rotates
# each round.
#   bench/cluster/compare.sh DEMO_SERVER [ROUNDS]
# Each measurement: wrk 2 threads / 32 connections (bench/http/mcp-call-era.lua), 2 s warm-up,
# 8 s measured. CPU per call from /proc/<pid>/task/*/schedstat over the measured phase: the demo
# processes, redis-server and HAProxy, each reported, and their sum. On a machine with 2 cores
# more nodes cannot serve more calls: CPU per call is what shows the cost of the cluster.
# Rate limits are off (--no-rate-limit) in every setup. Needs wrk, redis-server, haproxy, curl
# and python3 (Debian packages).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
lua="$here/../http/mcp-call-era.lua"
demo="${1:?usage: compare.sh DEMO_SERVER [ROUNDS]}"
rounds="${2:-3}"
for prog in wrk redis-server redis-cli haproxy curl python3; do
  command -v "$prog" >/dev/null || { echo "compare.sh: $prog is not installed" >&2; exit 1; }
done
dir="$(mktemp -d -t mcp-cluster-bench.XXXXXX)"
pids=()
stop_all() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
  pids=()
}
trap 'stop_all; rm -rf "$dir"' EXIT
trap 'exit 1' INT TERM

# shellcheck source=../../scripts/cluster-lib.sh
source "$here/../../scripts/cluster-lib.sh"

cpu_ns() {
  local s=0
  for pid in "$@"; do
    s=$((s + $(cat /proc/"$pid"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f", s }')))
  done
  echo "$s"
}
open_session() {  # URL: a 2025-11-25 session's id
  local h
  h="$(curl -s -D - -o /dev/null -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2025-11-25' \
    -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}' \
    "$1")"
  local sid
  sid="$(tr -d '\r' <<<"$h" | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: *//p')"
  curl -s -o /dev/null -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2025-11-25' \
    -H "Mcp-Session-Id: $sid" -d '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$1"
  echo "$sid"
}

failed() {  # SETUP ERA: a setup that did not start is reported and stopped
  echo "r$r $1 $2: the setup did not start"
  stop_all
}

measure() {  # SETUP ERA: SETUP is "single" or the number of nodes behind the proxy
  local setup="$1" era="$2" url node_pids=() redis_pid="" proxy_pid="" addrs=()
  if [[ "$setup" == single ]]; then
    if ! cluster_node "$demo" "$dir/single.log" --no-rate-limit --io-threads 2; then
      failed "$setup" "$era"
      return
    fi
    node_pids+=("$cluster_pid")
    url="http://$cluster_node_addr/mcp"
  else
    # The cluster as scripts/cluster.sh starts it (scripts/cluster-lib.sh), tasks in memory.
    cluster_redis "$dir" || { failed "$setup" "$era"; return; }
    redis_pid="$cluster_pid"
    for i in $(seq "$setup"); do
      cluster_node "$demo" "$dir/node$i.log" --no-rate-limit --io-threads 2 \
        --redis "$cluster_redis_url" || { failed "$setup" "$era"; return; }
      node_pids+=("$cluster_pid")
      addrs+=("$cluster_node_addr")
    done
    if ! cluster_haproxy "$dir" 0 "${addrs[@]}" >/dev/null 2>&1; then
      failed "$setup" "$era"
      return
    fi
    proxy_pid="$cluster_pid"
    url="$cluster_proxy_url"
  fi
  local sid=""
  [[ "$era" == 2025-11-25 ]] && sid="$(open_session "$url")"
  export MCP_ERA="$era" MCP_SESSION_ID="$sid"
  wrk -t2 -c32 -d2s --timeout 5s -s "$lua" "$url" >/dev/null 2>&1
  local n0 r0 p0 n1 r1 p1 out
  n0="$(cpu_ns "${node_pids[@]}")"
  r0="$(cpu_ns $redis_pid)"
  p0="$(cpu_ns $proxy_pid)"
  out="$(timeout -k 5 40 wrk -t2 -c32 -d8s --timeout 5s -s "$lua" "$url" 2>&1 | grep '^ERASTAT')"
  n1="$(cpu_ns "${node_pids[@]}")"
  r1="$(cpu_ns $redis_pid)"
  p1="$(cpu_ns $proxy_pid)"
  stop_all
  local n rps p50 errors
  n="$(sed -n 's/.*requests=\([0-9]*\).*/\1/p' <<<"$out")"
  rps="$(sed -n 's/.*rps=\([0-9.]*\).*/\1/p' <<<"$out")"
  p50="$(sed -n 's/.*p50_ms=\([0-9.]*\).*/\1/p' <<<"$out")"
  errors="$(sed -n 's/.*errors=\([0-9]*\).*/\1/p' <<<"$out")"
  [[ -z "$n" || "$n" == 0 ]] && { echo "r$r $setup $era: no result ($out)"; return; }
  local name="$setup"
  [[ "$setup" != single ]] && name="${setup}-node"
  awk -v r="$r" -v name="$name" -v era="$era" -v rps="$rps" -v p50="$p50" -v n="$n" \
      -v nd=$((n1 - n0)) -v rd=$((r1 - r0)) -v pd=$((p1 - p0)) -v e="$errors" \
      -v load="$(cut -d' ' -f1 /proc/loadavg)" \
      'BEGIN { printf "r%s %-7s %-10s %7.0f calls/s  p50 %6.3f ms  us/call: nodes %6.2f redis %5.2f proxy %5.2f total %6.2f  errors=%s load=%s\n",
               r, name, era, rps, p50, nd / 1000 / n, rd / 1000 / n, pd / 1000 / n, (nd + rd + pd) / 1000 / n, e, load }'
}

setups=(single 1 2 3)
for r in $(seq 1 "$rounds"); do
  for era in 2025-11-25 2026-07-28; do
    for i in 0 1 2 3; do
      measure "${setups[$(((i + r - 1) % 4))]}" "$era"
    done
  done
done
