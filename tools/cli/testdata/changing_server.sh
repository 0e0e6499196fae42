#!/bin/sh
# The demo server ($1) under a tool policy that changes every two seconds, eight times: the
# server reloads it and says its tools changed (for `mcp-cpp watch`; a change made before the
# watcher's stream is open is not heard, so one change alone would race a slow start).
dir=$(mktemp -d)
echo '{}' > "$dir/policy.json"
(for i in 1 2 3 4 5 6 7 8; do
   sleep 2
   if [ $((i % 2)) -eq 1 ]; then
     echo '{"tools": {"nothing": {"deny": true}}}' > "$dir/policy.json"
   else
     echo '{}' > "$dir/policy.json"
   fi
 done
 sleep 4 && rm -rf "$dir") </dev/null >/dev/null 2>&1 &
exec "$1" --task-store :memory: --policy "$dir/policy.json"
