#!/usr/bin/env bash
# Task round trips over stdio (the kit's task-bench.mjs: tools/call {task} -> CreateTaskResult ->
# tasks/result, 32 in flight) with the memory store and the SQLite store, against plain calls of
# the same tool (slow_task {steps: 1, step_ms: 0}), interleaved, ROUNDS rounds, a fresh demo per
# run; prints every run and the medians. For bench/RESULTS.md (issue targets: memory tasks
# >= 0.85x half the plain rate at <= 1.5x the CPU of two plain calls, p50 <= 1 ms; SQLite tasks
# >= 0.5x the memory store's, p50 <= 2 ms). When redis-server is installed (or MCP_REDIS_SERVER
# names it) a fourth mode runs the Redis store with the cross-process queue (--task-store
# redis://…: every task pushed, taken and leased through Redis, here by the one demo process) on
# a redis-server this script starts on 127.0.0.1 (no persistence) and stops.
#   compare.sh DEMO_SERVER [ROUNDS] [N]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
kit="${MCP_BENCH_KIT:-$here/../../../shared/bench}"
demo="$(realpath "${1:?usage: compare.sh DEMO_SERVER [ROUNDS] [N]}")"
rounds="${2:-3}"
n="${3:-20000}"
work="$(mktemp -d)"
redis_pid=""
trap '[ -n "$redis_pid" ] && kill "$redis_pid" 2>/dev/null; rm -rf "$work"' EXIT
redis_bin="${MCP_REDIS_SERVER:-$(command -v redis-server || true)}"
modes="plain memory sqlite"
if [ -n "$redis_bin" ]; then
  redis_port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  "$redis_bin" --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$work" \
    >"$work/redis.log" 2>&1 &
  redis_pid=$!
  for _ in $(seq 1 100); do
    redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break
    sleep 0.05
  done
  modes="$modes redis"
fi
args='{"steps":1,"step_ms":0}'
run() {  # run NAME [--plain] -- STORE
  local name="$1" plain="$2" store="$3"
  rm -f "$work"/tasks.db*
  local line
  line="$(node "$kit/task-bench.mjs" --n "$n" --window 32 --tool slow_task --args "$args" $plain \
    -- "$demo" --no-rate-limit --task-store "$store" 2>&1 | grep '^task-bench:')"
  echo "$name $line" | tee -a "$work/all.txt"
}
for r in $(seq 1 "$rounds"); do
  run plain --plain :memory:
  run memory "" :memory:
  run sqlite "" "$work/tasks.db"
  if [ -n "$redis_pid" ]; then run redis "" "redis://127.0.0.1:$redis_port/bench$r"; fi
done
echo "medians:"
for name in $modes; do
  for key in rps p50_ms server_cpu_us; do
    grep "^$name " "$work/all.txt" | sed -n "s/.* $key=\([0-9.]*\).*/\1/p" | sort -g |
      awk -v name="$name" -v key="$key" '{a[NR]=$1} END {printf "%s %s=%s\n", name, key, a[int((NR+1)/2)]}'
  done
done
