-- wrk script: one `tools/call echo` per request, in either protocol era.
--
--   MCP_ERA=2026-07-28 wrk -t2 -c32 -d8s -s mcp-call-era.lua http://127.0.0.1:PORT/mcp
--
-- Environment:
--   MCP_ERA         2026-07-28: a self-contained request (`_meta` with the revision, the client's
--                   capabilities and info; MCP-Protocol-Version, Mcp-Method and Mcp-Name
--                   headers). Anything else: a 2025-11-25 request (MCP-Protocol-Version only).
--   MCP_SESSION_ID  sent as Mcp-Session-Id when set (a 2025-11-25 stateful session).
-- A response counts as an error when its status is not 2xx or its body lacks the marker of a
-- complete answer ("resultType":"complete" in 2026-07-28, "result" before). done() prints
--   ERASTAT requests=.. seconds=.. rps=.. p50_ms=.. p99_ms=.. errors=..
local threads = {}

function setup(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  seq, bad = 0, 0
  local era = os.getenv("MCP_ERA") or "2025-11-25"
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Accept"] = "application/json, text/event-stream"
  local meta = ""
  if era == "2026-07-28" then
    wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
    wrk.headers["Mcp-Method"] = "tools/call"
    wrk.headers["Mcp-Name"] = "echo"
    meta = ',"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",' ..
           '"io.modelcontextprotocol/clientCapabilities":{},' ..
           '"io.modelcontextprotocol/clientInfo":{"name":"wrk","version":"1.0.0"}}'
    marker = '"resultType":"complete"'
  else
    wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
    marker = '"result"'
  end
  local sid = os.getenv("MCP_SESSION_ID")
  if sid and sid ~= "" then wrk.headers["Mcp-Session-Id"] = sid end
  prefix = '{"jsonrpc":"2.0","id":'
  suffix = ',"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}' .. meta .. '}}'
  id_base = (tid or 1) * 1000000000
end

function request()
  seq = seq + 1
  return wrk.format(nil, nil, nil, prefix .. (id_base + seq) .. suffix)
end

function response(status, headers, body)
  if status < 200 or status > 299 or not body or not string.find(body, marker, 1, true) then
    bad = bad + 1
  end
end

function done(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write +
                 summary.errors.timeout
  for _, t in ipairs(threads) do errors = errors + (t:get("bad") or 0) end
  local seconds = summary.duration / 1e6
  io.write(string.format("ERASTAT requests=%d seconds=%.3f rps=%.1f p50_ms=%.3f p99_ms=%.3f errors=%d\n",
    summary.requests, seconds, summary.requests / seconds, latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, errors))
end
