# shellcheck shell=bash
# Sourced by cpu_per_call.sh and instructions.sh (`source "$here/limit-lib.sh" "$@"`, with
# `default_n` and `usage` set): what both do before measuring. Reads the command line
# `DEMO_SERVER... [-- N [MORE...]]` into `servers` (real paths), `n` (N, else default_n) and
# `more` (what follows N); makes the temporary directory `work` (removed at exit) and builds the
# kit's limit_stdio_fast into it (the raw loop writing its answers in 2 KiB pieces, as the SDK's
# transport does). `write_calls FILE N CLIENT` writes `initialize` (clientInfo.name CLIENT),
# `notifications/initialized` and N `tools/call echo` lines to FILE.
kit="${MCP_BENCH_KIT:-$here/../../../shared/bench}"
servers=()
n="$default_n"
more=()
while [[ $# -gt 0 ]]; do
  if [[ "$1" == "--" ]]; then
    n="${2:?N after --}"
    more=("${@:3}")
    break
  fi
  servers+=("$(realpath "$1")")
  shift
done
[[ ${#servers[@]} -gt 0 ]] || { echo "usage: $usage" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

g++ -O2 -std=c++17 "$kit/limits/limit_stdio_fast.cpp" -o "$work/limit_stdio_fast"

write_calls() { # file n client
  printf '%s\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n' \
    '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"'"$3"'","version":"1.0"}}}' \
    > "$1"
  awk -v n="$2" 'BEGIN { for (i = 1; i <= n; ++i)
    printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hello\"}}}\n", i }' \
    >> "$1"
}
