#!/usr/bin/env bash
# What a verified bearer token adds per request over Streamable HTTP, measured side by side: the
# demo server stateless without authorization, then as a protected resource (--jwks) with an
# Ed25519 and an RS256 JWT sent on every request (the verifier remembers a verified token, as a
# client reuses it). Interleaved rounds, every server fresh, wrk -t 2 -c 32 -d 8 after a 2 s
# warm-up; CPU per request from /proc/PID/task/*/schedstat.
#   auth_compare.sh DEMO_SERVER [ROUNDS]
# Needs: wrk, openssl and xxd (the commands).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
demo="${1:?usage: auth_compare.sh DEMO_SERVER [ROUNDS]}"
rounds="${2:-3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
port=19800
iss="https://auth.bench" aud="https://mcp.bench/mcp"

# shellcheck source=../../tests/support/jwt.sh
source "$here/../../tests/support/jwt.sh"
jwt_keys "$work"
ed_token="$(jwt_token "$work" EdDSA "$iss" "$aud" mcp)"
rs_token="$(jwt_token "$work" RS256 "$iss" "$aud" mcp)"

cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f", s }'; }

run() {  # NAME TOKEN DEMO-FLAGS...
  local name="$1" token="$2"
  shift 2
  port=$((port + 1))
  "$demo" --http "127.0.0.1:$port" --stateless --no-rate-limit --io-threads 2 \
    --task-store :memory: "$@" >/dev/null 2>&1 &
  local pid=$!
  sleep 0.5
  MCP_TOKEN="$token" wrk -t 2 -c 32 -d 2 -s "$here/bearer-call.lua" \
    "http://127.0.0.1:$port/mcp" >/dev/null
  local before after out
  before="$(cpu_ns "$pid")"
  out="$(MCP_TOKEN="$token" wrk -t 2 -c 32 -d 8 -s "$here/bearer-call.lua" \
    "http://127.0.0.1:$port/mcp" | tail -1)"
  after="$(cpu_ns "$pid")"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  local n
  n="$(sed -E 's/.*requests=([0-9]+).*/\1/' <<<"$out")"
  awk -v r="$r" -v name="$name" -v n="$n" -v cpu="$((after - before))" -v out="$out" \
    'BEGIN { printf "r%s %s: req/s=%.0f cpu_us_per_req=%.2f %s\n", r, name, n / 8, cpu / n / 1000, out }'
}

jwt=(--jwks "$work/jwks.json" --issuer "$iss" --audience "$aud" --scope mcp)
for r in $(seq 1 "$rounds"); do
  run none ""
  run jwt-eddsa "$ed_token" "${jwt[@]}"
  run jwt-rs256 "$rs_token" "${jwt[@]}"
done
