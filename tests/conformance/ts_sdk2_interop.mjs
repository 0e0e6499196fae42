// Interop with the official TypeScript SDK's 2.x client (@modelcontextprotocol/client, pinned in
// tests/conformance/pins/ts-sdk-2.4.0), which speaks both protocol eras, against
// examples/demo_server (started with --page-size 3). One run is one connection in one
// versionNegotiation mode:
//   auto       the client probes server/discover: it must settle on 2026-07-28 (modern)
//   pin        { pin: '2026-07-28' }: the same, with no fallback
//   legacy     initialize: it must settle on 2025-11-25
// Then: tools/list over every page (the aggregate listTools() and a walk by cursor must agree),
// echo (the text comes back), forecast (structuredContent matches the listed outputSchema),
// ask_name (elicitation) and summarize (sampling). Both ask the client: on 2026-07-28 the
// answer goes through the client's input_required handling (the result carries inputRequests,
// the client retries with inputResponses, and the server sends no request of its own); on
// 2025-11-25 the server sends elicitation/create and sampling/createMessage requests. The same
// handlers (setRequestHandler) answer both.
//
//   node ts_sdk2_interop.mjs stdio /path/to/demo_server auto|pin|legacy
//   node ts_sdk2_interop.mjs http http://127.0.0.1:PORT/mcp auto|pin|legacy
// Exit 0 when every check passed; otherwise 1, after one line per failed check.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/client/validators/ajv";

const [kind, target, mode] = process.argv.slice(2);
if (!["stdio", "http"].includes(kind) || !target || !["auto", "pin", "legacy"].includes(mode)) {
  console.error("usage: ts_sdk2_interop.mjs stdio|http SERVER|URL auto|pin|legacy");
  process.exit(2);
}
const modern = mode !== "legacy";
const want = modern ? "2026-07-28" : "2025-11-25";
const tag = `ts-sdk-2.4.0(${kind}, ${mode})`;
let failures = 0;
const check = (cond, msg) => {
  if (cond) return true;
  failures++;
  console.error(`${tag}: FAIL: ${msg}`);
  return false;
};
const json = (v) => JSON.stringify(v);
const fatal = (msg) => {
  console.error(`${tag}: FAIL: ${msg}`);
  process.exit(1);
};

const client = new Client(
  { name: "mcp-cpp-ts2-interop", version: "1.0.0" },
  {
    versionNegotiation: { mode: mode === "pin" ? { pin: "2026-07-28" } : mode },
    capabilities: { elicitation: { form: {} }, sampling: {} },
  },
);
const asked = { elicitation: [], sampling: [] };
client.setRequestHandler("elicitation/create", async (req) => {
  asked.elicitation.push(req.params);
  return { action: "accept", content: { name: "Ada" } };
});
client.setRequestHandler("sampling/createMessage", async (req) => {
  asked.sampling.push(req.params);
  return {
    model: "interop-model",
    role: "assistant",
    content: { type: "text", text: "Two sentences about a fox." },
    stopReason: "endTurn",
  };
});

const transport =
  kind === "stdio"
    ? new StdioClientTransport({
        command: target,
        args: ["--page-size", "3", "--task-store", ":memory:"],
        stderr: "ignore",
      })
    : new StreamableHTTPClientTransport(new URL(target));
// Every message both ways: which requests went out (from connect on), what came back (after
// connect), and whether the server sent requests of its own.
const sent = [];
const received = [];
const origSend = transport.send.bind(transport);
transport.send = (msg, opts) => {
  sent.push(msg);
  return origSend(msg, opts);
};
try {
  await client.connect(transport);
} catch (e) {
  fatal(`connect: ${e?.constructor?.name} ${e?.code ?? ""} ${e?.message}`);
}

const origOnMessage = transport.onmessage;
transport.onmessage = (msg, extra) => {
  received.push(msg);
  origOnMessage?.(msg, extra);
};

// ---- the era ----
check(client.getNegotiatedProtocolVersion() === want,
  `negotiated ${client.getNegotiatedProtocolVersion()}, expected ${want}`);
check(client.getProtocolEra() === (modern ? "modern" : "legacy"),
  `era ${client.getProtocolEra()}, expected ${modern ? "modern" : "legacy"}`);
const initialized = sent.some((m) => m.method === "initialize");
check(initialized !== modern, `initialize ${initialized ? "sent" : "not sent"} in ${mode} mode`);
check(client.getServerVersion()?.name === "mcp-cpp-demo",
  `server info ${json(client.getServerVersion())}`);
if (modern) {
  check(client.getDiscoverResult()?.supportedVersions?.includes("2026-07-28"),
    `discover result ${json(client.getDiscoverResult())}`);
}
check(client.getServerCapabilities()?.tools, `capabilities ${json(client.getServerCapabilities())}`);

