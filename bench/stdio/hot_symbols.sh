#!/usr/bin/env bash
# The functions of a server binary that every stdio `tools/call echo` runs, as mangled symbol
# names, most instructions first: the order a linker's --symbol-ordering-file takes to lay the
# call path out in one stretch of code (bench/RESULTS.md, "Where the stdio call's CPU goes").
# callgrind runs the server on `initialize` and N calls from a file; a function is on the path
# when it is called at least N times, and is named only when it lives in the binary itself
# (libc's and libstdc++'s cannot be moved).
#   hot_symbols.sh SERVER [N] > symbols.txt      (N: 20000)
# Needs: valgrind, python3.
set -euo pipefail
server="$(realpath "${1:?usage: hot_symbols.sh SERVER [N]}")"
n="${2:-20000}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

init='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"hot_symbols.sh","version":"1.0"}}}'
printf '%s\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n' "$init" > "$work/calls"
awk -v n="$n" 'BEGIN { for (i = 1; i <= n; ++i)
  printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hello\"}}}\n", i }' \
  >> "$work/calls"
valgrind -q --tool=callgrind --demangle=no --callgrind-out-file="$work/cg" \
  "$server" --no-rate-limit --task-store :memory: < "$work/calls" > /dev/null 2>&1

python3 - "$work/cg" "$server" "$n" <<'PY'
import collections, re, sys
path, server, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = {}            # compressed name ids: ("ob", "3") -> "/usr/lib/..."
calls = collections.Counter()
cost = collections.Counter()
home = {}             # function -> object it lives in
fn = ob = cfn = cob = None
after_calls = False

def name(kind, text):
    m = re.match(r"\((\d+)\)(?: (.*))?$", text)
    if not m:
        return text
    if m.group(2):
        names[(kind, m.group(1))] = m.group(2)
    return names.get((kind, m.group(1)))

for line in open(path):
    line = line.rstrip("\n")
    key, _, rest = line.partition("=")
    if key in ("ob", "cob"):
        value = name("ob", rest)
        if key == "ob":
            ob = value
        else:
            cob = value
    elif key in ("fn", "cfn"):
        value = name("fn", rest)
        if key == "fn":
            fn, cob = value, None
            home.setdefault(fn, ob)
        else:
            cfn = value
    elif key == "calls":
        calls[cfn] += int(rest.split()[0])
        home.setdefault(cfn, cob or ob)
        cob = None  # a callee's object is named for one call line only
        after_calls = True
    elif line[:1] in tuple("0123456789+-*"):
        if after_calls:  # the inclusive cost of the call just named
            after_calls = False
            continue
        parts = line.split()
        if len(parts) >= 2:
            cost[fn] += int(parts[1])
hot = [f for f, c in calls.items() if c >= n and home.get(f) == server]
for f in sorted(hot, key=lambda f: -cost[f]):
    print(f)
PY
