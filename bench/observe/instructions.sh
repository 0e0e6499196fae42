#!/usr/bin/env bash
# Instructions per `tools/call echo` of the demo server with observation off, with metrics and
# with metrics + traces exported over OTLP (to a loopback collector that drops the body), over
# stdio and over Streamable HTTP in both protocol eras (a stateful 2025-11-25 session, and
# self-contained 2026-07-28 requests to the same server), counted by callgrind: the count does
# not depend on the load of the machine, unlike CPU time. All of the server's threads are
# counted (the OTLP exporter's too). Each figure is the difference of two runs of different
# lengths divided by the difference of their calls, so that start-up, the HTTP session's
# initialize and shutdown (the exporter's last sends) cancel out; over HTTP the calls go one at a
# time on one keep-alive connection (bench/http/era_calls.py) to a server with one I/O thread.
# Traces are measured exported in JSON and in protobuf (a build without protobuf sends JSON),
# and in protobuf with 10 % of the traces sampled and with none. MCP_STDIO_ONLY=1: stdio rows only.
#   instructions.sh DEMO_SERVER [BASELINE_DEMO_SERVER]
# With a baseline, its rows come first (same run, same load). Needs: valgrind, node, python3, curl.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
kit="${MCP_BENCH_KIT:-$here/../../../shared/bench}"
short_n="${MCP_SHORT_CALLS:-2000}" long_n="${MCP_LONG_CALLS:-12000}"
http_short="${MCP_HTTP_SHORT_CALLS:-500}" http_long="${MCP_HTTP_LONG_CALLS:-2500}"
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

http_run() { # demo era stateful n extra-args... -> instructions
  local demo="$1" era="$2" stateful="$3" n="$4"; shift 4
  local out="$work/cg.http.$n" port
  port="$(free_port)"
  valgrind -q --tool=callgrind --callgrind-out-file="$out" "$demo" --no-rate-limit \
    --task-store :memory: --http "127.0.0.1:$port" --io-threads 1 "$@" 2>/dev/null &
  local pid=$!
  for _ in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$port/mcp" && break
    sleep 0.2
  done
  python3 "$here/../http/era_calls.py" "http://127.0.0.1:$port/mcp" "$era" "$stateful" "$n" \
    >/dev/null
  kill -TERM "$pid"
  wait "$pid" 2>/dev/null || true
  total "$out"
}

http_per_call() { # demo era stateful extra-args... -> instructions per call
  local demo="$1" era="$2" stateful="$3"; shift 3
  local a b
  a="$(http_run "$demo" "$era" "$stateful" "$http_short" "$@")"
  b="$(http_run "$demo" "$era" "$stateful" "$http_long" "$@")"
  echo $(( (b - a) / (http_long - http_short) ))
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
  local h25 h26
  h25="$(http_per_call "$demo" 2025-11-25 1 "$@")"
  h26="$(http_per_call "$demo" 2026-07-28 0 "$@")"
  printf '%-16s stdio %8d   http 2025-11-25 stateful %8d   http 2026-07-28 %8d instr/call\n' \
    "$label" "$stdio_per" "$h25" "$h26"
}

run_all() { # prefix demo
  measure "$1off" "$2"
  measure "$1metrics" "$2" --metrics 127.0.0.1:0
  # Each encoding named (the demo's default is protobuf; an older build's was JSON).
  OTEL_EXPORTER_OTLP_PROTOCOL=http/json \
    measure "$1traces" "$2" --metrics 127.0.0.1:0 --otlp "$otlp"
  export OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf
  measure "$1traces-pb" "$2" --metrics 127.0.0.1:0 --otlp "$otlp"
  OTEL_TRACES_SAMPLER_ARG=0.1 measure "$1traces-10%" "$2" --metrics 127.0.0.1:0 --otlp "$otlp"
  OTEL_TRACES_SAMPLER_ARG=0 measure "$1traces-none" "$2" --metrics 127.0.0.1:0 --otlp "$otlp"
  unset OTEL_EXPORTER_OTLP_PROTOCOL
}

demo="$(realpath "${1:?usage: instructions.sh DEMO_SERVER [BASELINE_DEMO_SERVER]}")"
if [[ -n "${2:-}" ]]; then run_all "before-" "$(realpath "$2")"; fi
run_all "" "$demo"
