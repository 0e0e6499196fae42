#!/usr/bin/env bash
# Many demo server processes, one MCP service: redis-server, N demo_server processes sharing
# it (--redis) and a round-robin HAProxy in front, all on 127.0.0.1. Prints the service's URL,
# then waits; Ctrl-C (or SIGTERM, or the end of the script) stops everything it started.
#
#   scripts/cluster.sh 3                   three nodes (the demo built with the release preset)
#   scripts/cluster.sh 3 --port 8080       HAProxy on 127.0.0.1:8080 (default: a free port)
#   DEMO_SERVER=build/ci/examples/demo_server scripts/cluster.sh 2    a demo built already
#
# Every request may reach any node: a session opened on one is served by the others, SSE
# streams resume anywhere, tasks are read anywhere, a client's answer reaches the node that
# asked, a node killed fails only its in-flight calls (docs/design-services.md). Needs the Debian
# packages redis-server and haproxy (scripts/debian-packages.txt).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
nodes="${1:-3}"
shift || true
port=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --port) port="$2"; shift 2 ;;
    *) echo "cluster.sh: unknown argument $1 (usage: cluster.sh N [--port P])" >&2; exit 2 ;;
  esac
done
if ! [[ "$nodes" =~ ^[1-9][0-9]*$ ]]; then
  echo "cluster.sh: N must be a positive number of nodes, not '$nodes'" >&2
  exit 2
fi
for prog in redis-server haproxy python3; do
  command -v "$prog" >/dev/null || { echo "cluster.sh: $prog is not installed (apt-get install $prog)" >&2; exit 1; }
done

bin="${DEMO_SERVER:-}"
if [[ -z "$bin" ]]; then
  cd "$root"
  export MCP_CCACHE="$(command -v ccache || true)" CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
  cmake --preset release >/dev/null
  cmake --build --preset release -j"$(nproc)" --target demo_server >&2
  bin="$root/build/release/examples/demo_server"
fi

dir="$(mktemp -d -t mcp-cluster.XXXXXX)"
pids=()
stop() {
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap stop EXIT
trap 'exit 0' INT TERM

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

redis_port="$(free_port)"
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
  --logfile "$dir/redis.log" --daemonize no &
pids+=($!)
for _ in $(seq 100); do
  [[ "$(redis-cli -p "$redis_port" ping 2>/dev/null || true)" == PONG ]] && break
  sleep 0.05
done
redis_url="redis://127.0.0.1:$redis_port"

backends=""
for i in $(seq "$nodes"); do
  "$bin" --http 127.0.0.1:0 --redis "$redis_url" --task-store "$redis_url/mcp-demo-tasks" \
    2>"$dir/node$i.log" &
  pids+=($!)
  url=""
  for _ in $(seq 200); do
    url="$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$dir/node$i.log" | head -1 || true)"
    [[ -n "$url" ]] && break
    sleep 0.05
  done
  if [[ -z "$url" ]]; then
    echo "cluster.sh: node $i did not start:" >&2
    cat "$dir/node$i.log" >&2
    exit 1
  fi
  backends+="  server node$i ${url#http://} check inter 200ms fall 1 rise 2"$'\n'
  echo "node $i: $url/mcp (log $dir/node$i.log)" >&2
done

[[ "$port" == 0 ]] && port="$(free_port)"
cat >"$dir/haproxy.cfg" <<CFG
global
  maxconn 4096
defaults
  mode http
  # Streamed answers (SSE: a question to the client, progress, a GET stream's notifications)
  # are forwarded as they come: without it HAProxy holds a partial chunk back (MSG_MORE) and the
  # kernel sends it 200 ms later, which every elicitation round through the proxy paid.
  option http-no-delay
  timeout connect 2s
  timeout client 10m
  timeout server 10m
  timeout http-keep-alive 2m
frontend mcp
  bind 127.0.0.1:$port
  default_backend nodes
backend nodes
  balance roundrobin
  # A node that dies is taken out by its failed health check (every 200 ms); a request whose
  # connection to a node cannot be made goes to another one. Never a retry of a request that
  # reached a node (it may have run): only its in-flight calls fail.
  retries 3
  option redispatch 1
  retry-on conn-failure
$backends
CFG
haproxy -f "$dir/haproxy.cfg" -db &
pids+=($!)
sleep 0.3
echo "redis: $redis_url" >&2
echo "http://127.0.0.1:$port/mcp"
echo "cluster.sh: $nodes nodes behind HAProxy; Ctrl-C stops them" >&2
wait "${pids[0]}"
