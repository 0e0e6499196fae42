// Interop beyond the conformance suite: the official TypeScript SDK client (pinned in
// tests/interop/package.json) drives examples/everything_server (started with --page-size 3)
// over stdio or Streamable HTTP. It lists every page of tools, resources, templates and prompts,
// calls every tool, reads every resource, gets every prompt, answers sampling and elicitation
// (declining two elicitations to see a clear isError), completes, subscribes (and sees
// notifications/resources/updated only while subscribed), and cancels a slow
// call, checking that no response for it ever arrives. In `bridge` mode the client speaks stdio
// to `mcp-cpp bridge --url URL`, which carries everything to the server over HTTP. `listen` mode
// is `http` against `mcp-cpp bridge --listen`, which serves the server over stdio behind it.
//
//   node ts_sdk_interop.mjs stdio /path/to/everything_server
//   node ts_sdk_interop.mjs http http://127.0.0.1:PORT/mcp
//   node ts_sdk_interop.mjs listen http://127.0.0.1:PORT/mcp
//   node ts_sdk_interop.mjs bridge /path/to/mcp-cpp http://127.0.0.1:PORT/mcp
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

const [mode, target, url] = process.argv.slice(2);
const tag = `ts-sdk-interop(${mode})`;
const fail = (msg) => {
  console.error(`${tag}: FAIL: ${msg}`);
  process.exit(1);
};
const check = (cond, msg) => {
  if (!cond) fail(msg);
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const client = new Client(
  { name: "mcp-cpp-ts-interop", version: "1.0.0" },
  { capabilities: { sampling: {}, elicitation: {} } },
);
client.setRequestHandler(CreateMessageRequestSchema, async (req) => ({
  role: "assistant",
  content: { type: "text", text: `interop model saw: ${req.params.messages[0].content.text}` },
  model: "interop-model",
  stopReason: "endTurn",
}));
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  const props = Object.keys(req.params.requestedSchema?.properties ?? {});
  if (props.includes("username")) {
    return { action: "accept", content: { username: "interop", email: "interop@example.com" } };
  }
  return { action: "decline" };
});
const logs = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
const updates = [];
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updates.push(n.params.uri));

const transport =
  mode === "stdio"
    ? new StdioClientTransport({ command: target, args: ["--page-size", "3"], stderr: "ignore" })
    : mode === "bridge"
      ? new StdioClientTransport({ command: target, args: ["bridge", "--url", url], stderr: "ignore" })
      : new StreamableHTTPClientTransport(new URL(target));
await client.connect(transport);

// Record every message both ways (for the cancellation check).
const sent = [];
const received = [];
const origSend = transport.send.bind(transport);
transport.send = (msg, opts) => {
  sent.push(msg);
  return origSend(msg, opts);
};
const origOnMessage = transport.onmessage;
transport.onmessage = (msg, extra) => {
  received.push(msg);
  origOnMessage?.(msg, extra);
};

const caps = client.getServerCapabilities();
check(caps?.tools && caps?.resources?.subscribe && caps?.prompts && caps?.completions && caps?.logging,
  `capabilities ${JSON.stringify(caps)}`);

async function allPages(list, key) {
  const items = [];
  let cursor;
  let pages = 0;
  do {
    const r = await list(cursor === undefined ? {} : { cursor });
    items.push(...r[key]);
    cursor = r.nextCursor;
    pages++;
  } while (cursor !== undefined && pages < 50);
  return { items, pages };
}

// ---- tools: every page, every tool ----
const { items: tools, pages: toolPages } = await allPages((p) => client.listTools(p), "tools");
check(toolPages >= 5, `expected several pages of 3 tools, got ${toolPages}`);
const names = tools.map((t) => t.name);
check(new Set(names).size === names.length, `duplicate tools across pages: ${names}`);
const schemaTool = tools.find((t) => t.name === "json_schema_2020_12_tool");
check(schemaTool?.inputSchema?.$defs?.address && schemaTool.inputSchema.additionalProperties === false,
  `raw 2020-12 schema changed: ${JSON.stringify(schemaTool?.inputSchema)}`);

