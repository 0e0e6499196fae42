// Interop: the official TypeScript SDK client (pinned in package.json) against our server over
// Streamable HTTP: connect, list tools, call echo, call slow_count with progress, end the session.
//   node ts-sdk-client.mjs http://127.0.0.1:PORT/mcp
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const url = process.argv[2];
const fail = (msg) => {
  console.error(`ts-sdk-client: FAIL: ${msg}`);
  process.exit(1);
};

const client = new Client({ name: "mcp-cpp-interop", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);
const version = client.getServerVersion();
if (!version || version.name !== "mcp-cpp-demo") fail(`unexpected serverInfo ${JSON.stringify(version)}`);
if (!transport.sessionId) fail("no Mcp-Session-Id was issued");

const { tools } = await client.listTools();
const names = tools.map((t) => t.name);
for (const n of ["echo", "slow_count", "forecast"]) {
  if (!names.includes(n)) fail(`tools/list lacks ${n}: ${names.join(",")}`);
}

const echo = await client.callTool({ name: "echo", arguments: { text: "interop" } });
if (echo.content?.[0]?.text !== "interop") fail(`echo returned ${JSON.stringify(echo)}`);

const forecast = await client.callTool({ name: "forecast", arguments: { city: "Oslo", days: 2 } });
if (forecast.structuredContent?.days?.length !== 2) fail(`forecast returned ${JSON.stringify(forecast)}`);

const progress = [];
const slow = await client.callTool(
  { name: "slow_count", arguments: { steps: 4, step_ms: 20 } },
  undefined,
  { onprogress: (p) => progress.push(p.progress) },
);
if (slow.isError) fail(`slow_count failed: ${JSON.stringify(slow)}`);
if (slow.structuredContent?.completed !== 4) fail(`slow_count returned ${JSON.stringify(slow)}`);
if (JSON.stringify(progress) !== "[1,2,3,4]") fail(`progress was ${JSON.stringify(progress)}`);

const failed = await client.callTool({ name: "fail", arguments: { reason: "on purpose" } });
if (!failed.isError) fail("fail did not return isError");

await transport.terminateSession();
await client.close();
console.log(`ts-sdk-client: OK (${names.length} tools, progress ${JSON.stringify(progress)})`);
