#!/usr/bin/env bash
# Byte-identical answers between two builds of the demo server over stdio: both read the same
# mixed input (plain calls in many shapes, bad arguments, isError, unknown tools, `_meta`, `task`,
# duplicates, cut lines, tools that use their context, a pool-thread tool, tools/list, ping) and
# their answers are compared sorted (a pool-thread tool's answer may come in any order). The
# pool-thread calls are 30 in all, so that however they pile up, none is refused by the demo's
# concurrency limit (a caller's share is 32 of 64), which would depend on timing.
#   same_answers.sh BASE_DEMO NEW_DEMO [ROUNDS]      (ROUNDS: 3; 25 shapes, about 6,500 lines)
# Exits 1 and prints the first differences when the answers differ.
set -euo pipefail
base="$(realpath "${1:?usage: same_answers.sh BASE_DEMO NEW_DEMO [ROUNDS]}")"
new="$(realpath "${2:?usage: same_answers.sh BASE_DEMO NEW_DEMO [ROUNDS]}")"
rounds="${3:-3}"
work="$(mktemp -d)"
trap '[[ -n "${KEEP_WORK:-}" ]] || rm -rf "$work"' EXIT

{
  echo '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"same_answers.sh","version":"1.0"}}}'
  echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  awk 'BEGIN {
    q = "\""
    for (i = 1; i <= 400; ++i) {
      b = i * 100
      printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hello %d\"}}}\n", b, i
      printf "{ \"params\" : { \"arguments\" : { \"text\" : \"x\" } , \"name\" : \"echo\" } , \"method\":\"tools/call\", \"id\" : \"s%d\" , \"jsonrpc\" : \"2.0\" }\n", b + 1
      printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"a\",\"extra\":1}}}\n", b + 2
      printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":5}}}\n", b + 3
      printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{}}}\n", b + 4
      printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"nope\",\"arguments\":{\"text\":\"a\"}}}\n", b + 5
      printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"m\"},\"_meta\":{\"progressToken\":%d}}}\n", b + 6, i
      printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"t\"},\"task\":{}}}\n", b + 7
      printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"name\":\"echo\",\"arguments\":{\"text\":\"d\"}}}\n", b + 8
      printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"cut\n", b + 9
      printf "{\"jsonrpc\":\"2.0\",\"id\":%d.5,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"f\"}}}\n", b + 10
      printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"caf\\u00e9 \\\"q\\\"\"}}}\n", -(b + 11)
      printf "{\"jsonrpc\":\"1.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"v\"}}}\n", b + 12
      if (i % 100 == 0) printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"fail\",\"arguments\":{\"reason\":\"r%d\"}}}\n", b + 13, i
      if (i % 100 == 0) printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"forecast\",\"arguments\":{\"city\":\"Oslo\",\"days\":2}}}\n", b + 14
      if (i % 100 == 0) printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"forecast\",\"arguments\":{\"city\":\"\",\"days\":99}}}\n", b + 15
      if (i % 100 == 0) printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"make_image\",\"arguments\":{}}}\n", b + 16
      if (i % 100 == 0) printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"related_links\",\"arguments\":{}}}\n", b + 17
      if (i % 100 == 0) printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"admin.stats\",\"arguments\":{}}}\n", b + 18
      if (i % 100 == 0) printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"ask_name\",\"arguments\":{}}}\n", b + 19
      printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"arguments\":{\"text\":\"n\"}}}\n", b + 20
      printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":[1]}}\n", b + 21
      if (i % 40 == 0) printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/list\"}\n", b + 22
      printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}\n", b + 23
      if (i % 200 == 0) printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"slow_count\",\"arguments\":{\"steps\":1,\"step_ms\":1},\"_meta\":{\"progressToken\":\"p%d\"}}}\n", b + 24, i
    }
  }'
} > "$work/in"

status=0
for ((r = 1; r <= rounds; ++r)); do
  "$base" --no-rate-limit --task-store :memory: < "$work/in" 2>/dev/null | LC_ALL=C sort > "$work/base.$r"
  "$new" --no-rate-limit --task-store :memory: < "$work/in" 2>/dev/null | LC_ALL=C sort > "$work/new.$r"
  if ! cmp -s "$work/base.$r" "$work/new.$r"; then
    echo "round $r: answers differ" >&2
    diff "$work/base.$r" "$work/new.$r" | head -20 >&2
    status=1
  fi
done
lines=$(wc -l < "$work/in")
answers=$(wc -l < "$work/base.1")
echo "$lines lines in, $answers answers, $rounds rounds: $([[ $status == 0 ]] && echo identical || echo DIFFERENT)"
exit "$status"