// A step that throws is one failure; the run goes on with the next.
async function step(name, fn) {
  try {
    await fn();
  } catch (e) {
    check(false, `${name}: ${e?.constructor?.name} ${e?.code ?? ""} ${e?.message}`);
  }
}
const text = (r) => (r?.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join(" ");
const since = (mark, pred) => received.slice(mark).filter(pred);
const isServerRequest = (m) => m.method !== undefined && m.id !== undefined;

// ---- tools/list: every page ----
let tools = [];
await step("tools/list", async () => {
  const before = sent.length;
  tools = (await client.listTools()).tools;
  const pages = sent.slice(before).filter((m) => m.method === "tools/list").length;
  check(pages >= 5, `listTools() read ${pages} pages of 3, expected at least 5`);
  const names = tools.map((t) => t.name);
  check(new Set(names).size === names.length, `duplicate tools across pages: ${names}`);
  for (const n of ["echo", "forecast", "ask_name", "summarize"]) {
    check(names.includes(n), `tools/list lacks ${n}: ${names}`);
  }
  // The same pages walked by cursor (request(), not listTools(), which serves a first page
  // from its cache of the aggregate).
  const walked = [];
  let cursor;
  let walks = 0;
  do {
    const page = await client.request({ method: "tools/list", params: cursor === undefined ? {} : { cursor } });
    check(page.tools.length <= 3, `a page of ${page.tools.length} tools (page size 3)`);
    walked.push(...page.tools.map((t) => t.name));
    cursor = page.nextCursor;
  } while (cursor !== undefined && ++walks < 50);
  check(json(walked) === json(names), `walk by cursor ${walked} differs from listTools() ${names}`);
  if (modern) {
    const lists = since(0, (m) => m.result?.tools !== undefined);
    check(lists.every((m) => Number.isInteger(m.result.ttlMs) && m.result.ttlMs >= 0 &&
      ["public", "private"].includes(m.result.cacheScope) && m.result.resultType === "complete"),
      `tools/list results without resultType/ttlMs/cacheScope: ${json(lists.map((m) => m.result))}`);
  }
});

// ---- echo ----
await step("echo", async () => {
  const r = await client.callTool({ name: "echo", arguments: { text: "hello from TS 2.4" } });
  check(!r.isError && text(r) === "hello from TS 2.4", `echo gave ${json(r)}`);
});

// ---- forecast: typed, structured output ----
await step("forecast", async () => {
  const tool = tools.find((t) => t.name === "forecast");
  if (!check(tool?.outputSchema, `forecast has no outputSchema: ${json(tool)}`)) return;
  const r = await client.callTool({ name: "forecast", arguments: { city: "Oslo", days: 2 } });
  const sc = r.structuredContent;
  check(!r.isError && sc !== undefined, `forecast gave ${json(r)}`);
  const validate = new AjvJsonSchemaValidator().getValidator(tool.outputSchema);
  const v = validate(sc);
  check(v.valid, `structuredContent ${json(sc)} does not match the outputSchema: ${v.errorMessage}`);
  check(sc?.city === "Oslo" && sc?.unit === "celsius" && sc?.days?.length === 2 &&
    sc.days[0].day === 1 && sc.days[1].day === 2, `forecast values ${json(sc)}`);
});

// ---- asking the client: elicitation and sampling ----
// On 2026-07-28 the first answer is input_required with one input request (keyed as the demo
// names it); the client's retry carries the answer and ends complete. On 2025-11-25 the server
// sends the request itself, before its result.
async function asking(name, args, method, key, handled, expectText, checkParams) {
  await step(name, async () => {
    const mark = received.length;
    const count = handled.length;
    const r = await client.callTool({ name, arguments: args });
    check(!r.isError && text(r) === expectText, `${name} gave ${json(r)}, expected "${expectText}"`);
    check(handled.length === count + 1, `${name}: the ${method} handler ran ${handled.length - count} times`);
    if (handled.length > count) checkParams(handled[handled.length - 1]);
    const rounds = since(mark, (m) => m.result?.resultType === "input_required");
    const requests = since(mark, isServerRequest);
    if (modern) {
      check(rounds.length === 1, `${name}: ${rounds.length} input_required results, expected 1`);
      const req = rounds[0]?.result?.inputRequests?.[key];
      check(req?.method === method, `${name}: inputRequests ${json(rounds[0]?.result?.inputRequests)}`);
      check(requests.length === 0, `${name}: the server sent requests on 2026-07-28: ${json(requests)}`);
      const retry = sent.filter((m) => m.method === "tools/call" && m.params?.name === name).at(-1);
      check(retry?.params?.inputResponses?.[key] !== undefined,
        `${name}: the client's retry has no inputResponses.${key}: ${json(retry?.params)}`);
      const last = since(mark, (m) => m.result?.content !== undefined).at(-1);
      check(last?.result?.resultType === "complete", `${name}: final result ${json(last?.result)}`);
    } else {
      check(rounds.length === 0, `${name}: input_required on 2025-11-25: ${json(rounds)}`);
      check(requests.length === 1 && requests[0].method === method,
        `${name}: server requests ${json(requests)}, expected one ${method}`);
    }
  });
}
await asking("ask_name", {}, "elicitation/create", "name", asked.elicitation, "Hello, Ada!",
  (p) => check(p.requestedSchema?.properties?.name?.type === "string" && p.message,
    `elicitation params ${json(p)}`));
await asking("summarize", { text: "The quick brown fox jumps over the lazy dog." },
  "sampling/createMessage", "summary", asked.sampling, "Summary: Two sentences about a fox.",
  (p) => check(p.messages?.[0]?.content?.text?.includes("quick brown fox") && p.maxTokens > 0,
    `sampling params ${json(p)}`));

const negotiated = client.getNegotiatedProtocolVersion();
await client.close();
if (failures > 0) {
  console.error(`${tag}: ${failures} check(s) failed`);
  process.exit(1);
}
console.log(`${tag}: OK (${negotiated}, ${tools.length} tools)`);
