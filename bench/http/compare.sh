#!/usr/bin/env bash
# Side-by-side Streamable HTTP numbers for bench/RESULTS.md: the raw Beast limit server, the demo
# server (stateful and stateless) and the TypeScript SDK reference server (stateful and
# stateless), interleaved, every server fresh per measurement. Each line is one measurement
# from ../shared/bench/http-bench.sh: "32c" is -t 2 -c 32 -d 8 after a 2 s warm-up, "1c" is
# -t 1 -c 1 -d 4 (latency).
#   compare.sh DEMO_SERVER [ROUNDS]
# Needs: wrk, node, the kit set up (bash ../shared/bench/setup.sh), and /tmp/limit_http built
# from ../shared/bench/limits/limit_http.cpp (g++ -O2 -std=c++17 ... -pthread).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
kit="${MCP_BENCH_KIT:-$here/../../../shared/bench}"
demo="${1:?usage: compare.sh DEMO_SERVER [ROUNDS]}"
rounds="${2:-3}"
limit="${LIMIT_HTTP:-/tmp/limit_http}"
port=19500

run() {  # NAME COMMAND(with PORT) BENCH-FLAGS
  local name="$1" cmd="$2" flags="$3"
  port=$((port + 1))
  local c="${cmd//PORT/$port}"
  $c >/dev/null 2>&1 &
  local pid=$!
  node "$kit/http-session.mjs" wait "http://127.0.0.1:$port/mcp" >/dev/null 2>&1 || sleep 1.5
  local a b
  # shellcheck disable=SC2086
  a=$("$kit/http-bench.sh" "http://127.0.0.1:$port/mcp" $flags -d 8 --pid "$pid" 2>&1 | tail -1)
  # shellcheck disable=SC2086
  b=$("$kit/http-bench.sh" "http://127.0.0.1:$port/mcp" $flags -t 1 -c 1 -d 4 -w 1 2>&1 | tail -1)
  kill "$pid"
  wait "$pid" 2>/dev/null
  echo "r$r $name 32c: $a"
  echo "r$r $name 1c: $b"
}

for r in $(seq 1 "$rounds"); do
  run limit "$limit PORT 2 parse" ""
  run ours-stateful "$demo --http 127.0.0.1:PORT --no-rate-limit --io-threads 2" "--stateful"
  run ours-stateless "$demo --http 127.0.0.1:PORT --stateless --no-rate-limit --io-threads 2" ""
  run ts-stateful "node $kit/ts-ref-server.mjs http --port PORT --stateful" "--stateful"
  run ts-stateless "node $kit/ts-ref-server.mjs http --port PORT --stateless" ""
done
