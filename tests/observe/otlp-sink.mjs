// A loopback OTLP/HTTP JSON receiver for the exporter test (otlp_exporter_test.cpp). Listens on
// 127.0.0.1:PORT (0: any; the port is printed as the first stdout line, {"port":N}).
//   POST /v1/traces, /v1/metrics with Content-Type application/json (gzip accepted) or
//   application/x-protobuf (decoded by otlp-json-validate.mjs's validateProtobuf, then
//   validated as JSON is)
//   -> validated and decoded with otlp-json-validate.mjs; one JSON line per request appended to
//      OUT: {path, status, t (ms), conn (the connection's number, from 1), ok, errors, warnings,
//      decoded}
//   -> 200 {} (or a partial success with PARTIAL=1), 400 google.rpc.Status on invalid data,
//      415 for other content types, 404 for other paths.
// Env: PORT, OUT, FAIL_FIRST=N FAIL_STATUS=503 RETRY_AFTER=1 (the first N requests get that
//      status, with that Retry-After), PARTIAL=1, CLOSE_IDLE=1 (each connection closed 20 ms after
//      an answer, without saying so: the next request must come on a new connection),
//      EARLY_HINTS=N (N `103 Early Hints` interim answers before each final one), ANSWERLESS=N
//      (the Nth request is logged, status "none", and its connection closed without an answer).
import { createServer } from 'node:http';
import { appendFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { validateTraces, validateMetrics, validateProtobuf, TraceResponse, MetricsResponse } from './otlp-json-validate.mjs';

const port = Number(process.env.PORT ?? 0);
const out = process.env.OUT ?? './otlp-received.jsonl';
let failLeft = Number(process.env.FAIL_FIRST ?? 0);
let connections = 0;
let requests = 0;
let conn = 0;  // the connection of the request being answered
const log = (entry) => appendFileSync(out, JSON.stringify({ t: Date.now(), conn, ...entry }) + '\n');
const reply = (res, status, obj, headers = {}) => {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(obj));
};
const srv = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    conn = req.socket.mcpConn;
    if (++requests === Number(process.env.ANSWERLESS ?? 0)) {
      log({ path: req.url, status: 'none' });
      return req.socket.destroy();
    }
    for (let i = 0; i < Number(process.env.EARLY_HINTS ?? 0); i++) res.writeEarlyHints({ link: '</otlp>; rel=preload' });
    if (process.env.CLOSE_IDLE) res.on('finish', () => setTimeout(() => req.socket.destroy(), 20));
    const kind = { '/v1/traces': 'traces', '/v1/metrics': 'metrics' }[req.url];
    if (req.method !== 'POST' || !kind) return reply(res, 404, { code: 5, message: 'not found' });
    const type = req.headers['content-type'] ?? '';
    const protobuf = type === 'application/x-protobuf';
    if (!type.startsWith('application/json') && !protobuf) {
      log({ path: req.url, status: 415 });
      return reply(res, 415, { code: 3, message: `unsupported content-type ${req.headers['content-type']}` });
    }
    if (failLeft > 0) {
      failLeft--;
      const status = Number(process.env.FAIL_STATUS ?? 503);
      log({ path: req.url, status });
      const h = process.env.RETRY_AFTER ? { 'Retry-After': process.env.RETRY_AFTER } : {};
      return reply(res, status, { code: 14, message: 'unavailable (test)' }, h);
    }
    let raw = Buffer.concat(chunks);
    if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
    if (protobuf) {
      const r = validateProtobuf(kind, raw);
      const status = r.ok ? 200 : 400;
      log({ path: req.url, status, encoding: 'protobuf', bytes: raw.length, ok: r.ok, errors: r.errors, warnings: r.warnings, decoded: r.decoded });
      if (!r.ok) return reply(res, 400, { code: 3, message: r.errors.join('; ').slice(0, 4000) });
      const Response = kind === 'traces' ? TraceResponse : MetricsResponse;
      const rejected = kind === 'traces' ? 'rejectedSpans' : 'rejectedDataPoints';
      const answer = process.env.PARTIAL
        ? Response.encode(Response.fromObject({ partialSuccess: { [rejected]: 1, errorMessage: 'test partial success' } })).finish()
        : new Uint8Array(0);
      res.writeHead(200, { 'Content-Type': 'application/x-protobuf' });
      return res.end(answer);
    }
    let body;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch (e) {
      log({ path: req.url, status: 400, ok: false, errors: [`bad JSON: ${e.message}`] });
      return reply(res, 400, { code: 3, message: `bad JSON: ${e.message}` });
    }
    const r = kind === 'traces' ? validateTraces(body) : validateMetrics(body);
    const status = r.ok ? 200 : 400;
    log({ path: req.url, status, encoding: 'json', bytes: raw.length, ok: r.ok, errors: r.errors, warnings: r.warnings, decoded: r.decoded });
    if (!r.ok) return reply(res, 400, { code: 3, message: r.errors.join('; ').slice(0, 4000) });
    if (process.env.PARTIAL) {
      const f = kind === 'traces' ? 'rejectedSpans' : 'rejectedDataPoints';
      return reply(res, 200, { partialSuccess: { [f]: '1', errorMessage: 'test partial success' } });
    }
    return reply(res, 200, {});
  });
});
srv.on('connection', (socket) => { socket.mcpConn = ++connections; });
srv.listen(port, '127.0.0.1', () => console.log(JSON.stringify({ port: srv.address().port })));
process.stdin.on('end', () => srv.close(() => process.exit(0)));  // the test closes our stdin
process.stdin.resume();
