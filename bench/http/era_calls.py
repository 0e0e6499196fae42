#!/usr/bin/env python3
# N `tools/call echo` over keep-alive connections, the bytes mcp-call-era.lua sends (for
# era_callgrind.sh, which counts the server's instructions per call): one connection, or C taken
# in turn (one call on each, then the next). Exits non-zero on a wrong answer.
#   era_calls.py URL ERA STATEFUL N [C]  (ERA 2026-07-28 or 2025-11-25; STATEFUL 1: initialize first)
import json
import socket
import sys

url, era, stateful, n = sys.argv[1], sys.argv[2], sys.argv[3] == "1", int(sys.argv[4])
conns = int(sys.argv[5]) if len(sys.argv) > 5 else 1
host, port = url.split("//")[1].split("/")[0].split(":")
socks = [socket.create_connection((host, int(port))) for _ in range(conns)]
pendings = [b""] * conns
sock, pending = socks[0], b""


def exchange(body, headers):
    global pending
    head = f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
    head += "Accept: application/json, text/event-stream\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    head += f"Content-Length: {len(body)}\r\n\r\n"
    sock.sendall(head.encode() + body.encode())
    while b"\r\n\r\n" not in pending:
        pending += sock.recv(65536)
    raw, _, rest = pending.partition(b"\r\n\r\n")
    lines = raw.decode().split("\r\n")
    fields = {l.split(":", 1)[0].lower(): l.split(":", 1)[1].strip() for l in lines[1:]}
    length = int(fields.get("content-length", "0"))
    while len(rest) < length:
        rest += sock.recv(65536)
    pending = rest[length:]
    return lines[0], fields, rest[:length].decode()


headers = {"MCP-Protocol-Version": era}
if stateful:
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": era, "capabilities": {},
                       "clientInfo": {"name": "era_calls", "version": "1.0.0"}}}
    _, fields, _ = exchange(json.dumps(init), headers)
    headers["Mcp-Session-Id"] = fields["mcp-session-id"]
    exchange(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}), headers)
meta, marker = "", '"result"'
if era == "2026-07-28":
    headers["Mcp-Method"], headers["Mcp-Name"] = "tools/call", "echo"
    meta = (',"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
            '"io.modelcontextprotocol/clientCapabilities":{},'
            '"io.modelcontextprotocol/clientInfo":{"name":"wrk","version":"1.0.0"}}')
    marker = '"resultType":"complete"'
for i in range(n):
    if conns > 1:  # the next connection in turn (what the last one read past its answer kept)
        pendings[socks.index(sock)] = pending
        sock, pending = socks[i % conns], pendings[i % conns]
    body = ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo",'
            '"arguments":{"text":"hello"}%s}}' % (1000000000 + i, meta))
    status, _, answer = exchange(body, headers)
    if " 200 " not in status + " " or marker not in answer:
        sys.exit(f"era_calls: bad answer: {status} {answer[:300]}")
