-- wrk script: stateless `tools/call echo` POSTs, with `Authorization: Bearer $MCP_TOKEN` when
-- that variable is set. Prints the count of non-2xx answers.
local token = os.getenv("MCP_TOKEN")
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
if token ~= nil and token ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. token
end
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call",' ..
           '"params":{"name":"echo","arguments":{"text":"hello"}}}'

function done(summary, latency, requests)
  io.write(string.format("requests=%d non2xx=%d socket=%d p50_ms=%.3f\n", summary.requests,
                         summary.errors.status, summary.errors.connect + summary.errors.read +
                         summary.errors.write + summary.errors.timeout,
                         latency:percentile(50) / 1000))
end
