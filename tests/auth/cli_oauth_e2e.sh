#!/usr/bin/env bash
# mcp-cpp's OAuth client against the demo server as a protected resource, end to end, with a
# mock authorization server (mock_authorization_server.mjs) that issues RS256 JWTs the demo
# verifies against the key set the mock wrote:
#
#   cli_oauth_e2e.sh MCP_CPP DEMO_SERVER
#
#   1. the first call: 401, discovery, dynamic registration, authorization with PKCE through the
#      loopback redirect (headless_browser.sh as $BROWSER), token, the call succeeds; the token
#      store is mode 0600;
#   2. a second process reuses the stored token: no request to the authorization server;
#   3. step-up: unlock_admin needs demo.admin; the 403 leads to a second authorization asking
#      for it, and the call succeeds;
#   4. after the access token's two seconds, it is refreshed (refresh_token grant) before it is
#      sent: no new authorization;
#   5. mcp-cpp auth status (no token shown), auth login (a new authorization, same
#      registration), auth logout.
# Exit 77 (SKIPPED) without node.
set -u
cli=$1 demo=$2
here="$(cd "$(dirname "$0")" && pwd)"
command -v node >/dev/null || { echo "node not found: SKIPPED"; exit 77; }
command -v curl >/dev/null || { echo "curl not found: SKIPPED"; exit 77; }
dir=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
  rm -rf "$dir"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  for f in "$dir"/*.log "$dir"/out "$dir"/err; do [ -f "$f" ] && { echo "--- $f"; cat "$f"; }; done
  exit 1
}
wait_for() {  # FILE PATTERN: the first match of PATTERN's group in FILE, within 10 s
  local i
  for i in $(seq 1 100); do
    if v=$(sed -n "s/$2/\\1/p" "$1" 2>/dev/null | head -n1) && [ -n "$v" ]; then
      echo "$v"
      return 0
    fi
    sleep 0.1
  done
  return 1
}

node "$here/mock_authorization_server.mjs" "$dir/jwks.json" 2 >"$dir/as.log" 2>&1 &
pids+=($!)
issuer=$(wait_for "$dir/as.log" '^listening \(http[^ ]*\)$') || fail "the authorization server did not start"
# The demo's resource identifier is its URL, so its port is chosen first.
port=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => {
  console.log(s.address().port); s.close(); });')
url="http://127.0.0.1:$port/mcp"
"$demo" --http "127.0.0.1:$port" --task-store :memory: --jwks "$dir/jwks.json" --issuer "$issuer" \
  --audience "$url" --scope mcp >"$dir/demo.log" 2>&1 &
pids+=($!)
wait_for "$dir/demo.log" '.*listening on \(http[^ ]*\).*' >/dev/null || fail "the demo did not start"

export BROWSER="$here/../conformance/headless_browser.sh"
run() { "$cli" "$@" --url "$url" --token-store "$dir/tokens.json" >"$dir/out" 2>"$dir/err"; }
count() { grep -c "\"event\":\"$1\"" "$dir/as.log"; }

# 1
run tools call echo text=hello || fail "the first call failed"
grep -qx hello "$dir/out" || fail "the first call did not return hello"
[ "$(count register)" = 1 ] || fail "expected one registration"
[ "$(count authorize)" = 1 ] || fail "expected one authorization"
grep '"event":"authorize"' "$dir/as.log" | grep -q "\"resource\":\"$url\"" ||
  fail "the authorization did not name the resource $url"
grep '"event":"authorize"' "$dir/as.log" | grep -q '"scope":"mcp"' ||
  fail "the first authorization did not ask for the challenge's scope"
[ "$(stat -c %a "$dir/tokens.json")" = 600 ] || fail "the token store is not mode 0600"

# 2
lines=$(wc -l <"$dir/as.log")
run tools list || fail "tools list with the stored token failed"
grep -q echo "$dir/out" || fail "tools list shows no echo"
[ "$(wc -l <"$dir/as.log")" = "$lines" ] || fail "the stored token was not reused"

# 3
run tools call unlock_admin --yes || fail "the step-up call failed"
grep -q "admin.stats is now enabled" "$dir/out" || fail "unlock_admin did not run"
[ "$(count authorize)" = 2 ] || fail "expected a second authorization for the step-up"
grep '"event":"authorize"' "$dir/as.log" | tail -n1 | grep -q '"scope":"demo.admin mcp"' ||
  fail "the step-up did not ask for demo.admin on top of mcp"

# 4
sleep 3
run tools call echo text=again || fail "the call after expiry failed"
grep -qx again "$dir/out" || fail "the call after expiry did not return again"
[ "$(count authorize)" = 2 ] || fail "the expired token led to a new authorization"
grep -q '"grant":"refresh_token"' "$dir/as.log" || fail "no refresh_token grant"
# 5. auth status shows what is stored, never a token; auth login authorizes again; logout forgets
"$cli" auth status --url "$url" --token-store "$dir/tokens.json" >"$dir/out" 2>"$dir/err" ||
  fail "auth status failed"
grep -q "scopes: *demo.admin mcp" "$dir/out" || fail "auth status does not show the scopes"
grep -q "refreshable" "$dir/out" || fail "auth status does not say the token is refreshable"
! grep -q "eyJ" "$dir/out" || fail "auth status shows a token"
run_auth() { "$cli" auth "$@" --url "$url" --token-store "$dir/tokens.json" >"$dir/out" 2>"$dir/err"; }
run_auth login --scope mcp || fail "auth login failed"
[ "$(count authorize)" = 3 ] || fail "auth login did not authorize again"
[ "$(count register)" = 1 ] || fail "auth login registered again"
grep -q "scopes: *mcp$" "$dir/out" || fail "auth login did not report the scopes asked for"
run_auth logout || fail "auth logout failed"
run_auth status || fail "auth status after logout failed"
grep -q "not signed in" "$dir/out" || fail "auth logout left tokens"
echo "PASS: registration, authorization, reuse, step-up, refresh, auth login/status/logout"
