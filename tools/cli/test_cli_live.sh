#!/bin/sh
# mcp-cpp against a live demo server, for what test_cli.cmake cannot drive:
#   test_cli_live.sh interrupt CLI DEMO   Ctrl-C (SIGINT) during a call: exit 2, and
#                                         notifications/cancelled on the wire
#   test_cli_live.sh refuse CLI DEMO      a bad argument, a refused confirmation: no tools/call
#                                         on the wire
#   test_cli_live.sh prompt CLI DEMO      the confirmation prompt on a terminal (script(1))
#   test_cli_live.sh sampling CLI EVERYTHING  --sampling ask: the reply typed on a terminal
#   test_cli_live.sh http CLI DEMO        tools call over --url against demo_server --http
#   test_cli_live.sh bridge CLI DEMO      mcp-cpp over stdio to mcp-cpp bridge --url, to the demo
#   test_cli_live.sh listen CLI DEMO      mcp-cpp and curl over HTTP to mcp-cpp bridge --listen,
#                                         which runs the demo over stdio (a child per session)
#   test_cli_live.sh inspect CLI DEMO     the interactive session driven through a pipe
#   test_cli_live.sh inspect_tmux CLI DEMO  ... and on a terminal, through tmux (77 without it)
#   test_cli_live.sh tasks CLI DEMO       tools call --detach, then tasks list/result/get/cancel in
#                                         later runs on the same task store
# The server runs behind `tee`, so that $dir/wire holds every message mcp-cpp sent it.
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

# mcp-cpp ARGS... -- (the demo server behind tee)
server_behind_tee="tee -a '$dir/wire' | '$demo' --task-store :memory:"
call() { "$cli" "$@" -- sh -c "$server_behind_tee"; }

# Starts the demo over HTTP on a free port; its URL in $url.
http_demo() {
  : >"$dir/server"  # emptied first: the loop may read it before the server truncates it
  "$demo" --http 127.0.0.1:0 --task-store :memory: 2>"$dir/server" &
  server=$!
  i=0
  until url=$(grep -o 'http://[^ ]*' "$dir/server"); do
    i=$((i + 1)); [ $i -gt 100 ] && fail "the server printed no URL"; sleep 0.1
  done
}

case $mode in
interrupt)
  "$cli" tools call slow_count steps=100 step_ms=100 --audit "$dir/audit" \
    -- sh -c "$server_behind_tee" >"$dir/out" 2>"$dir/err" </dev/null &
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
  grep -q '"method":"notifications/cancelled","params":{"requestId":[0-9]*,"reason":"interrupted' \
    "$dir/wire" || fail "no notifications/cancelled on the wire"
  ;;
refuse)
  call tools call forecast city=Oslo days=99 </dev/null >"$dir/out" 2>&1
  [ $? -eq 2 ] || fail "days=99: exit status not 2"
  call tools call unlock_admin </dev/null >>"$dir/out" 2>&1
  [ $? -eq 2 ] || fail "unlock_admin without --yes: exit status not 2"
  [ "$(grep -c '"method":"tools/list"' "$dir/wire")" -eq 2 ] || fail "expected two tools/list"
  ! grep -q '"method":"tools/call"' "$dir/wire" || fail "a tools/call was sent"
  ;;
prompt)
  command -v script >/dev/null || { echo "SKIPPED: needs script(1)"; exit 77; }
  for answer in y n; do
    (sleep 0.3; printf '%s\n' $answer) |
      script -qec "exec '$cli' tools call unlock_admin --audit '$dir/audit' -- '$demo' --task-store :memory:" \
        /dev/null >"$dir/$answer" 2>&1
    echo $? >"$dir/$answer.code"
  done
  grep -q "Call it? \[y/N\]" "$dir/y" || fail "no prompt"
  grep -q "annotations (unverified hints): destructive, idempotent" "$dir/y" || fail "no badges"
  grep -q "admin.stats is now enabled" "$dir/y" || fail "yes did not call"
  [ "$(cat "$dir/y.code")" = 0 ] || fail "yes: exit status not 0"
  grep -q "not called" "$dir/n" || fail "no did call"
  [ "$(cat "$dir/n.code")" = 2 ] || fail "no: exit status not 2"
  grep -q '"outcome":"ok"' "$dir/audit" && grep -q '"outcome":"denied"' "$dir/audit" ||
    fail "audit"
  ;;
