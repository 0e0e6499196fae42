#!/usr/bin/env python3
"""CPU per `tools/call echo` of the demo server over stdio with observation off, with metrics and
with metrics + traces exported over OTLP (to bench/observe/null-collector.mjs: every span in JSON,
every span in protobuf, 10 % of the traces sampled, none sampled), as the kernel
accounts it (user + system time of the server's process, all threads, from wait4's rusage): the
calls are read from a file (initialize, then N calls, all written at once), the answers counted
from a pipe; and the calls per second of wall time until the last answer was read (the
exporter's thread runs beside the calls; what it still holds is sent at the exit, not counted). The modes (and a baseline build's, when given) run interleaved, ROUNDS times; the
medians are printed with each mode's ratio to "off" of the same build, and the spans the
collector received per traces run (OTEL_BSP_MAX_QUEUE_SIZE is raised so that none is dropped).
  cpu.py DEMO_SERVER [BASELINE_DEMO_SERVER] [--calls N] [--rounds R]
Needs: node (the collector, observe_kit.py)."""
import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import observe_kit

ap = argparse.ArgumentParser()
ap.add_argument("demo")
ap.add_argument("baseline", nargs="?")
ap.add_argument("--calls", type=int, default=200_000)
ap.add_argument("--rounds", type=int, default=3)
args = ap.parse_args()

work = pathlib.Path(tempfile.mkdtemp())
calls = work / "calls.jsonl"
with open(calls, "w") as f:
    f.write('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":'
            '"2025-11-25","capabilities":{},"clientInfo":{"name":"cpu.py","version":"1"}}}\n')
    f.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    for i in range(1, args.calls + 1):
        f.write('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo",'
                '"arguments":{"text":"hello"}}}\n' % i)

sink = observe_kit.collector()  # entered below
builds = observe_kit.builds(args.demo, args.baseline)


def run(demo, mode):
    extra, more_env = modes[mode]
    before = sink.spans_received()
    t0 = time.monotonic()
    with open(calls, "rb") as stdin:
        # Every span queued: a whole file of calls arrives faster than one exporter thread
        # sends, and spans dropped would cost nothing.
        env = dict(os.environ, OTEL_BSP_MAX_QUEUE_SIZE=str(args.calls + 16), **more_env)
        p = subprocess.Popen([demo, "--no-rate-limit", "--task-store", ":memory:", *extra],
                             stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             env=env)
        lines = 0
        answered = None  # when the last answer was read (the exit then sends what is queued)
        while chunk := p.stdout.read1(1 << 20):
            lines += chunk.count(b"\n")
            if answered is None and lines >= args.calls + 1:
                answered = time.monotonic()
        answered = answered or time.monotonic()
        _, status, ru = os.wait4(p.pid, 0)
    rate.setdefault(prefix_of[demo] + mode, []).append(args.calls / (answered - t0))
    if lines != args.calls + 1:
        sys.exit(f"{demo} {extra}: {lines} answers for {args.calls + 1} requests (status {status})")
    if "--otlp" in extra:  # the spans exported (the exporter drops when its queue is full)
        time.sleep(0.2)
        exported.setdefault((demo, mode), []).append(sink.spans_received() - before)
    return ru.ru_utime + ru.ru_stime


cpu = {}
rate = {}  # calls per second of wall time
exported = {}
prefix_of = {demo: prefix for prefix, demo in builds}
try:
    with sink:
        modes = observe_kit.modes(sink.url)
        for r in range(args.rounds):
            for prefix, demo in builds:
                for mode in modes:
                    cpu.setdefault(prefix + mode, []).append(run(demo, mode))
finally:
    for f in work.iterdir():
        f.unlink()
    work.rmdir()

for prefix, demo in builds:
    off = statistics.median(cpu[prefix + "off"])
    for mode in modes:
        xs = cpu[prefix + mode]
        m = statistics.median(xs)
        per = m / args.calls * 1e6
        spread = ", ".join(f"{x:.3f}" for x in xs)
        calls_s = statistics.median(rate[prefix + mode])
        print(f"{prefix + mode:16} CPU {m:6.3f} s median ({spread})  {per:5.3f} us/call  "
              f"{m / off:5.3f}x off  {calls_s:9.0f} calls/s "
              f"{calls_s / statistics.median(rate[prefix + 'off']):5.3f}x off")
    for mode in modes:
        got = exported.get((demo, mode), [])
        if got:
            print(f"{prefix + mode:16} spans exported per run: {', '.join(map(str, got))} "
                  f"(of {args.calls + 2} messages: initialize, initialized, the calls)")
