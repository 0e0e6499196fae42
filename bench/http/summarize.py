#!/usr/bin/env python3
# Turns compare.sh output into the table of bench/RESULTS.md: per server, the median over rounds
# of req/s, CPU per request and 1-connection p50, with ratios against `limit` of the same round
# (median and range).
#   compare.sh DEMO 3 | tee out.txt; summarize.py out.txt
import re
import statistics
import sys
from collections import defaultdict

rows = defaultdict(lambda: defaultdict(dict))  # server -> round -> values
for line in open(sys.argv[1]):
    m = re.match(r"r(\d+) (\S+) (32c|1c): http: ([\d.]+) req/s, p50=([\d.]+) ms, p99=([\d.]+) ms",
                 line)
    if not m:
        continue
    rnd, name, kind = int(m.group(1)), m.group(2), m.group(3)
    v = rows[name][rnd]
    if kind == "32c":
        v["rps"], v["p50"], v["p99"] = float(m.group(4)), float(m.group(5)), float(m.group(6))
        if (c := re.search(r"server_cpu=([\d.]+)", line)):
            v["cpu"] = float(c.group(1))
        for key in ("rss_idle", "rss_peak", "rss_end"):
            if (r := re.search(key + r"=([\d.]+)", line)):
                v[key] = float(r.group(1))
    else:
        v["p50_1c"] = float(m.group(5))


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def ratio(name, key):
    rs = [rows[name][r][key] / rows["limit"][r][key] for r in rows[name]
          if key in rows[name][r] and key in rows["limit"].get(r, {})]
    return f"{med(rs):.2f} ({min(rs):.2f}–{max(rs):.2f})" if rs else "n/a"


print("| server | req/s (32 conn) | ×limit req/s | CPU µs/req | ×limit CPU | p50 / p99 ms "
      "(32 conn) | 1-conn p50 ms | RSS idle / peak / after MiB |")
print("|---|---|---|---|---|---|---|---|")
for name in rows:
    vs = list(rows[name].values())
    col = lambda k: med([v[k] for v in vs if k in v])  # noqa: E731
    print(f"| {name} | {col('rps'):,.0f} | {ratio(name, 'rps')} | {col('cpu'):.1f} | "
          f"{ratio(name, 'cpu')} | {col('p50'):.3f} / {col('p99'):.1f} | {col('p50_1c'):.3f} | "
          f"{col('rss_idle'):.1f} / {col('rss_peak'):.1f} / {col('rss_end'):.1f} |")
