#!/usr/bin/env bash
# Task round trips over stdio (the kit's task-bench.mjs: tools/call {task} -> CreateTaskResult ->
# tasks/result, 32 in flight) with the memory store and the SQLite store, against plain calls of
# the same tool (slow_task {steps: 1, step_ms: 0}), interleaved, ROUNDS rounds, a fresh demo per
# run; prints every run and the medians. For bench/RESULTS.md (issue targets: memory tasks
# >= 0.85x half the plain rate at <= 1.5x the CPU of two plain calls, p50 <= 1 ms; SQLite tasks
# >= 0.5x the memory store's, p50 <= 2 ms).
#   compare.sh DEMO_SERVER [ROUNDS] [N]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
kit="${MCP_BENCH_KIT:-$here/../../../shared/bench}"
demo="$(realpath "${1:?usage: compare.sh DEMO_SERVER [ROUNDS] [N]}")"
rounds="${2:-3}"
n="${3:-20000}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
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
done
echo "medians:"
for name in plain memory sqlite; do
  for key in rps p50_ms server_cpu_us; do
    grep "^$name " "$work/all.txt" | sed -n "s/.* $key=\([0-9.]*\).*/\1/p" | sort -g |
      awk -v name="$name" -v key="$key" '{a[NR]=$1} END {printf "%s %s=%s\n", name, key, a[int((NR+1)/2)]}'
  done
done
