#!/usr/bin/env python3
"""CPU per `tools/call echo` of the demo server over Streamable HTTP with observation off, with
metrics and with metrics + traces exported over OTLP (to bench/observe/null-collector.mjs: every
span in JSON, every span in protobuf, 10 % of the traces sampled, none sampled), in both protocol
eras: a stateful 2025-11-25 session (initialize, then Mcp-Session-Id) and self-contained
2026-07-28 requests, from the same binary. The server's CPU is what the kernel accounts to the
process over its whole life (user + system time of all its threads, from wait4's rusage): a
fresh server per measurement, wrk (bench/http/mcp-call-era.lua) warms it up and then runs for a
time, the server is stopped (the exporter sends what it still holds: spans queued faster than
sent are paid for too) and the CPU is divided by all the calls made; start-up and shutdown are a
few ms against seconds of calls. Modes, eras and builds (a baseline's, when given) run
interleaved, ROUNDS times; the medians are printed with each mode's ratio to "off" of the same
build and era. OTEL_BSP_MAX_QUEUE_SIZE is raised so that no span is dropped (a dropped span
would cost nothing); the spans the collector received are printed against the calls made.
  http_cpu.py DEMO_SERVER [BASELINE_DEMO_SERVER] [--seconds S] [--rounds R] [--connections C]
Needs: node (the collector and the session helper), wrk, the bench kit (MCP_BENCH_KIT)."""
import argparse
import os
import pathlib
import re
import statistics
import subprocess
import sys
import time

import observe_kit

here = pathlib.Path(__file__).resolve().parent
kit = pathlib.Path(os.environ.get("MCP_BENCH_KIT", here / "../../../shared/bench")).resolve()
era_script = here.parent / "http" / "mcp-call-era.lua"
ap = argparse.ArgumentParser()
ap.add_argument("demo")
ap.add_argument("baseline", nargs="?")
ap.add_argument("--seconds", type=int, default=5)
ap.add_argument("--warmup", type=int, default=1)
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--connections", type=int, default=8)
ap.add_argument("--io-threads", type=int, default=2)
args = ap.parse_args()

sink = observe_kit.collector()  # entered below
eras = {"2025-stateful": ("2025-11-25", True), "2026": ("2026-07-28", False)}
builds = observe_kit.builds(args.demo, args.baseline)


def wrk(url, seconds, env):
    out = subprocess.run(["wrk", "-t2", f"-c{args.connections}", f"-d{seconds}s", "--timeout",
                          "5s", "-s", str(era_script), url], env=env, capture_output=True,
                         text=True, timeout=seconds + 60)
    m = re.search(r"ERASTAT requests=(\d+) .* errors=(\d+)", out.stdout)
    if not m:
        sys.exit(f"wrk: no ERASTAT line: {out.stdout[-300:]} {out.stderr[-300:]}")
    return int(m.group(1)), int(m.group(2))


def run(demo, era_name, mode):
    era, stateful = eras[era_name]
    extra, more_env = modes[mode]
    port = observe_kit.free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    env = dict(os.environ, OTEL_BSP_MAX_QUEUE_SIZE="2000000", **more_env)
    server = subprocess.Popen([demo, "--http", f"127.0.0.1:{port}", "--no-rate-limit",
                               "--task-store", ":memory:", "--io-threads", str(args.io_threads),
                               *extra], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env=env)
    try:
        subprocess.run(["node", str(kit / "http-session.mjs"), "wait", url], check=True,
                       capture_output=True, timeout=60)
        sid = ""
        if stateful:
            sid = subprocess.run(["node", str(kit / "http-session.mjs"), "open", url], check=True,
                                 capture_output=True, text=True, timeout=60).stdout.strip()
        wrk_env = dict(os.environ, MCP_ERA=era, MCP_SESSION_ID=sid)
        before_spans = sink.spans_received()
        warm, warm_errors = wrk(url, args.warmup, wrk_env)
        calls, errors = wrk(url, args.seconds, wrk_env)
    finally:
        server.terminate()
        _, status, ru = os.wait4(server.pid, 0)
        server.returncode = status
    calls += warm
    errors += warm_errors
    if errors or calls == 0:
        sys.exit(f"{demo} {era_name} {mode}: {errors} errors in {calls} calls")
    if "--otlp" in extra:  # the collector may lag: read once its count stays still
        last = -1
        while (now := sink.spans_received()) != last:
            last = now
            time.sleep(0.5)
        exported.setdefault((demo, era_name, mode), []).append((now - before_spans, calls))
    return (ru.ru_utime + ru.ru_stime) / calls * 1e6  # µs per call


cpu = {}
exported = {}
with sink:
    modes = observe_kit.modes(sink.url)
    for r in range(args.rounds):
        for era_name in eras:
            for prefix, demo in builds:
                for mode in modes:
                    cpu.setdefault((prefix + mode, era_name), []).append(run(demo, era_name, mode))

print(f"load {os.getloadavg()[0]:.2f}; {args.rounds} rounds, {args.seconds} s each, "
      f"wrk 2 threads / {args.connections} connections, {args.io_threads} I/O threads")
for era_name in eras:
    for prefix, demo in builds:
        off = statistics.median(cpu[(prefix + "off", era_name)])
        for mode in modes:
            xs = cpu[(prefix + mode, era_name)]
            m = statistics.median(xs)
            spread = ", ".join(f"{x:.2f}" for x in xs)
            print(f"{era_name:14} {prefix + mode:18} {m:6.2f} us/call median ({spread})  "
                  f"{m / off:5.3f}x off")
        for mode in modes:
            got = exported.get((demo, era_name, mode), [])
            if got:  # the calls' spans and the session's (initialize, initialized)
                print(f"{era_name:14} {prefix + mode:18} spans exported/calls per run: "
                      + ", ".join(f"{s}/{c}" for s, c in got))