http)
  http_demo
  out=$("$cli" tools call echo text=over-http --url "$url" --header "X-Test: 1" </dev/null) ||
    fail "exit status $?"
  [ "$out" = "over-http" ] || fail "output '$out'"
  "$cli" tools list --url "$url" </dev/null | grep -q "forecast  *read-only" || fail "list"
  ;;
bridge)
  # mcp-cpp as a stdio client of `mcp-cpp bridge --url`, which speaks to the demo over HTTP.
  http_demo
  out=$("$cli" tools call echo text=bridged -- "$cli" bridge --url "$url" </dev/null) ||
    fail "tools call through the bridge: exit status $?"
  [ "$out" = "bridged" ] || fail "output '$out'"
  "$cli" tools call slow_count steps=3 step_ms=20 -- "$cli" bridge --url "$url" </dev/null \
    >"$dir/out" 2>&1 || fail "a call with progress through the bridge: exit status $?"
  grep -q "\"completed\": 3" "$dir/out" || fail "slow_count through the bridge: $(cat "$dir/out")"
  printf 'not json\n{"jsonrpc":"2.0","id":1}\n' | "$cli" bridge --url "$url" >"$dir/out" ||
    fail "the bridge failed on bad input"
  grep -q '"code":-32700' "$dir/out" || fail "no parse error for a line that is not JSON"
  grep -q '"code":-32600' "$dir/out" || fail "no invalid request for a message without a method"
  # A client that pipelines: everything after initialize waits for its answer (the session id),
  # and the end of stdin waits for the answers still owed. A batch is refused here.
  {
    echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}'
    echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
    echo '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow_count","arguments":{"steps":2,"step_ms":50}}}'
    echo '[{"jsonrpc":"2.0","id":3,"method":"ping"}]'
  } | "$cli" bridge --url "$url" >"$dir/out" || fail "the pipelined bridge failed"
  grep -q '"id":1,"result":{"protocolVersion"' "$dir/out" || fail "no initialize answer"
  grep -q '"id":2,"result":' "$dir/out" || fail "no answer to the call sent at the end of stdin"
  grep -q 'no JSON-RPC batches' "$dir/out" || fail "a batch was not refused"
  [ "$(grep -c . "$dir/out")" -ge 4 ] || fail "expected one line per message"
  # A cancellation forwarded: the server stops the call, nothing is answered or reported for it,
  # and the end of stdin does not wait for it (the call would take 10 s).
  t0=$(date +%s)
  {
    echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}'
    echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
    echo '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow_count","arguments":{"steps":100,"step_ms":100}}}'
    sleep 0.5
    echo '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"stop"}}'
  } | "$cli" bridge --url "$url" >"$dir/out" 2>"$dir/err" || fail "the cancelling bridge failed"
  [ $(($(date +%s) - t0)) -lt 6 ] || fail "the bridge waited for the cancelled call"
  ! grep -q '"id":2' "$dir/out" || fail "an answer for the cancelled call: $(cat "$dir/out")"
  [ ! -s "$dir/err" ] || fail "the bridge reported: $(cat "$dir/err")"
  # The server gone mid-session: a request that gets no HTTP answer is answered -32000 with the
  # reason (the SDK's own code for a lost connection is not passed on).
  {
    echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}'
    echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
    sleep 0.5
    kill "$server"; sleep 1  # its listener closed: the next request gets no answer
    echo '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}'
  } | "$cli" bridge --url "$url" >"$dir/out" 2>"$dir/err"
  grep -q '"id":2,"error":{"code":-32000,"message":"HTTP request failed' "$dir/out" ||
    fail "no -32000 for a request the gone server did not answer: $(cat "$dir/out" "$dir/err")"
  ;;
