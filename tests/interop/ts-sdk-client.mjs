// Interop: the official TypeScript SDK client (pinned in package.json) against our server over
// Streamable HTTP, or over stdio with --stdio: connect, list tools, call echo, call slow_count with progress, run tools as
// tasks (create, result, get, cancel, list), end the session.
//   node ts-sdk-client.mjs http://127.0.0.1:PORT/mcp
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

// node ts-sdk-client.mjs URL | --stdio DEMO_SERVER
const stdio = process.argv[2] === "--stdio";
const url = process.argv[2];
const fail = (msg) => {
  console.error(`ts-sdk-client: FAIL: ${msg}`);
  process.exit(1);
};

const client = new Client({ name: "mcp-cpp-interop", version: "1.0.0" });
const transport = stdio
  ? new StdioClientTransport({ command: process.argv[3], args: ["--task-store", ":memory:"], stderr: "ignore" })
  : new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);
const version = client.getServerVersion();
if (!version || version.name !== "mcp-cpp-demo") fail(`unexpected serverInfo ${JSON.stringify(version)}`);
if (!stdio && !transport.sessionId) fail("no Mcp-Session-Id was issued");

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
// Over stdio the last notification and the result usually arrive in one read; the SDK runs
// notification handlers a microtask later than response handlers, so it may drop the last
// progress (the server writes all four before the result).
const expected = stdio ? ["[1,2,3]", "[1,2,3,4]"] : ["[1,2,3,4]"];
if (!expected.includes(JSON.stringify(progress))) fail(`progress was ${JSON.stringify(progress)}`);

const failed = await client.callTool({ name: "fail", arguments: { reason: "on purpose" } });
if (!failed.isError) fail("fail did not return isError");

// Tasks (2025-11-25) through the SDK's experimental tasks client.
const caps = client.getServerCapabilities();
if (!caps?.tasks?.requests?.tools?.call) fail(`no tasks capability: ${JSON.stringify(caps)}`);
const streamed = async (params, options) => {
  const seen = [];
  for await (const m of client.experimental.tasks.callToolStream(params, undefined, options)) seen.push(m);
  return seen;
};
let seen = await streamed({ name: "slow_task", arguments: { steps: 3, step_ms: 20 } },
  { task: { ttl: 60000 } });
const created = seen.find((m) => m.type === "taskCreated");
const last = seen[seen.length - 1];
if (!created || last.type !== "result" || last.result.content?.[0]?.text !== "done 3") {
  fail(`slow_task as a task: ${JSON.stringify(seen)}`);
}
const taskId = created.task.taskId;
const got = await client.experimental.tasks.getTask(taskId);
if (got.status !== "completed" || got.ttl !== 60000) fail(`tasks/get: ${JSON.stringify(got)}`);
// A tool whose taskSupport is "required" is called as a task by the SDK on its own.
seen = await streamed({ name: "must_task", arguments: { text: "tasked" } });
if (seen[seen.length - 1].result?.content?.[0]?.text !== "tasked") fail(`must_task: ${JSON.stringify(seen)}`);
// Cancel a long task, then see it stay cancelled.
const stream = client.experimental.tasks.callToolStream(
  { name: "slow_task", arguments: { steps: 500, step_ms: 20 } }, undefined, { task: {} });
const first = (await stream.next()).value;
if (first?.type !== "taskCreated") fail(`long task: ${JSON.stringify(first)}`);
await client.experimental.tasks.cancelTask(first.task.taskId);
const after = await client.experimental.tasks.getTask(first.task.taskId);
if (after.status !== "cancelled") fail(`after cancel: ${JSON.stringify(after)}`);
await stream.return?.();
const listed = await client.experimental.tasks.listTasks();
if (listed.tasks.length !== 3) fail(`tasks/list: ${JSON.stringify(listed)}`);

if (!stdio) await transport.terminateSession();
await client.close();
console.log(`ts-sdk-client: OK (${stdio ? "stdio" : "http"}, ${names.length} tools, progress ${JSON.stringify(progress)}, ${listed.tasks.length} tasks)`);
