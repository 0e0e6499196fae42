#!/usr/bin/env bash
# Kernel calls and commits per task round trip of the demo server: the kit's task-bench.mjs (32
# in flight, `slow_task {steps: 1, step_ms: 0}`, N round trips) against a fresh demo per run with
# the SQLite store in a temporary file, counted by `perf stat` over the whole server process:
# pwrite64, fcntl, futex, pread64, fdatasync and write system calls, and, through uprobes on the
# SQLite library, its WAL appends (sqlite3WalFrames: one per commit), checkpoints and statement
# steps (sqlite3_step). Unlike CPU time these hardly move with the machine's load (only the
# batching does a little: a commit carries what queued while the previous one ran). Prints
# every run and the medians. With several DEMO_SERVERs, their runs alternate in each round
# (before/after comparisons). MCP_TASK_STORE=:memory: counts the memory store instead (the
# SQLite counts are then zero), MCP_PLAIN=1 plain calls of the same tool (per call); read and
# poll calls are counted too (the stdio reader's). Needs perf, root (uprobes) and node.
#   syscalls.sh ROUNDS N DEMO_SERVER...
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
kit="${MCP_BENCH_KIT:-$here/../../../shared/bench}"
rounds="${1:?usage: syscalls.sh ROUNDS N DEMO_SERVER...}"
n="${2:?usage: syscalls.sh ROUNDS N DEMO_SERVER...}"
shift 2
work="$(mktemp -d)"
lib="$(ldconfig -p | sed -n 's/.*libsqlite3\.so\.0 .*=> //p' | head -1)"
lib="$(readlink -f "$lib")"
# At the functions' addresses (by name, perf would also count the library's PLT entries).
added=""
probes="$(perf probe -l 2>/dev/null || true)"
for fn in sqlite3WalFrames sqlite3WalCheckpoint sqlite3_step; do
  name="mcp_$fn"
  if [[ "$probes" != *"probe_libsqlite3:$name "* ]]; then
    addr="$(nm -D --defined-only "$lib" | awk -v f="$fn" '$3 == f {print $1}')"
    perf probe -q -x "$lib" -a "$name=0x$addr" && added="$added $name"
  fi
done
cleanup() {
  for name in $added; do perf probe -q -d "probe_libsqlite3:$name" || true; done
  rm -rf "$work"
}
trap cleanup EXIT
events="syscalls:sys_enter_pwrite64,syscalls:sys_enter_fcntl,syscalls:sys_enter_futex"
events="$events,syscalls:sys_enter_pread64,syscalls:sys_enter_fdatasync,syscalls:sys_enter_write"
events="$events,syscalls:sys_enter_read,syscalls:sys_enter_poll"
events="$events,probe_libsqlite3:mcp_sqlite3WalFrames,probe_libsqlite3:mcp_sqlite3WalCheckpoint"
events="$events,probe_libsqlite3:mcp_sqlite3_step"
args='{"steps":1,"step_ms":0}'
store="${MCP_TASK_STORE:-}"
plain=""
if [[ -n "${MCP_PLAIN:-}" ]]; then plain="--plain"; fi
for r in $(seq 1 "$rounds"); do
  i=0
  for demo in "$@"; do
    i=$((i + 1))
    rm -f "$work"/tasks.db*
    # task-bench ends the server's input, then sends SIGTERM 500 ms later: perf (which would
    # die of it without writing its counts) ignores it and waits for the server, which exits
    # once the store is closed (its last checkpoint may take longer than that).
    cat >"$work/run.sh" <<SH
#!/bin/sh
trap '' TERM
perf stat -x, -e $events -o "$work/stat.txt" "$(realpath "$demo")" --no-rate-limit \
  --task-store "${store:-$work/tasks.db}"
SH
    chmod +x "$work/run.sh"
    node "$kit/task-bench.mjs" --n "$n" --window 32 --tool slow_task --args "$args" $plain \
      -- "$work/run.sh" >"$work/bench.txt" 2>&1 || cat "$work/bench.txt" >&2
    # perf writes its counts once the server has exited.
    for _ in $(seq 300); do
      grep -q sqlite3_step "$work/stat.txt" 2>/dev/null && break
      sleep 0.1
    done
    [[ -s "$work/stat.txt" ]] || { cat "$work/bench.txt" >&2; exit 1; }
    # The bench's warm-up adds 1 % to N (task-bench.mjs): counts are divided by N * 1.01.
    line="$(awk -F, -v n="$n" '/sys_enter_|probe_/ {
        name = $3; sub(/.*sys_enter_/, "", name); sub(/.*:mcp_sqlite3_step/, "steps", name)
        sub(/.*:mcp_sqlite3Wal/, "", name)
        sub(/^Frames$/, "commits", name); sub(/^Checkpoint$/, "checkpoints", name)
        printf "%s=%.3f ", name, $1 / (n * 1.01) }' "$work/stat.txt")"
    echo "$i:$(basename "$demo") $line" | tee -a "$work/all.txt"
  done
done
echo "medians (per task round trip):"
i=0
for demo in "$@"; do
  i=$((i + 1))
  out="$i:$(basename "$demo")"
  for key in commits steps pwrite64 fcntl futex pread64 fdatasync write read poll checkpoints; do
    v="$(grep "^$i:" "$work/all.txt" | sed -n "s/.* $key=\([0-9.]*\).*/\1/p" | sort -g |
      awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
    out="$out $key=$v"
  done
  echo "$out"
done