sampling)
  # DEMO is the everything server here: its test_sampling asks the client's model.
  command -v script >/dev/null || { echo "SKIPPED: needs script(1)"; exit 77; }
  for answer in "typed by hand" ""; do
    (sleep 0.5; printf '%s\n' "$answer") |
      script -qec "exec '$cli' tools call test_sampling prompt=hello --sampling ask --yes -- '$demo'" \
        /dev/null >"$dir/out" 2>&1
    code=$?
    grep -q "The server asks for a model reply (at most 100 tokens)" "$dir/out" || fail "no request shown"
    grep -q "\[user\] hello" "$dir/out" || fail "the message was not shown"
    if [ -n "$answer" ]; then
      [ $code = 0 ] || fail "a typed reply: exit status $code"
      grep -q "LLM response: typed by hand" "$dir/out" || fail "the reply did not reach the tool"
    else
      [ $code = 1 ] || fail "an empty reply: exit status $code, not 1 (a tool error)"
      grep -q "Sampling failed: the user rejected" "$dir/out" || fail "no refusal"
    fi
  done
  # Ctrl-C while the reply is being typed: the call is cancelled, the server withdraws its
  # request, the prompt says so and stops waiting. stdin stays open 5 s longer: the command must
  # not wait for it. script(1) runs its command through $SHELL, and dash (/bin/sh) stays as the
  # parent, in the terminal's process group, so the Ctrl-C would end the shell (status 130):
  # `exec` makes the command script's own child whatever $SHELL is, so the status is its own.
  t0=$(date +%s%N)
  (sleep 0.7; printf '\003'; sleep 5) | {
    script -qec "exec '$cli' tools call test_sampling prompt=hello --sampling ask --yes -- '$demo'" \
      /dev/null >"$dir/out" 2>&1
    echo "$? $(date +%s%N)" >"$dir/end"
  }
  read -r code t1 <"$dir/end"
  took=$(( (t1 - t0) / 1000000 ))
  [ $code = 2 ] || fail "Ctrl-C during sampling: exit status $code, not 2"
  grep -q "the call was cancelled" "$dir/out" || fail "Ctrl-C did not cancel the call"
  grep -q "the server no longer waits for this answer" "$dir/out" || fail "the prompt kept waiting"
  [ "$took" -lt 3700 ] || fail "the command ended ${took} ms after it started (Ctrl-C at 700 ms)"
  # Without --sampling the capability is not offered: the server's tool says so.
  "$cli" tools call test_sampling prompt=hello --yes -- "$demo" </dev/null >"$dir/out" 2>&1
  [ $? = 1 ] || fail "sampling not offered: not a tool error"
  grep -q "Sampling failed" "$dir/out" || fail "no tool error without --sampling"
  ;;
