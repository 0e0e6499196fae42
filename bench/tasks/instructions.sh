#!/usr/bin/env bash
# Instructions per round trip of the demo server's `slow_task {steps: 1, step_ms: 0}` (the
# kit's task-bench.mjs, 32 in flight): plain calls, tasks with the memory store, tasks with the
# SQLite store, counted by callgrind over all the server's threads (the count does not depend on
# the machine's load, unlike CPU time). Each figure is the difference of two runs of different
# lengths divided by the difference of their round trips, so start-up, the warm-up and shutdown
# cancel out. MCP_SHORT_TASKS and MCP_LONG_TASKS set the two lengths (1000 and 4000), MCP_MODES
# the modes ("plain memory sqlite"); with MCP_KEEP_PROFILES=DIR the callgrind files are kept there.
#   instructions.sh DEMO_SERVER [BASELINE_DEMO_SERVER]
# With a baseline, its rows come first. Needs: valgrind, node.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
kit="${MCP_BENCH_KIT:-$here/../../../shared/bench}"
short_n="${MCP_SHORT_TASKS:-1000}" long_n="${MCP_LONG_TASKS:-4000}"
keep="${MCP_KEEP_PROFILES:-}"
modes="${MCP_MODES:-plain memory sqlite}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
args='{"steps":1,"step_ms":0}'

# Total instructions in a callgrind output file (all threads).
total() { sed -n 's/^\(summary\|totals\): *\([0-9]*\).*/\2/p' "$1" | head -1; }

one() { # label demo n plain store -> instructions
  local label="$1" demo="$2" n="$3" plain="$4" store="$5"
  local out="$work/cg.$label.$n"
  rm -f "$work"/tasks.db*
  # The server exits at the end of its input; callgrind writes its file then.
  cat >"$work/run.sh" <<SH
#!/bin/sh
valgrind -q --tool=callgrind --callgrind-out-file="$out" "$demo" --no-rate-limit --task-store "$store"
SH
  chmod +x "$work/run.sh"
  node "$kit/task-bench.mjs" --n "$n" --window 32 --tool slow_task --args "$args" $plain \
    -- "$work/run.sh" >/dev/null
  for _ in $(seq 300); do [[ -s "$out" ]] && break; sleep 0.2; done
  sleep 0.5
  if [[ -n "$keep" ]]; then mkdir -p "$keep" && cp "$out" "$keep/"; fi
  total "$out"
}

measure() { # label demo plain store
  local a b
  a="$(one "$1" "$2" "$short_n" "$3" "$4")"
  b="$(one "$1" "$2" "$long_n" "$3" "$4")"
  printf '%-16s %8d instr/round trip\n' "$1" $(((b - a) / (long_n - short_n)))
}

run_all() { # prefix demo
  if [[ " $modes " == *" plain "* ]]; then measure "$1plain" "$2" --plain :memory:; fi
  if [[ " $modes " == *" memory "* ]]; then measure "$1memory" "$2" "" :memory:; fi
  if [[ " $modes " == *" sqlite "* ]]; then measure "$1sqlite" "$2" "" "$work/tasks.db"; fi
}

demo="$(realpath "${1:?usage: instructions.sh DEMO_SERVER [BASELINE_DEMO_SERVER]}")"
if [[ -n "${2:-}" ]]; then run_all "before-" "$(realpath "$2")"; fi
run_all "" "$demo"
