#!/usr/bin/env bash
# demo_server --http 127.0.0.1:0 --metrics 127.0.0.1:0: a known mix of calls over Streamable HTTP
# (curl: a session, three echo calls, one tool error, one unknown tool) and then the demo's
# /metrics must count them: the operation histogram per tool and outcome, the session. Then
# `promtool check metrics` must accept the text, and Debian's Prometheus (started here on
# 127.0.0.1, temporary config and storage) scrapes the demo: its query API must return the same
# counts and bucket totals. Exit 77 (skipped) only when prometheus or promtool is missing, after
# the curl checks passed.
#   demo_metrics.sh DEMO_SERVER
set -euo pipefail
demo="$1"
dir="$(mktemp -d)"
pid=""
prom=""
cleanup() {
  [[ -n "$prom" ]] && kill "$prom" 2>/dev/null && wait "$prom" 2>/dev/null
  [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  echo "--- demo stderr:" >&2
  cat "$dir/log" >&2 || true
  exit 1
}

"$demo" --http 127.0.0.1:0 --metrics 127.0.0.1:0 --task-store :memory: --no-rate-limit \
  2>"$dir/log" </dev/null &
pid=$!
url=""
metrics=""
for _ in $(seq 1 100); do
  url="$(grep -o 'listening on http://[^ ]*' "$dir/log" | sed 's/listening on //' || true)"
  metrics="$(grep -o 'metrics at http://[^ ]*' "$dir/log" | sed 's/metrics at //' || true)"
  [[ -n "$url" && -n "$metrics" ]] && break
  kill -0 "$pid" 2>/dev/null || fail "the demo ended"
  sleep 0.1
done
[[ -n "$url" && -n "$metrics" ]] || fail "no URLs printed"

post() {  # post BODY [SESSION]: the response body; headers in $dir/headers
  local extra=()
  [[ -n "${2:-}" ]] && extra=(-H "Mcp-Session-Id: $2" -H "MCP-Protocol-Version: 2025-11-25")
  curl -sS -D "$dir/headers" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' "${extra[@]}" --data "$1" "$url"
}

post '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"metrics-check","version":"1"}}}' >/dev/null
session="$(grep -i '^mcp-session-id:' "$dir/headers" | tr -d '\r' | cut -d' ' -f2)"
[[ -n "$session" ]] || fail "no session id"
post '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$session" >/dev/null
for i in 2 3 4; do
  out="$(post '{"jsonrpc":"2.0","id":'$i',"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}' "$session")"
  [[ "$out" == *'"hi"'* ]] || fail "echo answered: $out"
done
out="$(post '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"fail","arguments":{}}}' "$session")"
[[ "$out" == *'"isError":true'* ]] || fail "fail answered: $out"
out="$(post '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}' "$session")"
[[ "$out" == *'-32602'* ]] || fail "the unknown tool answered: $out"
curl -sS -X DELETE -H "Mcp-Session-Id: $session" -H "MCP-Protocol-Version: 2025-11-25" "$url" >/dev/null

text=""
for _ in $(seq 1 50); do  # the session's end is recorded when the server has closed it
  text="$(curl -sS "$metrics")"
  [[ "$text" == *mcp_server_session_duration_seconds_count* ]] && break
  sleep 0.1
done
echo "$text" >"$dir/metrics.txt"

count() {  # count METRIC NEEDLE...: the value of the first series line with every needle
  local f
  f="$(grep "^$1{" "$dir/metrics.txt" || true)"
  shift
  for n in "$@"; do f="$(grep -F -- "$n" <<<"$f" || true)"; done
  f="$(head -n1 <<<"$f")"
  echo "${f##* }"
}
check() {  # check EXPECTED METRIC NEEDLE...
  local want="$1"
  shift
  local got
  got="$(count "$@")"
  [[ "$got" == "$want" ]] || { cat "$dir/metrics.txt" >&2; fail "$* is '$got', not $want"; }
  echo "ok: $* = $want"
}
check 3 mcp_server_operation_duration_seconds_count 'gen_ai_tool_name="echo"'
check 3 mcp_server_operation_duration_seconds_bucket 'gen_ai_tool_name="echo"' 'le="+Inf"'
check 1 mcp_server_operation_duration_seconds_count 'gen_ai_tool_name="fail"' 'error_type="tool_error"'
check 1 mcp_server_operation_duration_seconds_count 'gen_ai_tool_name="no_such_tool"' 'rpc_response_status_code="-32602"'
check 1 mcp_server_operation_duration_seconds_count 'mcp_method_name="initialize"'
check 1 mcp_server_session_duration_seconds_count 'mcp_protocol_version="2025-11-25"'
grep -q 'network_transport="tcp"' "$dir/metrics.txt" || fail "no network_transport=tcp"

if ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null; then
  echo "SKIPPED: prometheus or promtool not installed (Debian package prometheus); the curl checks passed"
  exit 77
fi
promtool check metrics <"$dir/metrics.txt" >"$dir/promtool.txt" 2>&1 ||
  { cat "$dir/promtool.txt" >&2; fail "promtool check metrics refused the exposition"; }
echo "ok: promtool check metrics"
target="${metrics#http://}"
target="${target%/metrics}"
prom_port="$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => {
  console.log(s.address().port); s.close(); })')"
cat >"$dir/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: demo
    static_configs:
      - targets: ['$target']
YML
prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
  --web.listen-address="127.0.0.1:$prom_port" --log.level=warn 2>"$dir/prometheus.log" &
prom=$!
query() {  # query EXPR: the value of the first result, or empty
  { curl -sS -G "http://127.0.0.1:$prom_port/api/v1/query" --data-urlencode "query=$1" 2>/dev/null ||
    true; } |
    node -e 'let t = ""; process.stdin.on("data", (c) => (t += c)).on("end", () => {
      try { const r = JSON.parse(t).data.result; console.log(r.length ? r[0].value[1] : ""); }
      catch { console.log(""); } })'
}
up=""
for _ in $(seq 1 450); do  # the first scrape takes about 5 s; up to 90 s on a loaded machine
  up="$(query 'up{job="demo"}')"
  [[ "$up" == 1 ]] && break
  kill -0 "$prom" 2>/dev/null || { cat "$dir/prometheus.log" >&2; fail "prometheus ended"; }
  sleep 0.2
done
[[ "$up" == 1 ]] || { cat "$dir/prometheus.log" >&2; fail "prometheus never scraped the demo"; }
prom_check() {  # prom_check EXPECTED EXPR
  local got
  got="$(query "$2")"
  [[ "$got" == "$1" ]] || fail "Prometheus: $2 is '$got', not $1"
  echo "ok (Prometheus): $2 = $1"
}
op=mcp_server_operation_duration_seconds
prom_check 3 "sum(${op}_count{gen_ai_tool_name=\"echo\"})"
prom_check 3 "sum(${op}_bucket{gen_ai_tool_name=\"echo\",le=\"+Inf\"})"
prom_check 1 "sum(${op}_count{gen_ai_tool_name=\"fail\",error_type=\"tool_error\"})"
prom_check 1 "sum(${op}_count{rpc_response_status_code=\"-32602\"})"
prom_check 1 "sum(mcp_server_session_duration_seconds_count)"
echo "PASS"
