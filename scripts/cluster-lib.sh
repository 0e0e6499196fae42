# shellcheck shell=bash
# The pieces of a cluster on 127.0.0.1, for scripts that source this file (scripts/cluster.sh,
# bench/cluster/compare.sh): a redis-server, demo server processes sharing it and a round-robin
# HAProxy in front. Each function starts one process in the background, appends its pid to the
# caller's array `pids` (the caller stops them) and sets cluster_pid to it, then waits until it
# serves; on failure it says why and returns 1.
# Needs redis-server, redis-cli, haproxy and python3.

cluster_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# cluster_redis DIR: redis-server on a free port, nothing saved, its log in DIR/redis.log.
# Sets cluster_pid and cluster_redis_url.
cluster_redis() {
  local dir="$1" port
  port="$(cluster_free_port)"
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
    --logfile "$dir/redis.log" --daemonize no >/dev/null 2>&1 &
  cluster_pid=$!
  pids+=("$cluster_pid")
  cluster_redis_url="redis://127.0.0.1:$port"
  for _ in $(seq 100); do
    [[ "$(redis-cli -p "$port" ping 2>/dev/null || true)" == PONG ]] && return 0
    sleep 0.05
  done
  echo "cluster: redis-server did not start (log $dir/redis.log)" >&2
  return 1
}

# cluster_node DEMO_SERVER LOG [ARGS...]: the demo on a free port (it prints its URL to LOG, its
# stderr), with ARGS (--redis URL and the like). Sets cluster_pid and cluster_node_addr
# (127.0.0.1:PORT).
cluster_node() {
  local bin="$1" log="$2" url=""
  shift 2
  "$bin" --http 127.0.0.1:0 "$@" >/dev/null 2>"$log" &
  cluster_pid=$!
  pids+=("$cluster_pid")
  for _ in $(seq 200); do
    url="$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$log" | head -1 || true)"
    if [[ -n "$url" ]]; then
      cluster_node_addr="${url#http://}"
      return 0
    fi
    sleep 0.05
  done
  echo "cluster: $bin did not start:" >&2
  cat "$log" >&2
  return 1
}

# cluster_haproxy DIR PORT ADDR...: HAProxy on 127.0.0.1:PORT (0: a free one) spreading requests
# round-robin over the nodes at ADDR..., its configuration in DIR/haproxy.cfg. Sets cluster_pid
# and cluster_proxy_url (http://127.0.0.1:PORT/mcp).
cluster_haproxy() {
  local dir="$1" port="$2" backends="" i=0 addr
  shift 2
  for addr in "$@"; do
    i=$((i + 1))
    backends+="  server node$i $addr check inter 200ms fall 1 rise 2"$'\n'
  done
  [[ "$port" == 0 ]] && port="$(cluster_free_port)"
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
  cluster_pid=$!
  pids+=("$cluster_pid")
  cluster_proxy_url="http://127.0.0.1:$port/mcp"
  for _ in $(seq 200); do
    (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    sleep 0.05
  done
  echo "cluster: haproxy did not start on 127.0.0.1:$port" >&2
  return 1
}