listen)
  # `bridge --listen`: a child per session, shut down with its session; the HTTP server's checks.
  command -v curl >/dev/null || { echo "curl not found: SKIPPED"; exit 77; }
  start_bridge() {  # start_bridge ARGS... -- CMD: the bridge's pid in $server, its URL in $url
    # Emptied first: the loop below may read the file before the new bridge truncates it, and
    # would then take the URL of the bridge stopped before (a refused connection, "no session").
    : >"$dir/bridge"
    "$cli" bridge --listen 127.0.0.1:0 "$@" 2>"$dir/bridge" </dev/null &
    server=$!
    i=0
    until url=$(grep -o 'http://[^ ]*' "$dir/bridge"); do
      i=$((i + 1)); [ $i -gt 100 ] && fail "the bridge printed no URL"; sleep 0.1
    done
  }
  stop_bridge() { kill "$server" && wait "$server"; rc=$?; server=; [ $rc -eq 0 ] || fail "bridge exit $rc"; }
  init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
  post() {  # post SESSION BODY [HEADER]: prints the status line, headers and body
    curl -s -i --max-time 10 -X POST "$url" -H 'Content-Type: application/json' \
      -H 'Accept: application/json, text/event-stream' ${1:+-H "Mcp-Session-Id: $1"} \
      ${3:+-H "$3"} -d "$2"
  }
  session_of() { tr -d '\r' | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: //p'; }
  children() { pgrep -P "$server" | wc -l; }

  start_bridge --max-sessions 2 -- sh -c "$server_behind_tee"
  out=$("$cli" tools call echo text=listened --url "$url" </dev/null) ||
    fail "tools call through the bridge: exit status $?"
  [ "$out" = "listened" ] || fail "output '$out'"
  "$cli" tools call slow_count steps=3 step_ms=20 --url "$url" </dev/null >"$dir/out" 2>&1 ||
    fail "a call with progress through the bridge: exit status $?"
  grep -q "progress: 3/3" "$dir/out" || fail "no progress through the bridge: $(cat "$dir/out")"
  grep -q '"completed": 3' "$dir/out" || fail "slow_count through the bridge: $(cat "$dir/out")"
  post "" "$init" "Origin: http://evil.example" | grep -q "^HTTP/1.1 403" ||
    fail "a foreign Origin was not refused"
  # Two sessions, two children; a third is refused; DELETE ends one and its child.
  # (The children of the two calls above are shut down after their DELETE: wait for that.)
  i=0
  until [ "$(children)" -eq 0 ]; do
    i=$((i + 1)); [ $i -gt 100 ] && fail "the children of ended sessions still run"; sleep 0.1
  done
  s1=$(post "" "$init" | session_of)
  s2=$(post "" "$init" | session_of)
  [ -n "$s1" ] && [ -n "$s2" ] && [ "$s1" != "$s2" ] || fail "sessions '$s1' '$s2'"
  [ "$(children)" -eq 2 ] || fail "$(children) children for 2 sessions"
  post "" "$init" | grep -q "^HTTP/1.1 503" || fail "a session over --max-sessions was let in"
  post "$s1" '{"jsonrpc":"2.0","id":2,"method":"ping"}' | grep -q '"id":2,"result":{}' ||
    fail "no ping answer in session 1"
  curl -s -o /dev/null -w '%{http_code}' -X DELETE -H "Mcp-Session-Id: $s1" "$url" |
    grep -q 200 || fail "DELETE refused"
  i=0
  until [ "$(children)" -eq 1 ]; do
    i=$((i + 1)); [ $i -gt 100 ] && fail "the child of a deleted session still runs"; sleep 0.1
  done
  post "$s1" '{"jsonrpc":"2.0","id":3,"method":"ping"}' | grep -q "^HTTP/1.1 404" ||
    fail "a deleted session still answers"
  # A cancelled call gets no answer: its stream ends at once (empty), and the session is not
  # held busy by it.
  s3=$(post "" "$init" | session_of)
  post "$s3" '{"jsonrpc":"2.0","method":"notifications/initialized"}' >/dev/null
  post "$s3" '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow_count","arguments":{"steps":100,"step_ms":100}}}' \
    >"$dir/cancelled" &
  call=$!
  # Cancelled until its stream ends (a cancellation that comes before the call is ignored).
  i=0
  while kill -0 $call 2>/dev/null; do
    i=$((i + 1)); [ $i -gt 30 ] && fail "the stream of a cancelled call did not end"
    post "$s3" '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}' |
      grep -q "^HTTP/1.1 202" || fail "the cancellation was not accepted"
    sleep 0.1
  done
  grep -q "^HTTP/1.1 200" "$dir/cancelled" || fail "the cancelled call's POST: $(cat "$dir/cancelled")"
  post "$s3" '{"jsonrpc":"2.0","id":8,"method":"ping"}' | grep -q '"id":8,"result":{}' ||
    fail "the session does not answer after a cancellation"
  grep -q '"id":7' "$dir/cancelled" && fail "a cancelled call was answered"
  stop_bridge  # SIGTERM: the last children are shut down too, and the bridge exits 0
  grep -q "tools/call" "$dir/wire" || fail "the demo saw no call"

  # --max-requests: beyond the cap a session's requests are refused at the bridge (-32600), and
  # a cancelled request frees its place. The child answers initialize, then only listens (what
  # it is sent goes to a file; its shell keeps stdout open), so the requests stay in flight.
  answer='{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"mute","version":"1"}}}'
  start_bridge --max-requests 2 -- sh -c "read -r line; echo '$answer'; cat >'$dir/mute_in'"
  s5=$(post "" "$init" | session_of)
  [ -n "$s5" ] || fail "no session from the listening server"
  held=
  for id in 11 12; do
    curl -s -o /dev/null --max-time 30 -X POST "$url" -H 'Content-Type: application/json' \
      -H 'Accept: application/json, text/event-stream' -H "Mcp-Session-Id: $s5" \
      -d '{"jsonrpc":"2.0","id":'$id',"method":"ping"}' &
    held="$held $!"
  done
  i=0  # both reached the child: two requests in flight
  until [ "$(grep -c '"method":"ping"' "$dir/mute_in" 2>/dev/null)" = 2 ]; do
    i=$((i + 1)); [ $i -gt 200 ] && fail "the held requests did not reach the child"; sleep 0.05
  done
  post "$s5" '{"jsonrpc":"2.0","id":13,"method":"ping"}' |
    grep -q '"id":13,"error":{"code":-32600,"message":"Invalid Request: too many requests in flight"' ||
    fail "a request over --max-requests was not refused"
  post "$s5" '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":11}}' |
    grep -q "^HTTP/1.1 202" || fail "the cancellation was not accepted"
  # Its place is free: the next request goes to the child (and waits there: curl gives up).
  post "$s5" '{"jsonrpc":"2.0","id":14,"method":"ping"}' "" >/dev/null 2>&1 &
  i=0
  until grep -q '"id":14' "$dir/mute_in" 2>/dev/null; do
    i=$((i + 1)); [ $i -gt 200 ] && fail "a cancelled request did not free its place"; sleep 0.05
  done
  kill $held $! 2>/dev/null
  stop_bridge

  # A child that stops reading (after answering initialize) holds up nobody else, and does not
  # stop the bridge from ending.
  answer='{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"stuck","version":"1"}}}'
  stuck="read -r line; case \$line in *stuck*) echo '$answer'; exec sleep 600;; esac;"
  stuck="$stuck { printf '%s\\n' \"\$line\"; cat; } | exec '$demo' --task-store :memory:"
  start_bridge -- sh -c "$stuck"
  slow=$(post "" "$(echo "$init" | sed 's/"curl"/"stuck"/')" | session_of)
  [ -n "$slow" ] || fail "no session for the stuck child"
  { printf '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"'
    head -c 300000 /dev/zero | tr '\0' x
    printf '"}}'; } >"$dir/big"
  for _ in 1 2 3 4; do  # 1.2 MB: far more than a pipe holds
    curl -s -i --max-time 10 -X POST "$url" -H 'Content-Type: application/json' \
      -H 'Accept: application/json, text/event-stream' -H "Mcp-Session-Id: $slow" \
      --data-binary @"$dir/big" | grep -q "^HTTP/1.1 202" || fail "a large notification refused"
  done
  rm "$dir/big"
  s4=$(post "" "$init" | session_of)
  post "$s4" '{"jsonrpc":"2.0","id":2,"method":"ping"}' | grep -q '"id":2,"result":{}' ||
    fail "a stuck child held up another session"
  t0=$(date +%s)
  stop_bridge
  [ $(($(date +%s) - t0)) -le 8 ] || fail "the bridge took more than 8 s to stop"

  # A child that exits after initialize ends its session: the client gets 404.
  answer='{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"brief","version":"1"}}}'
  start_bridge -- sh -c "read -r line; echo '$answer'"
  s=$(post "" "$init" | session_of)
  [ -n "$s" ] || fail "no session from the brief server"
  i=0
  until post "$s" '{"jsonrpc":"2.0","id":2,"method":"ping"}' | grep -q "^HTTP/1.1 404"; do
    i=$((i + 1)); [ $i -gt 50 ] && fail "the session of an exited child lives on"; sleep 0.1
  done
  stop_bridge
  # A command that cannot be run: 503, and the bridge keeps serving.
  start_bridge -- /nonexistent/server
  post "" "$init" | grep -q "^HTTP/1.1 503" || fail "an unrunnable command was not a 503"
  grep -q "cannot run /nonexistent/server" "$dir/bridge" || fail "no reason on stderr"
  stop_bridge
  "$cli" bridge --listen nonsense -- true 2>"$dir/err" && fail "a bad --listen was accepted"
  grep -q "HOST:PORT" "$dir/err" || fail "no usage for a bad --listen"
  ;;
inspect)
  # The interactive session driven through a pipe: list, describe, call asking for each
  # argument (Enter takes a default), a confirmation, resources, an unknown command.
  printf '%s\n' tools "describe forecast" "call forecast" Oslo 2 "" "call unlock_admin" y \
    "call nope" bogus resources quit |
    "$cli" inspect -- "$demo" --task-store :memory: >"$dir/out" 2>"$dir/err" ||
    fail "inspect: exit status $?"
  for want in "connected to mcp-cpp-demo" "forecast  *read-only" "days (integer)" \
    'call forecast {' '"city": "Oslo"' '"days": 2' '"day": 2,' "Call it? \[y/N\]" \
    "admin.stats is now enabled" "no tool named 'nope'" "unknown command 'bogus'"; do
    grep -q "$want" "$dir/out" || fail "inspect output lacks '$want'"
  done
  ;;
