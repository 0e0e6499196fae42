#!/usr/bin/env bash
# What a tool author's translation unit costs: the README's example (the weather tool) compiled
# against two include trees, interleaved, with g++-12 -std=c++20 (issue 29, bench/RESULTS.md
# "Compile weight").
#
#   bench/weight/measure.sh [--runs N] BEFORE_INCLUDE_DIR AFTER_INCLUDE_DIR
#
# e.g. the base commit's headers against this tree's:
#   git worktree add /tmp/mcp-base <base-commit>
#   bench/weight/measure.sh /tmp/mcp-base/include include
#
# For each tree: the preprocessed size (-E: lines and bytes), then N rounds (default 5) of
# -fsyntax-only and -O2 -c, the trees alternating within each round so that both see the same
# load; medians of wall time and of CPU time (user + system, what the compiler itself spent:
# on a shared machine the wall time also counts the waiting). A third row, "floor", is a file
# that only includes what the public API's types need from outside the SDK (Boost.JSON's value,
# Boost.System's result, Boost.Describe, Mp11 and the standard headers <chrono>, <memory>,
# <optional>, <stop_token>, <variant>): no header of the SDK can weigh less while those types
# are in it. A fourth, "stdlib", includes only the standard headers the API's signatures need
# (<string>, <vector>, <memory>, <functional>, <optional>, <variant>): what any C++ API taking a
# name, a handler and its options weighs before a line of its own.
set -euo pipefail

runs=5
if [[ "${1:-}" == "--runs" ]]; then
  runs="$2"
  shift 2
fi
[[ $# -eq 2 ]] || { sed -n '2,12p' "$0" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
before=$(cd "$1" && pwd)
after=$(cd "$2" && pwd)
cxx=${CXX:-g++-12}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The README's first C++ block is the example.
awk '/^```cpp/ { f = 1; next } /^```/ { if (f) exit } f' "$root/README.md" >"$work/weather.cpp"
grep -q 'mcp/server.hpp' "$work/weather.cpp" || { echo "no example in README.md" >&2; exit 1; }
cat >"$work/floor.cpp" <<'CPP'
#include <boost/describe.hpp>
#include <boost/json/value.hpp>
#include <boost/mp11/algorithm.hpp>
#include <boost/system/result.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <stop_token>
#include <variant>
int main() {}
CPP
cat >"$work/stdlib.cpp" <<'CPP'
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>
int main() {}
CPP

names=(before after floor stdlib)
declare -A inc=([before]="$before" [after]="$after" [floor]="$before" [stdlib]="$before")
declare -A src=([before]=weather.cpp [after]=weather.cpp [floor]=floor.cpp [stdlib]=stdlib.cpp)
declare -A sw sc cw cc

compile() {  # compile NAME FLAGS...: appends "wall cpu" of one run
  local n="$1"
  shift
  /usr/bin/time -f "%e %U %S" -o "$work/time" \
    "$cxx" -std=c++20 -I"${inc[$n]}" "$@" "$work/${src[$n]}" -o "$work/out.o" >/dev/null
  awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$work/time"
}

for n in "${names[@]}"; do
  "$cxx" -std=c++20 -I"${inc[$n]}" -E "$work/${src[$n]}" >"$work/$n.ii"
  printf '%-7s preprocessed: %7d lines %9d bytes\n' "$n" "$(wc -l <"$work/$n.ii")" \
    "$(wc -c <"$work/$n.ii")"
done
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 0; r < runs; r++)); do
  for n in "${names[@]}"; do
    read -r w c < <(compile "$n" -fsyntax-only)
    sw[$n]+="$w "
    sc[$n]+="$c "
    read -r w c < <(compile "$n" -O2 -c)
    cw[$n]+="$w "
    cc[$n]+="$c "
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
printf '%-7s %26s %26s\n' "" "-fsyntax-only wall; CPU" "-O2 -c wall; CPU"
for n in "${names[@]}"; do
  printf '%-7s %12s s; %8s s %14s s; %8s s\n' "$n" "$(median <<<"${sw[$n]}")" \
    "$(median <<<"${sc[$n]}")" "$(median <<<"${cw[$n]}")" "$(median <<<"${cc[$n]}")"
done
echo "runs: $runs; all times: syntax wall/CPU, -c wall/CPU"
for n in "${names[@]}"; do
  echo "$n: [${sw[$n]}] [${sc[$n]}] [${cw[$n]}] [${cc[$n]}]"
done
