#!/usr/bin/env bash
# Instructions and L1 instruction-cache misses per stdio `tools/call echo` (callgrind with its
# cache model: a 32 KiB L1i; the counts do not depend on the machine's load, unlike CPU time),
# for each server given and for the kit's limit_stdio_fast (the raw loop writing its answers in
# 2 KiB pieces, as the SDK's transport does). Each server reads `initialize` and N calls from a
# file; each figure is the run with N calls minus the run with none, divided by N, so start-up
# and shutdown cancel out.
#   instructions.sh DEMO_SERVER... [-- N]      (N: 20000)
# Prints: <server> <instructions per call> <L1i misses per call> <L1d misses per call>.
# Needs: valgrind, g++, Boost.JSON headers.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
default_n=20000
usage="instructions.sh DEMO_SERVER... [-- N]"
# shellcheck source=limit-lib.sh
source "$here/limit-lib.sh" "$@"
write_calls "$work/calls.0" 0 instructions.sh
write_calls "$work/calls.n" "$n" instructions.sh

# Ir, I1mr and D1mr+D1mw totals of one run (all threads).
counts() { # server input
  local out="$work/cg.out"
  rm -f "$out"*
  valgrind -q --tool=callgrind --cache-sim=yes --callgrind-out-file="$out" \
    "$1" $([[ "$1" == */limit_stdio_fast ]] || echo --no-rate-limit --task-store :memory:) \
    < "$2" > /dev/null 2>&1
  sed -n 's/^events: *//p' "$out" | head -1 > "$work/events"
  sed -n 's/^\(summary\|totals\): *//p' "$out" | head -1 > "$work/totals"
  paste -d'\n' "$work/events" "$work/totals" | awk '
    NR == 1 { for (i = 1; i <= NF; ++i) name[i] = $i }
    NR == 2 { for (i = 1; i <= NF; ++i) v[name[i]] = $i
              printf "%d %d %d\n", v["Ir"], v["I1mr"], v["D1mr"] + v["D1mw"] }'
}

for s in "$work/limit_stdio_fast" "${servers[@]}"; do
  read -r i0 l0 d0 < <(counts "$s" "$work/calls.0")
  read -r i1 l1 d1 < <(counts "$s" "$work/calls.n")
  awk -v s="$s" -v n="$n" -v i0="$i0" -v i1="$i1" -v l0="$l0" -v l1="$l1" -v d0="$d0" -v d1="$d1" \
    'BEGIN { sub(".*/", "", s); printf "%-24s %9.0f instr  %7.1f L1i  %6.1f L1d  per call\n", s, (i1 - i0) / n, (l1 - l0) / n, (d1 - d0) / n }'
done
