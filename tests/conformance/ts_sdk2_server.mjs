// A server made with the TypeScript SDK 2.4.0 (@modelcontextprotocol/server, pinned in
// pins/ts-sdk-2.4.0) for the client tests of tests/client/ts_sdk2_server_test.cpp.
//
//   node ts_sdk2_server.mjs stdio|http --serve modern|both|legacy
//
// modern: 2026-07-28 only (createMcpHandler / serveStdio with legacy 'reject');
// both:   both eras (createMcpHandler's stateless 2025 leg / serveStdio's 'serve');
// legacy: 2025-11-25 only, the SDK's classic session transports (no createMcpHandler), which
//         answer server/discover with an error: the client must fall back to initialize.
// Over HTTP it listens on an ephemeral port of 127.0.0.1 and prints
// "listening on http://127.0.0.1:PORT/mcp" on stderr.
//
// Tools: echo {text} (structured output), region {region} (x-mcp-header: Region), ask_name (elicits a name: an input_required round in
// 2026-07-28, an elicitation/create request in a 2025 session), bump (says the tool list
// changed: onto listen streams in 2026-07-28, unsolicited in a 2025 session). The SDK has no
// task runtime in either era (it neither declares nor serves tasks).
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  McpServer,
  WebStandardStreamableHTTPServerTransport,
  acceptedContent,
  createMcpHandler,
  fromJsonSchema,
  inputRequired,
} from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';

const argv = process.argv.slice(2);
const kind = argv[0];
const serve = argv.includes('--serve') ? argv[argv.indexOf('--serve') + 1] : 'both';
if (!['stdio', 'http'].includes(kind) || !['modern', 'both', 'legacy'].includes(serve)) {
  console.error('usage: ts_sdk2_server.mjs stdio|http --serve modern|both|legacy');
  process.exit(2);
}

let changed = () => {};  // how `bump` announces a change; set per transport below

function build(ctx) {
  const server = new McpServer({ name: 'ts-sdk2-server', version: '2.4.0' });
  server.registerTool(
    'echo',
    {
      description: 'Answers its text',
      inputSchema: fromJsonSchema({
        type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }),
      outputSchema: fromJsonSchema({
        type: 'object', properties: { echoed: { type: 'string' } }, required: ['echoed'] }),
    },
    async ({ text }) => ({ content: [{ type: 'text', text }], structuredContent: { echoed: text } }));
  server.registerTool(
    'region',
    {
      description: 'Answers the region (its argument goes in the Mcp-Param-Region header too)',
      inputSchema: fromJsonSchema({
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
        required: ['region'],
      }),
    },
    async ({ region }) => ({ content: [{ type: 'text', text: `region=${region}` }] }));
  server.registerTool('ask_name', { description: 'Greets the name the user gives' }, async (c) => {
    const got = acceptedContent(c.mcpReq.inputResponses, 'who');
    if (got?.name === undefined) {
      return inputRequired({
        inputRequests: {
          who: inputRequired.elicit({
            message: 'Your name?',
            requestedSchema: {
              type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          }),
        },
        requestState: 'asked-once',
      });
    }
    const state = c.mcpReq.requestState();
    return { content: [{ type: 'text', text: `Hello, ${got.name}` + (state ? ` (${state})` : '') }] };
  });
  server.registerTool('bump', { description: 'Says the tool list changed' }, async () => {
    changed(server, ctx?.era ?? 'legacy');
    return { content: [{ type: 'text', text: 'bumped' }] };
  });
  return server;
}

if (kind === 'stdio') {
  changed = (server) => server.sendToolListChanged();
  if (serve === 'legacy') {
    await build({ era: 'legacy' }).connect(new StdioServerTransport());
  } else {
    serveStdio(build, { legacy: serve === 'modern' ? 'reject' : 'serve' });
  }
} else {
  const handler = createMcpHandler(build, { legacy: serve === 'modern' ? 'reject' : 'stateless' });
  // Per-request instances of 2026-07-28 are gone when a change happens: the handler's bus
  // reaches the open listen streams. A 2025 session sends it on its own stream.
  changed = (server, era) =>
    (era === 'modern' ? handler.notify.toolsChanged() : server.sendToolListChanged());
  const sessions = new Map();
  const legacy = async (request) => {
    const id = request.headers.get('mcp-session-id');
    if (id && sessions.has(id)) return sessions.get(id).handleRequest(request);
    if (id) return new Response('unknown session', { status: 404 });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => sessions.set(sid, transport),
      onsessionclosed: (sid) => sessions.delete(sid),
    });
    await build({ era: 'legacy' }).connect(transport);
    return transport.handleRequest(request);
  };
  const route = serve === 'legacy' ? legacy : (request) => handler.fetch(request);

  // node:http to the fetch API's Request and Response (the SDK serves web-standard handlers).
  const listener = http.createServer(async (req, res) => {
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : Readable.toWeb(req);
    const headers = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      headers.push([req.rawHeaders[i], req.rawHeaders[i + 1]]);
    }
    let response;
    try {
      response = await route(new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method, headers, body, duplex: 'half', signal: abort.signal }));
    } catch (e) {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(e));
      return;
    }
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.flushHeaders();  // an event stream's headers go out before its first event
    if (response.body) {
      try {
        for await (const chunk of response.body) res.write(chunk);
      } catch {
        // the client went away
      }
    }
    res.end();
  });
  listener.listen(0, '127.0.0.1', () => {
    console.error(`listening on http://127.0.0.1:${listener.address().port}/mcp`);
  });
}