inspect_tmux)
  # The same on a terminal, through tmux: what a person sees.
  command -v tmux >/dev/null || { echo "tmux not found: SKIPPED"; exit 77; }
  sock="$dir/tmux"
  tmux -S "$sock" new-session -d -x 160 -y 50 "$cli inspect -- $demo --task-store :memory:"
  screen() { tmux -S "$sock" capture-pane -p -S -200; }
  wait_for() {
    i=0
    until screen | grep -q "$1"; do
      i=$((i + 1)); [ $i -gt 100 ] && { screen; fail "no '$1' on the screen"; }; sleep 0.1
    done
  }
  keys() { tmux -S "$sock" send-keys "$1" Enter; }
  wait_for "^mcp>"
  keys "call forecast"
  wait_for "city (string)"
  keys Bergen
  wait_for "days (integer)"
  keys 3
  wait_for "unit"
  keys ""
  wait_for '"city": "Bergen"'
  keys quit
  tmux -S "$sock" kill-server 2>/dev/null || true
  ;;
tasks)
  # Tasks outlive the processes: each mcp-cpp run starts the demo on the same task store (tasks
  # are bound to the local caller), and a task cut off by its server's exit runs again in the
  # next one (slow_task may).
  srv() { echo "$demo" --task-store "$dir/tasks.db"; }
  id=$("$cli" tools call slow_task steps=3 step_ms=50 --detach -- $(srv) </dev/null) ||
    fail "tools call --detach: exit status $?"
  [ -n "$id" ] || fail "no task id printed"
  "$cli" tasks list -- $(srv) </dev/null >"$dir/out" || fail "tasks list: exit status $?"
  grep -q "^$id " "$dir/out" || fail "tasks list does not show $id"
  "$cli" tasks result "$id" -- $(srv) </dev/null >"$dir/out" || fail "tasks result: exit status $?"
  grep -qx "done 3" "$dir/out" || fail "the task's result is not 'done 3'"
  "$cli" tasks get "$id" --json -- $(srv) </dev/null >"$dir/out" || fail "tasks get: exit status $?"
  grep -q '"status":"completed"' "$dir/out" || fail "the task is not completed"
  long=$("$cli" tools call slow_task steps=1000 step_ms=100 --detach -- $(srv) </dev/null) ||
    fail "a second detached task: exit status $?"
  "$cli" tasks cancel "$long" -- $(srv) </dev/null >"$dir/out" || fail "tasks cancel: exit status $?"
  grep -q "^$long  cancelled" "$dir/out" || fail "the task was not cancelled"
  "$cli" tasks get nope -- $(srv) </dev/null 2>"$dir/err" && fail "an unknown task id succeeded"
  grep -q "tasks/get nope failed" "$dir/err" || fail "no message for an unknown task"
  ;;
*) fail "unknown mode $mode" ;;
esac
echo ok
