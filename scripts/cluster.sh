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
# asked, a node killed fails only its in-flight calls (docs/design-cluster.md). Needs the Debian
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
for prog in redis-server redis-cli haproxy python3; do
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

# shellcheck source=cluster-lib.sh
source "$root/scripts/cluster-lib.sh"
cluster_redis "$dir" || exit 1
redis_url="$cluster_redis_url"

addrs=()
for i in $(seq "$nodes"); do
  cluster_node "$bin" "$dir/node$i.log" --redis "$redis_url" \
    --task-store "$redis_url/mcp-demo-tasks" || exit 1
  addrs+=("$cluster_node_addr")
  echo "node $i: http://$cluster_node_addr/mcp (log $dir/node$i.log)" >&2
done

cluster_haproxy "$dir" "$port" "${addrs[@]}" || exit 1
echo "redis: $redis_url" >&2
echo "$cluster_proxy_url"
echo "cluster.sh: $nodes nodes behind HAProxy; Ctrl-C stops them" >&2
wait "${pids[0]}"
