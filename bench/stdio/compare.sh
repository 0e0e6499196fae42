#!/usr/bin/env bash
# Side-by-side stdio numbers for bench/RESULTS.md: the raw stdio loop of the kit
# (../shared/bench/limits/limit_stdio.cpp), the same loop writing its answers in pieces of
# fd_connection::flush_bytes (2 KiB) as the SDK's stdio transport does, and the demo server,
# interleaved, a fresh process per round, through the kit's compare.mjs.
#   compare.sh DEMO_SERVER [ROUNDS] [CALLS_PER_ROUND]
# With MCP_BASELINE_DEMO=PATH, a second demo build (e.g. one without profile feedback) runs in
# the same rounds as demo-base-stdio.
# Needs: g++, Boost.JSON headers, node (the kit needs no npm package for stdio).
# The piece-writing loop is the kit's source with one line added after each answer
# ("if (out.size() >= 2048) flush_out();"), so both loops do the same work per call.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
kit="${MCP_BENCH_KIT:-$here/../../../shared/bench}"
demo="$(realpath "${1:?usage: compare.sh DEMO_SERVER [ROUNDS] [CALLS_PER_ROUND]}")"
rounds="${2:-5}"
calls="${3:-200000}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

src="$kit/limits/limit_stdio.cpp"
g++ -O2 -std=c++17 "$src" -o "$work/limit_stdio"
# The answer is complete once it ends in '\n'; flush_out is declared before handle uses it.
awk '
  /^static void handle\(/ { print "static void flush_out();" }
  { print }
  /^    out \+= json::serialize\(res\);$/ { serialized = 1; next }
  serialized && /^    out \+= .\\n.;$/ { print "    if (out.size() >= 2048) flush_out();"; serialized = 0 }
' "$src" > "$work/limit_stdio_pieces.cpp"
grep -q 'if (out.size() >= 2048) flush_out();' "$work/limit_stdio_pieces.cpp" ||
  { echo "compare.sh: the kit's limit_stdio.cpp changed shape; patch not applied" >&2; exit 1; }
g++ -O2 -std=c++17 "$work/limit_stdio_pieces.cpp" -o "$work/limit_stdio_pieces"

# compare.mjs runs each command with bash: the paths are quoted for it.
cat > "$work/servers.txt" <<SERVERS
limit-stdio         stdio  -  $(printf '%q' "$work/limit_stdio")
limit-stdio-pieces  stdio  -  $(printf '%q' "$work/limit_stdio_pieces")
demo-stdio          stdio  -  $(printf '%q' "$demo") --no-rate-limit --task-store :memory:
SERVERS
if [[ -n "${MCP_BASELINE_DEMO:-}" ]]; then
  echo "demo-base-stdio     stdio  -  $(printf '%q' "$(realpath "$MCP_BASELINE_DEMO")") --no-rate-limit --task-store :memory:" \
    >> "$work/servers.txt"
fi
node "$kit/compare.mjs" "$work/servers.txt" --runs "$rounds" --n "$calls" --ref-stdio limit-stdio
