// The TypeScript SDK 2.4.0 client's counterpart of `client_calls http-modern`: `tools/call echo`
// N times with W calls in flight over Streamable HTTP, pinned to 2026-07-28 (one
// server/discover, then every request stands alone), printing the same line.
//
//   node ts2_client_calls.mjs N W URL [legacy]
//
// Run from a directory whose node_modules holds @modelcontextprotocol/client 2.4.0 (modern.sh
// copies it into the pinned tests/conformance/pins/ts-sdk-2.4.0 install).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [nText, wText, url, era] = process.argv.slice(2);
const n = Number(nText);
const w = Number(wText);
const mode = era === 'legacy' ? 'legacy' : { pin: '2026-07-28' };
const client = new Client({ name: 'ts2-client-calls', version: '1.0.0' },
  { versionNegotiation: { mode } });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const version = client.getNegotiatedProtocolVersion();
let next = 0;
const t0 = process.hrtime.bigint();
await Promise.all(
  Array.from({ length: w }, async () => {
    while (next++ < n) {
      const r = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
      // A refused call (a rate limit, say) is not the call being measured.
      if (r.isError) throw new Error(`the tool failed: ${JSON.stringify(r)}`);
    }
  }),
);
const s = Number(process.hrtime.bigint() - t0) / 1e9;
console.log(`TypeScript SDK 2.4.0 client, http (${version}): ${n} calls in ${s.toFixed(2)} s = ` +
  `${Math.round(n / s)} calls/s (window ${w})`);
await client.close();
process.exit(0);
