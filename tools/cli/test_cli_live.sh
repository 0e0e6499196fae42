#!/bin/sh
# mcp-cpp against a live demo server, for what test_cli.cmake cannot drive:
#   test_cli_live.sh interrupt CLI DEMO   Ctrl-C (SIGINT) during a call: exit 2, cancelled
#   test_cli_live.sh http CLI DEMO        tools call over --url against demo_server --http
set -u
mode=$1 cli=$2 demo=$3
dir=$(mktemp -d)
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$dir"/*; do echo "--- $f"; cat "$f"; done; exit 1; }

case $mode in
interrupt)
  "$cli" tools call slow_count steps=100 step_ms=100 --audit "$dir/audit" \
    -- "$demo" --task-store :memory: >"$dir/out" 2>"$dir/err" </dev/null &
  pid=$!
  # wait for the first progress line: the call is running
  i=0
  until grep -q "progress: " "$dir/err" 2>/dev/null; do
    i=$((i + 1)); [ $i -gt 100 ] && fail "no progress within 10 s"; sleep 0.1
  done
  kill -INT $pid
  wait $pid; code=$?
  [ $code -eq 2 ] || fail "exit status $code, expected 2"
  grep -q "interrupted: the call was cancelled" "$dir/err" || fail "no cancellation message"
  grep -q '"outcome":"cancelled"' "$dir/audit" || fail "audit outcome is not cancelled"
  ! grep -q '"completed"' "$dir/out" || fail "the call completed"
  ;;
http)
  "$demo" --http 127.0.0.1:0 --task-store :memory: 2>"$dir/server" &
  server=$!
  i=0
  until url=$(grep -o 'http://[^ ]*' "$dir/server"); do
    i=$((i + 1)); [ $i -gt 100 ] && fail "the server printed no URL"; sleep 0.1
  done
  out=$("$cli" tools call echo text=over-http --url "$url" --header "X-Test: 1" </dev/null) ||
    fail "exit status $?"
  [ "$out" = "over-http" ] || fail "output '$out'"
  "$cli" tools list --url "$url" </dev/null | grep -q "forecast  *read-only" || fail "list"
  ;;
*) fail "unknown mode $mode" ;;
esac
echo ok
