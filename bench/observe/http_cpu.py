#!/usr/bin/env python3
"""CPU per `tools/call echo` of the demo server over Streamable HTTP with observation off and with
metrics (`--metrics 127.0.0.1:0`), for the two paths a production server usually serves: a
2025-11-25 session (initialize, then Mcp-Session-Id) and self-contained 2026-07-28 requests. The
server's CPU is read from /proc/<pid>/task/*/schedstat (all its threads, the measured phase only)
while wrk (bench/http/mcp-call-era.lua) sends the calls; each server is fresh per measurement.
The builds, paths and modes run interleaved, ROUNDS times; the medians are printed with each
metrics run's ratio to "off" of the same build and path (the figure of record is the ratio, the
load being what it is). With a baseline build its rows come first.
  http_cpu.py DEMO_SERVER [BASELINE_DEMO_SERVER] [--rounds R] [--seconds S] [--connections C]
Needs: wrk, node and the kit (MCP_BENCH_KIT, default ../shared/bench from the repository)."""
import argparse
import os
import pathlib
import re
import socket
import statistics
import subprocess
import sys
import time

here = pathlib.Path(__file__).resolve().parent
kit = pathlib.Path(os.environ.get("MCP_BENCH_KIT", here / "../../../shared/bench"))
lua = here.parent / "http" / "mcp-call-era.lua"
ap = argparse.ArgumentParser()
ap.add_argument("demo")
ap.add_argument("baseline", nargs="?")
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--seconds", type=int, default=6)
ap.add_argument("--connections", type=int, default=16)
args = ap.parse_args()

paths = {"2025-stateful": ("2025-11-25", True), "2026": ("2026-07-28", False)}
modes = {"off": [], "metrics": ["--metrics", "127.0.0.1:0"]}
builds = [("", os.path.realpath(args.demo))]
if args.baseline:
    builds.insert(0, ("before-", os.path.realpath(args.baseline)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_ns(pid):
    total = 0
    for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
            pass  # a thread that ended meanwhile
    return total


def wrk(url, seconds, env):
    out = subprocess.run(["wrk", "-t2", f"-c{args.connections}", f"-d{seconds}s", "--timeout",
                          "5s", "-s", str(lua), url], capture_output=True, text=True, env=env,
                         timeout=seconds + 30).stdout
    m = re.search(r"ERASTAT requests=(\d+) .* errors=(\d+)", out)
    if not m:
        sys.exit(f"wrk gave no ERASTAT line: {out}")
    return int(m.group(1)), int(m.group(2))


def run(demo, path, mode):
    era, stateful = paths[path]
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    p = subprocess.Popen([demo, "--http", f"127.0.0.1:{port}", "--no-rate-limit", "--task-store",
                          ":memory:", "--io-threads", "2", *modes[mode]],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        subprocess.run(["node", str(kit / "http-session.mjs"), "wait", url],
                       capture_output=True, timeout=30)
        env = dict(os.environ, MCP_ERA=era, MCP_SESSION_ID="")
        if stateful:
            env["MCP_SESSION_ID"] = subprocess.run(
                ["node", str(kit / "http-session.mjs"), "open", url], capture_output=True,
                text=True, timeout=30).stdout.strip()
        wrk(url, 1, env)  # warm-up
        c0 = cpu_ns(p.pid)
        n, errors = wrk(url, args.seconds, env)
        c1 = cpu_ns(p.pid)
        if errors or n == 0:
            sys.exit(f"{demo} {path} {mode}: {errors} errors of {n} calls")
        return (c1 - c0) / n / 1000  # µs per call
    finally:
        p.terminate()
        p.wait()


us = {}
loads = []
for _ in range(args.rounds):
    for prefix, demo in builds:
        for path in paths:
            for mode in modes:
                us.setdefault((prefix, path, mode), []).append(run(demo, path, mode))
                loads.append(os.getloadavg()[0])

for prefix, _ in builds:
    for path in paths:
        off = statistics.median(us[(prefix, path, "off")])
        for mode in modes:
            xs = us[(prefix, path, mode)]
            m = statistics.median(xs)
            spread = ", ".join(f"{x:.2f}" for x in xs)
            print(f"{prefix + path:22} {mode:8} {m:6.2f} us/call median ({spread})  "
                  f"{m / off:5.3f}x off")
print(f"load (1 min) during the runs: {min(loads):.1f}-{max(loads):.1f}")