await client.setLoggingLevel("debug");
const args = {
  test_sampling: { prompt: "ping from interop" },
  test_elicitation: { message: "Who are you?" },
  json_schema_2020_12_tool: { name: "x", address: { city: "Oslo" }, email: "x@example.com" },
  test_slow_operation: { seconds: 0.2 },
  greet: { name: "interop" },
  slow_compute: { seconds: 0 },
  confirm_delete: { filename: "nothing.txt" },
};
const modernFixtures = new Set(["test_missing_capability", "test_streaming_elicitation",
  "test_logging_tool", "test_trigger_tool_change", "test_dynamic_tool",
  "test_trigger_prompt_change", "test_header_param",
  // the tasks extension's fixtures (examples/everything/tasks.cpp)
  "slow_compute", "failing_job", "protocol_error_job", "confirm_delete", "multi_input",
  "test_tool_with_task"]);
const text = (r) => (r.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join(" ");
let called = 0;
for (const name of names) {
  if (name === "test_url_elicitation") {
    // The client did not declare elicitation.url: the tool answers JSON-RPC error -32042.
    try {
      await client.callTool({ name, arguments: {} });
      fail("test_url_elicitation did not fail");
    } catch (e) {
      check(e.code === -32042, `test_url_elicitation: expected -32042, got ${e.code} ${e.message}`);
      check(Array.isArray(e.data?.elicitations) && e.data.elicitations[0]?.mode === "url",
        `test_url_elicitation data ${JSON.stringify(e.data)}`);
    }
    called++;
    continue;
  }
  if (modernFixtures.has(name) || name.startsWith("test_input_required_result_")) {
    // The 2026-07-28 scenarios' fixtures, called by this 2025-11-25 client: they ask through
    // elicitation/create, sampling/createMessage or roots/list, which this client declines or
    // does not offer; each must still answer, with a result or a JSON-RPC error.
    try {
      const r = await client.callTool({ name, arguments: args[name] ?? {} });
      check(Array.isArray(r.content) && r.content.length > 0, `${name}: empty content`);
    } catch (e) {
      check(Number.isInteger(e.code), `${name}: neither a result nor a JSON-RPC error: ${e}`);
    }
    called++;
    continue;
  }
  const progress = [];
  const r = await client.callTool({ name, arguments: args[name] ?? {} }, undefined, {
    onprogress: (p) => progress.push(p.progress),
  });
  called++;
  check(Array.isArray(r.content) && r.content.length > 0, `${name}: empty content`);
  switch (name) {
    case "test_error_handling":
    case "test_elicitation_sep1034_defaults":
    case "test_elicitation_sep1330_enums":  // declined by this client: a clear tool error
      check(r.isError === true && text(r).length > 0, `${name}: expected isError, got ${JSON.stringify(r)}`);
      break;
    case "test_sampling":
      check(text(r).includes("interop model saw: ping from interop"), `${name}: ${JSON.stringify(r)}`);
      break;
    case "test_elicitation":
      check(text(r).includes("interop@example.com"), `${name}: ${JSON.stringify(r)}`);
      break;
    case "test_tool_with_progress":
      check(progress.length >= 3, `${name}: progress ${JSON.stringify(progress)}`);
      break;
    default:
      check(!r.isError, `${name}: unexpected isError ${JSON.stringify(r)}`);
  }
}
check(logs.length >= 3, `expected 3 log messages, got ${JSON.stringify(logs)}`);

// ---- resources ----
const { items: resources } = await allPages((p) => client.listResources(p), "resources");
check(resources.length === 3, `resources ${JSON.stringify(resources)}`);
for (const res of resources) {
  const r = await client.readResource({ uri: res.uri });
  const c = r.contents[0];
  check(c.uri === res.uri && (c.text || c.blob), `read ${res.uri}: ${JSON.stringify(r)}`);
}
const { items: templates } = await allPages((p) => client.listResourceTemplates(p), "resourceTemplates");
check(templates[0]?.uriTemplate === "test://template/{id}/data", `templates ${JSON.stringify(templates)}`);
const t = await client.readResource({ uri: "test://template/42/data" });
check(t.contents[0].text.includes("42"), `template read ${JSON.stringify(t)}`);
try {
  await client.readResource({ uri: "test://no-such-thing" });
  fail("reading a missing resource succeeded");
} catch (e) {
  check(e.code === -32002 && e.data?.uri === "test://no-such-thing", `missing resource: ${e.code} ${JSON.stringify(e.data)}`);
}
await client.subscribeResource({ uri: "test://watched-resource" });
await client.callTool({ name: "test_touch_watched_resource", arguments: {} });
const updatedSeen = async () => {
  for (let i = 0; i < 40; i++) {
    if (updates.includes("test://watched-resource")) return true;
    await sleep(50);
  }
  return false;
};
check(await updatedSeen(), "no notifications/resources/updated after subscribing");
await client.unsubscribeResource({ uri: "test://watched-resource" });
updates.length = 0;
await client.callTool({ name: "test_touch_watched_resource", arguments: {} });
await sleep(300);
check(updates.length === 0, "notifications/resources/updated after unsubscribing");

// ---- prompts and completion ----
const { items: allPrompts } = await allPages((p) => client.listPrompts(p), "prompts");
// Without the 2026-07-28 fixtures (one asks through an input round; one came with a tool call).
const prompts = allPrompts.filter(
  (p) => p.name !== "test_input_required_result_prompt" && p.name !== "test_dynamic_prompt");
check(prompts.length === 4, `prompts ${JSON.stringify(allPrompts)}`);
const promptArgs = {
  test_prompt_with_arguments: { arg1: "one", arg2: "two" },
  test_prompt_with_embedded_resource: { resourceUri: "test://static-text" },
};
for (const p of prompts) {
  const r = await client.getPrompt({ name: p.name, arguments: promptArgs[p.name] ?? {} });
  check(r.messages.length > 0, `prompt ${p.name}: ${JSON.stringify(r)}`);
}
const withArgs = await client.getPrompt({ name: "test_prompt_with_arguments", arguments: promptArgs.test_prompt_with_arguments });
check(JSON.stringify(withArgs).includes("one") && JSON.stringify(withArgs).includes("two"), "prompt arguments not substituted");
try {
  await client.getPrompt({ name: "test_prompt_with_arguments", arguments: { arg1: "only" } });
  fail("a missing required argument was accepted");
} catch (e) {
  check(e.code === -32602, `missing argument: ${e.code}`);
}
const comp = await client.complete({
  ref: { type: "ref/prompt", name: "test_prompt_with_arguments" },
  argument: { name: "arg1", value: "te" },
});
check(comp.completion.values.includes("test"), `completion ${JSON.stringify(comp)}`);
const tcomp = await client.complete({
  ref: { type: "ref/resource", uri: "test://template/{id}/data" },
  argument: { name: "id", value: "4" },
});
check(JSON.stringify(tcomp.completion.values) === '["456"]', `template completion ${JSON.stringify(tcomp)}`);

// ---- cancellation: the aborted call gets no response ----
const ac = new AbortController();
const slow = client.callTool({ name: "test_slow_operation", arguments: { seconds: 10 } }, undefined, {
  signal: ac.signal,
});
await sleep(300);
const slowReq = sent.filter((m) => m.method === "tools/call" && m.params?.name === "test_slow_operation").pop();
check(slowReq, "the slow call was not sent");
ac.abort("interop cancels");
try {
  await slow;
  fail("the cancelled call resolved");
} catch {
  // expected: aborted
}
check(sent.some((m) => m.method === "notifications/cancelled" && m.params?.requestId === slowReq.id),
  "no notifications/cancelled was sent");
await sleep(1500);
check(!received.some((m) => m.id === slowReq.id && ("result" in m || "error" in m)),
  "a response arrived for the cancelled call");
// The session still works afterwards.
const after = await client.callTool({ name: "test_simple_text", arguments: {} });
check(text(after).length > 0, "session broken after cancellation");

if (mode === "http" || mode === "listen") await transport.terminateSession();
await client.close();
console.log(`${tag}: OK (${called} tools in ${toolPages} pages, ${resources.length} resources, ` +
  `${prompts.length} prompts, ${logs.length} log messages, cancellation without response)`);
process.exit(0);
