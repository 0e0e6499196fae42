// The TypeScript SDK client's counterpart of client_calls.cpp: `tools/call echo` N times with W
// calls in flight, against the same server, printing the same line.
//
//   node ts_client_calls.mjs stdio N W -- CMD ARGS...
//   node ts_client_calls.mjs http N W URL
//
// Run from a directory whose node_modules holds @modelcontextprotocol/sdk (compare.sh copies it
// into the pinned tests/interop install).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, nText, wText, ...rest] = process.argv.slice(2);
const n = Number(nText);
const w = Number(wText);
const transport =
  mode === "stdio"
    ? new StdioClientTransport({ command: rest[1], args: rest.slice(2), stderr: "ignore" })
    : new StreamableHTTPClientTransport(new URL(rest[0]));
const client = new Client({ name: "ts-client-calls", version: "1.0.0" });
await client.connect(transport);
let next = 0;
const t0 = process.hrtime.bigint();
await Promise.all(
  Array.from({ length: w }, async () => {
    while (next++ < n) {
      const r = await client.callTool({ name: "echo", arguments: { text: "hello" } });
      // A refused call (a rate limit, say) is not the call being measured.
      if (r.isError) throw new Error(`the tool failed: ${JSON.stringify(r)}`);
    }
  }),
);
const s = Number(process.hrtime.bigint() - t0) / 1e9;
console.log(`TypeScript SDK client, ${mode}: ${n} calls in ${s.toFixed(2)} s = ` +
  `${Math.round(n / s)} calls/s (window ${w})`);
await client.close();
process.exit(0);
