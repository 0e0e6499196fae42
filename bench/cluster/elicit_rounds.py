#!/usr/bin/env python3
"""Elicitation round trips through a cluster, for bench/RESULTS.md.

    bench/cluster/elicit_rounds.py DEMO_SERVER [ROUNDS]

Starts a redis-server, 3 demo processes sharing it (--redis) and two round-robin HAProxy
processes in front of them: one with `option http-no-delay` (as scripts/cluster.sh configures
it), one without. A 2025-11-25 session (elicitation declared) is opened per setup; each round
calls ask_name on a new connection, reads the elicitation/create from the call's SSE stream,
POSTs the answer on another new connection (through the proxy: another node) and reads the
tool's result. Reference, in the same run: the same rounds sent to one node directly. Prints
p50 / p90 / max of a round and of its parts (the question's arrival, the answer's POST, the
result's arrival), in ms. Needs redis-server and haproxy (Debian packages).
"""
import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port):
    for _ in range(400):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.025)
    raise RuntimeError(f"nothing listens on {port}")


def headers(sid=None):
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
         "MCP-Protocol-Version": "2025-11-25"}
    if sid:
        h["Mcp-Session-Id"] = sid
    return h


def post(port, body, sid=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("POST", "/mcp", json.dumps(body), headers(sid))
    r = c.getresponse()
    r.read()
    c.close()
    return r


def open_session(port):
    r = post(port, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                    "params": {"protocolVersion": "2025-11-25",
                               "capabilities": {"elicitation": {}},
                               "clientInfo": {"name": "bench", "version": "1"}}})
    sid = r.getheader("mcp-session-id")
    post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
    return sid


def one_round(port, sid):
    t0 = time.monotonic()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": "ask", "method": "tools/call",
                                          "params": {"name": "ask_name", "arguments": {}}}),
              headers(sid))
    r = c.getresponse()
    buf = b""
    ask = None
    while ask is None:
        chunk = r.fp.read1(65536)
        if not chunk:
            raise RuntimeError("the call's stream ended without a question")
        buf += chunk
        for line in buf.decode().split("\n"):
            if line.startswith("data: ") and "elicitation/create" in line:
                ask = json.loads(line[6:])
    t1 = time.monotonic()
    answered = post(port, {"jsonrpc": "2.0", "id": ask["id"],
                           "result": {"action": "accept", "content": {"name": "x"}}}, sid)
    if answered.status != 202:
        raise RuntimeError(f"the answer got {answered.status}")
    t2 = time.monotonic()
    while b"Hello, x!" not in buf:
        chunk = r.fp.read1(65536)
        if not chunk:
            raise RuntimeError("the call's stream ended without its result")
        buf += chunk
    t3 = time.monotonic()
    c.close()
    return [1000 * (t3 - t0), 1000 * (t1 - t0), 1000 * (t2 - t1), 1000 * (t3 - t2)]


def haproxy_config(port, nodes, no_delay):
    servers = "".join(f"  server n{i} 127.0.0.1:{p} check inter 200ms fall 1 rise 2\n"
                      for i, p in enumerate(nodes))
    return ("global\n  maxconn 4096\ndefaults\n  mode http\n"
            + ("  option http-no-delay\n" if no_delay else "")
            + "  timeout connect 2s\n  timeout client 60s\n  timeout server 60s\n"
            f"frontend mcp\n  bind 127.0.0.1:{port}\n  default_backend nodes\n"
            "backend nodes\n  balance roundrobin\n  retries 3\n  option redispatch 1\n"
            f"  retry-on conn-failure\n{servers}")


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: elicit_rounds.py DEMO_SERVER [ROUNDS]")
    demo, rounds = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 50
    for prog in ("redis-server", "haproxy"):
        if shutil.which(prog) is None:
            sys.exit(f"elicit_rounds.py: {prog} is not installed")
    work = tempfile.mkdtemp(prefix="mcp-elicit-bench.")
    procs = []
    try:
        redis_port = free_port()
        procs.append(subprocess.Popen(
            ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", work], stdout=subprocess.DEVNULL))
        wait_port(redis_port)
        nodes = []
        for _ in range(3):
            p = free_port()
            procs.append(subprocess.Popen(
                [demo, "--http", f"127.0.0.1:{p}", "--redis", f"redis://127.0.0.1:{redis_port}",
                 "--no-rate-limit"], stderr=subprocess.DEVNULL))
            wait_port(p)
            nodes.append(p)
        setups = [("one node, no proxy (reference)", nodes[0])]
        for no_delay in (False, True):
            p = free_port()
            cfg = os.path.join(work, f"haproxy-{int(no_delay)}.cfg")
            with open(cfg, "w") as f:
                f.write(haproxy_config(p, nodes, no_delay))
            procs.append(subprocess.Popen(["haproxy", "-f", cfg, "-db"],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            wait_port(p)
            setups.append(("3 nodes + HAProxy" + (", option http-no-delay" if no_delay else ""), p))
        print(f"load average before: {os.getloadavg()[0]:.1f}; {rounds} rounds per setup")
        print("| setup | round p50 | p90 | max | question p50 | answer POST p50 | result p50 |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for name, port in setups:
            sid = open_session(port)
            one_round(port, sid)  # warm-up: every node opens its copy of the session
            got = [one_round(port, sid) for _ in range(rounds)]
            total = sorted(g[0] for g in got)

            def p50(k):
                return statistics.median(g[k] for g in got)
            print(f"| {name} | {p50(0):.1f} | {total[int(0.9 * (len(total) - 1))]:.1f} | "
                  f"{total[-1]:.1f} | {p50(1):.1f} | {p50(2):.1f} | {p50(3):.1f} |")
        print(f"load average after: {os.getloadavg()[0]:.1f}")
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
