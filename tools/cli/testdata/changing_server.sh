#!/bin/sh
# The demo server ($1) under a tool policy that changes two seconds after it starts: the server
# reloads it and says its tools changed (for `mcp-cpp watch`).
dir=$(mktemp -d)
echo '{}' > "$dir/policy.json"
(sleep 2 && echo '{"tools": {"nothing": {"deny": true}}}' > "$dir/policy.json" && sleep 8 &&
  rm -rf "$dir") </dev/null >/dev/null 2>&1 &
exec "$1" --task-store :memory: --policy "$dir/policy.json"
