// Trace context end to end with a peer no one here wrote: the TypeScript SDK (1.32.2) and the
// OpenTelemetry JS tracer SDK (sdk-trace-base, the tracer behind sdk-node).
//
//   node trace-e2e.mjs check DEMO_SERVER MCP_CPP   runs both directions, prints PASS or FAIL
//   node trace-e2e.mjs serve                       the TypeScript server (stdio) of direction 2
//
// 1. A TypeScript client span's traceparent, injected by OpenTelemetry's W3C propagator into
//    params._meta of a tools/call, reaches our demo server (over stdio, `--otlp` to a receiver
//    in this script): our server's exported span `tools/call echo` (SERVER) must be that span's
//    child (same trace id, parentSpanId = the client span's id).
// 2. `mcp-cpp tools call whoami --otlp ...` calls a TypeScript SDK server whose handler reads
//    the traceparent of its request's _meta with the propagator: it must be the span our client
//    exported for that call (`tools/call whoami`, CLIENT).
import { context, propagation, trace, SpanKind, ROOT_CONTEXT } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createServer } from 'node:http';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const exporter = new InMemorySpanExporter();
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
const tracer = trace.getTracer('trace-e2e');

const [mode, demo, cli] = process.argv.slice(2);

if (mode === 'serve') {
  // Direction 2's server: answers whoami with the parent its propagator reads from _meta.
  const server = new McpServer({ name: 'trace-e2e-server', version: '1.0.0' });
  server.registerTool('whoami', {
    description: 'Answers with the trace parent it was called in',
    annotations: { readOnlyHint: true },
  },
    async (extra) => {
      const parent = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, extra._meta ?? {}));
      return { content: [{ type: 'text', text: JSON.stringify(parent ?? null) }] };
    });
  await server.connect(new StdioServerTransport());
} else if (mode === 'check') {
  let failed = false;
  const fail = (msg) => { failed = true; console.error(`FAIL: ${msg}`); };

  // An OTLP/HTTP JSON receiver: the spans our programs export (told to send JSON by
  // OpenTelemetry's protocol variable; protobuf is their default).
  const json = { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' };
  const received = [];
  const sink = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        for (const rs of body.resourceSpans ?? []) {
          for (const ss of rs.scopeSpans ?? []) received.push(...(ss.spans ?? []));
        }
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const otlp = `http://127.0.0.1:${sink.address().port}`;
  const span = (name, kind) => received.find((s) => s.name === name && s.kind === kind);
  const waitFor = async (name, kind) => {
    for (let i = 0; i < 100 && !span(name, kind); i++) await new Promise((r) => setTimeout(r, 100));
    return span(name, kind);
  };

  // 1. The TypeScript client's span is the parent of our server's.
  const client = new Client({ name: 'trace-e2e-client', version: '1.0.0' });
  await client.connect(new StdioClientTransport({
    command: demo, args: ['--otlp', otlp, '--task-store', ':memory:'], stderr: 'ignore',
    env: { ...getDefaultEnvironment(), ...json } }));
  const clientSpan = tracer.startSpan('tools/call echo', { kind: SpanKind.CLIENT });
  const meta = {};
  propagation.inject(trace.setSpan(context.active(), clientSpan), meta);
  const r = await client.callTool({ name: 'echo', arguments: { text: 'traced' }, _meta: meta });
  clientSpan.end();
  await client.close();  // the demo ends and its exporter sends what it holds
  if (!JSON.stringify(r).includes('traced')) fail(`echo answered ${JSON.stringify(r)}`);
  const ours = await waitFor('tools/call echo', 2);
  const theirs = clientSpan.spanContext();
  if (!ours) {
    fail(`our server exported no SERVER span "tools/call echo" (got ${JSON.stringify(received.map((s) => s.name))})`);
  } else {
    if (ours.traceId !== theirs.traceId) fail(`trace id ${ours.traceId}, not the client's ${theirs.traceId}`);
    if (ours.parentSpanId !== theirs.spanId) fail(`parent ${ours.parentSpanId}, not the client span ${theirs.spanId}`);
    console.log(`1. TypeScript client span ${theirs.spanId} -> our server span ${ours.spanId} (trace ${ours.traceId})`);
  }

  // 2. Our client's span is the parent the TypeScript server's handler reads.
  const self = fileURLToPath(import.meta.url);
  const out = await new Promise((resolve) => execFile(cli,
    ['tools', 'call', 'whoami', '--json', '--otlp', otlp, '--', process.execPath, self, 'serve'],
    { timeout: 60000, env: { ...process.env, ...json } },
    (err, stdout, stderr) => resolve({ err, stdout, stderr })));
  if (out.err) fail(`mcp-cpp failed: ${out.err.message} ${out.stderr}`);
  const ourClient = await waitFor('tools/call whoami', 3);
  let seen = null;
  try {
    const result = JSON.parse(out.stdout);
    seen = JSON.parse(result.content[0].text);
  } catch (e) {
    fail(`cannot read whoami's answer: ${out.stdout}`);
  }
  if (!ourClient) {
    fail(`our client exported no CLIENT span "tools/call whoami" (got ${JSON.stringify(received.map((s) => s.name))})`);
  } else if (!seen) {
    fail('the TypeScript server read no trace parent from _meta');
  } else {
    if (seen.traceId !== ourClient.traceId) fail(`the server read trace ${seen.traceId}, ours is ${ourClient.traceId}`);
    if (seen.spanId !== ourClient.spanId) fail(`the server read parent ${seen.spanId}, our span is ${ourClient.spanId}`);
    if (seen.isRemote !== true) fail('the parent the server read is not remote');
    console.log(`2. our client span ${ourClient.spanId} -> the TypeScript handler's parent ${seen.spanId}`);
  }
  sink.close();
  console.log(failed ? 'FAIL' : 'PASS');
  process.exit(failed ? 1 : 0);
} else {
  console.error('usage: trace-e2e.mjs check DEMO_SERVER MCP_CPP | serve');
  process.exit(2);
}
