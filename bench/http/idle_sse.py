#!/usr/bin/env python3
# Memory of idle SSE streams: opens N sessions, then one standalone GET stream per session, keeps
# them idle, and prints the server's RSS after the sessions alone and after the streams.
#   idle_sse.py PORT N SERVER_PID      (the server serves http://127.0.0.1:PORT/mcp)
import re
import socket
import sys
import time

port, n, pid = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]


def rss_kib():
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def post(body, sid=None):
    s = socket.create_connection(("127.0.0.1", port))
    head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n")
    if sid:
        head += f"Mcp-Session-Id: {sid}\r\nMCP-Protocol-Version: 2025-11-25\r\n"
    s.sendall((head + "\r\n" + body).encode())
    data = b""
    while b"\r\n\r\n" not in data:
        data += s.recv(65536)
    s.close()
    m = re.search(r"(?i)mcp-session-id: (\S+)", data.split(b"\r\n\r\n")[0].decode())
    return m.group(1) if m else None


init = ('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
        '"capabilities":{},"clientInfo":{"name":"idle_sse","version":"1"}}}')
r0 = rss_kib()
sids = []
for _ in range(n):
    sid = post(init)
    post('{"jsonrpc":"2.0","method":"notifications/initialized"}', sid)
    sids.append(sid)
time.sleep(0.5)
r1 = rss_kib()
socks = []
for sid in sids:
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall((f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n"
               f"Mcp-Session-Id: {sid}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n").encode())
    socks.append(s)
for s in socks:
    d = b""
    while b"\r\n\r\n" not in d:
        d += s.recv(4096)
time.sleep(1.0)
r2 = rss_kib()
with open(f"/proc/{pid}/status") as f:
    threads = next(int(line.split()[1]) for line in f if line.startswith("Threads:"))
print(f"idle_sse: n={n} rss_start={r0 / 1024:.1f} MiB, after sessions={r1 / 1024:.1f} MiB "
      f"({(r1 - r0) / n:.1f} KiB/session), after idle GET streams={r2 / 1024:.1f} MiB "
      f"({(r2 - r1) / n:.1f} KiB/stream, {(r2 - r0) / n:.1f} KiB/session+stream), "
      f"threads={threads}")
for s in socks:
    s.close()
time.sleep(0.5)
print(f"idle_sse: rss after closing the streams={rss_kib() / 1024:.1f} MiB")
