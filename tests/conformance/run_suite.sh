#!/usr/bin/env bash
# The official MCP conformance suite against examples/everything_server, run by ctest.
#
#   run_suite.sh SUITE_SCRIPT EVERYTHING_SERVER RESULTS_DIR stable   # 0.1.16: the 30 active
#                                                  # scenarios, then json-schema-2020-12 and
#                                                  # server-sse-polling by name
#   run_suite.sh SUITE_SCRIPT EVERYTHING_SERVER RESULTS_DIR alpha    # 0.2.0-alpha.12: all 31
#
# SUITE_SCRIPT is shared/conformance/run-server-suite.sh (it installs the pinned suite and Node
# 22 into its cache; MCP_CONFORMANCE_CACHE overrides where). The server listens on an ephemeral
# port of 127.0.0.1 and prints its URL, so there is no port to collide on. Fails when any
# scenario fails; the suite script prints the failing checks.
set -euo pipefail
suite="${1:?usage: run_suite.sh SUITE_SCRIPT EVERYTHING_SERVER RESULTS_DIR stable|alpha}"
server="${2:?missing EVERYTHING_SERVER}"
results="${3:?missing RESULTS_DIR}"
mode="${4:?missing mode (stable or alpha)}"

[[ -x "$suite" ]] || { echo "conformance: suite script not found: $suite" >&2; exit 1; }
rm -rf "$results"
mkdir -p "$results"
log="$results/server.log"

"$server" --http 127.0.0.1:0 2>"$log" &
pid=$!
cleanup() { kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true; }
trap cleanup EXIT

url=""
for _ in $(seq 1 100); do
  url="$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$log" | head -n1)"
  [[ -n "$url" ]] && break
  kill -0 "$pid" 2>/dev/null || { echo "conformance: server exited:" >&2; cat "$log" >&2; exit 1; }
  sleep 0.1
done
[[ -n "$url" ]] || { echo "conformance: server printed no URL" >&2; cat "$log" >&2; exit 1; }
echo "conformance: everything_server at $url"

status=0
case "$mode" in
  stable)
    "$suite" --version 0.1.16 --results "$results/active" "$url" || status=1
    "$suite" --version 0.1.16 --results "$results/pending" \
      --scenario json-schema-2020-12,server-sse-polling "$url" || status=1
    ;;
  alpha)
    "$suite" --version 0.2.0-alpha.12 --results "$results/alpha" "$url" || status=1
    ;;
  *)
    echo "conformance: unknown mode $mode" >&2
    exit 2
    ;;
esac
kill -0 "$pid" 2>/dev/null || { echo "conformance: the server died during the run:" >&2; cat "$log" >&2; status=1; }
exit $status
