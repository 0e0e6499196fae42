#!/usr/bin/env bash
# Instructions per `tools/call echo` of the demo server with observation off, with metrics and
# with metrics + traces exported over OTLP (to a loopback collector that drops the body), over
# stdio and over Streamable HTTP (stateless), counted by callgrind: the count does not depend on
# the load of the machine, unlike CPU time. All of the server's threads are counted (the OTLP
# exporter's too). Over stdio each figure is the difference of two runs of different lengths
# divided by the difference of their calls; over HTTP (wrk runs for a time, not a count) a run
# that serves only the readiness probe is subtracted. Either way start-up and shutdown cancel out.
# Traces are measured exported in JSON and in protobuf (a build without protobuf sends JSON),
# with 10 % of the traces sampled and with none. MCP_STDIO_ONLY=1: stdio rows only.
#   instructions.sh DEMO_SERVER [BASELINE_DEMO_SERVER]
# With a baseline, its rows come first (same run, same load). Needs: valgrind, node, wrk.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
kit="${MCP_BENCH_KIT:-$here/../../../shared/bench}"
short_n="${MCP_SHORT_CALLS:-2000}" long_n="${MCP_LONG_CALLS:-12000}"
seconds="${MCP_HTTP_SECONDS:-6}"
work="$(mktemp -d)"
collector=""
cleanup() {
  [[ -n "$collector" ]] && kill "$collector" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# A free port on 127.0.0.1 (so that two runs at once do not meet).
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# A collector that costs as little as possible (reads the body, answers {}).
collector_port="$(free_port)"
node "$here/null-collector.mjs" "$collector_port" &
collector=$!
otlp="http://127.0.0.1:$collector_port"

# Total instructions in a callgrind output file (all threads).
total() { sed -n 's/^\(summary\|totals\): *\([0-9]*\).*/\2/p' "$1" | head -1; }

stdio_run() { # demo n extra-args... -> instructions
  local demo="$1" n="$2"; shift 2
  local out="$work/cg.stdio.$n"
  node "$kit/stdio-bench.mjs" --n "$n" --warmup 0 --window 16 --timeout 600 --quiet-stderr -- \
    valgrind -q --tool=callgrind --callgrind-out-file="$out" "$demo" --no-rate-limit \
    --task-store :memory: "$@" >/dev/null
  for _ in $(seq 50); do [[ -s "$out" ]] && break; sleep 0.2; done
  total "$out"
}

http_run() { # demo seconds extra-args... -> "instructions requests" (seconds 0: no load)
  local demo="$1" s="$2"; shift 2
  local out="$work/cg.http.$s" port
  port="$(free_port)"
  valgrind -q --tool=callgrind --callgrind-out-file="$out" "$demo" --no-rate-limit \
    --task-store :memory: --http "127.0.0.1:$port" --stateless "$@" 2>/dev/null &
  local pid=$!
  for _ in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$port/mcp" && break
    sleep 0.2
  done
  local stat="MCPSTAT requests=0"
  if (( s > 0 )); then
    stat="$(wrk -t1 -c4 -d"${s}s" --timeout 10s -s "$kit/mcp-call.lua" \
      "http://127.0.0.1:$port/mcp" | grep '^MCPSTAT ')"
  fi
  kill -TERM "$pid"
  wait "$pid" 2>/dev/null || true
  echo "$(total "$out") $(sed -n 's/.* requests=\([0-9]*\).*/\1/p' <<<"$stat")"
}

measure() { # label demo extra-args...
  local label="$1" demo="$2"; shift 2
  local a b
  a="$(stdio_run "$demo" "$short_n" "$@")"
  b="$(stdio_run "$demo" "$long_n" "$@")"
  local stdio_per=$(( (b - a) / (long_n - short_n) ))
  if [[ -n "${MCP_STDIO_ONLY:-}" ]]; then
    printf '%-16s stdio %8d instr/call\n' "$label" "$stdio_per"
    return
  fi
  read -r ia na <<<"$(http_run "$demo" 0 "$@")"
  read -r ib nb <<<"$(http_run "$demo" "$seconds" "$@")"
  local http_per=$(( (ib - ia) / (nb - na) ))
  printf '%-16s stdio %8d instr/call   http %8d instr/call (%d requests)\n' \
    "$label" "$stdio_per" "$http_per" "$nb"
}

run_all() { # prefix demo
  measure "$1off" "$2"
  measure "$1metrics" "$2" --metrics 127.0.0.1:0
  measure "$1traces" "$2" --metrics 127.0.0.1:0 --otlp "$otlp"
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf \
    measure "$1traces-pb" "$2" --metrics 127.0.0.1:0 --otlp "$otlp"
  OTEL_TRACES_SAMPLER_ARG=0.1 measure "$1traces-10%" "$2" --metrics 127.0.0.1:0 --otlp "$otlp"
  OTEL_TRACES_SAMPLER_ARG=0 measure "$1traces-none" "$2" --metrics 127.0.0.1:0 --otlp "$otlp"
}

demo="$(realpath "${1:?usage: instructions.sh DEMO_SERVER [BASELINE_DEMO_SERVER]}")"
if [[ -n "${2:-}" ]]; then run_all "before-" "$(realpath "$2")"; fi
run_all "" "$demo"
