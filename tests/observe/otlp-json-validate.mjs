// Strict validator of OTLP/HTTP JSON request bodies (ExportTraceServiceRequest,
// ExportMetricsServiceRequest), used by the OTLP exporter test (otlp-sink.mjs).
//
// Two layers:
//  1. A strict JSON walk (the table below, written from opentelemetry-proto's trace.proto,
//     metrics.proto, common.proto and resource.proto): unknown or snake_case keys, wrong JSON
//     types, enum names instead of integers, bad hex ids, unsafe 64-bit numbers, oneof
//     violations, and OTLP data model violations (histogram bucket/bounds arity,
//     count == sum(buckets), ...).
//  2. The official protobuf definitions: the protobufjs static module generated from
//     opentelemetry-proto and shipped in @opentelemetry/otlp-transformer@0.209.0 (installed as
//     "otlp-proto-root", package.json beside this file). The body is converted (hex ids ->
//     bytes), fromObject -> verify -> encode -> decode -> toObject, and the round trip must
//     reproduce the input exactly; the decoded message is returned.
//
// Usage: node otlp-json-validate.mjs traces|metrics FILE.json   (exit 0 = valid)
// As a module: validateTraces(obj) / validateMetrics(obj) -> {ok, errors, warnings, decoded}
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = require('otlp-proto-root/build/src/generated/root.js');
const P = root.opentelemetry.proto;
export const TraceRequest = P.collector.trace.v1.ExportTraceServiceRequest;
export const MetricsRequest = P.collector.metrics.v1.ExportMetricsServiceRequest;
export const TraceResponse = P.collector.trace.v1.ExportTraceServiceResponse;
export const MetricsResponse = P.collector.metrics.v1.ExportMetricsServiceResponse;

// ---- schema: field -> type. '[]' suffix = repeated. Types:
// string bool double u32 i32 s32 f32 (32-bit ints), u64 i64 f64 sf64 (64-bit ints),
// bytes (base64), tid (hex trace id, 16 bytes), sid (hex span id, 8 bytes),
// enum:N (integer 0..N), or a message name from this table.
const S = {
  AnyValue: { stringValue: 'string', boolValue: 'bool', intValue: 'i64', doubleValue: 'double',
    arrayValue: 'ArrayValue', kvlistValue: 'KeyValueList', bytesValue: 'bytes',
    $oneof: [['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue']] },
  ArrayValue: { values: 'AnyValue[]' },
  KeyValueList: { values: 'KeyValue[]' },
  KeyValue: { key: 'string', value: 'AnyValue' },
  InstrumentationScope: { name: 'string', version: 'string', attributes: 'KeyValue[]', droppedAttributesCount: 'u32' },
  EntityRef: { schemaUrl: 'string', type: 'string', idKeys: 'string[]', descriptionKeys: 'string[]' },
  Resource: { attributes: 'KeyValue[]', droppedAttributesCount: 'u32', entityRefs: 'EntityRef[]' },
  // traces
  ExportTraceServiceRequest: { resourceSpans: 'ResourceSpans[]' },
  ResourceSpans: { resource: 'Resource', scopeSpans: 'ScopeSpans[]', schemaUrl: 'string' },
  ScopeSpans: { scope: 'InstrumentationScope', spans: 'Span[]', schemaUrl: 'string' },
  Span: { traceId: 'tid', spanId: 'sid', traceState: 'string', parentSpanId: 'sid?', flags: 'f32', name: 'string',
    kind: 'enum:5', startTimeUnixNano: 'f64', endTimeUnixNano: 'f64', attributes: 'KeyValue[]',
    droppedAttributesCount: 'u32', events: 'Event[]', droppedEventsCount: 'u32', links: 'Link[]',
    droppedLinksCount: 'u32', status: 'Status' },
  Event: { timeUnixNano: 'f64', name: 'string', attributes: 'KeyValue[]', droppedAttributesCount: 'u32' },
  Link: { traceId: 'tid', spanId: 'sid', traceState: 'string', attributes: 'KeyValue[]', droppedAttributesCount: 'u32', flags: 'f32' },
  Status: { message: 'string', code: 'enum:2' },
  // metrics
  ExportMetricsServiceRequest: { resourceMetrics: 'ResourceMetrics[]' },
  ResourceMetrics: { resource: 'Resource', scopeMetrics: 'ScopeMetrics[]', schemaUrl: 'string' },
  ScopeMetrics: { scope: 'InstrumentationScope', metrics: 'Metric[]', schemaUrl: 'string' },
  Metric: { name: 'string', description: 'string', unit: 'string', gauge: 'Gauge', sum: 'Sum', histogram: 'Histogram',
    exponentialHistogram: 'ExponentialHistogram', summary: 'Summary', metadata: 'KeyValue[]',
    $oneof: [['gauge', 'sum', 'histogram', 'exponentialHistogram', 'summary']], $required: ['gauge|sum|histogram|exponentialHistogram|summary'] },
  Gauge: { dataPoints: 'NumberDataPoint[]' },
  Sum: { dataPoints: 'NumberDataPoint[]', aggregationTemporality: 'enum:2', isMonotonic: 'bool' },
  Histogram: { dataPoints: 'HistogramDataPoint[]', aggregationTemporality: 'enum:2' },
  ExponentialHistogram: { dataPoints: 'ExponentialHistogramDataPoint[]', aggregationTemporality: 'enum:2' },
  Summary: { dataPoints: 'SummaryDataPoint[]' },
  NumberDataPoint: { attributes: 'KeyValue[]', startTimeUnixNano: 'f64', timeUnixNano: 'f64', asDouble: 'double',
    asInt: 'sf64', exemplars: 'Exemplar[]', flags: 'u32', $oneof: [['asDouble', 'asInt']] },
  HistogramDataPoint: { attributes: 'KeyValue[]', startTimeUnixNano: 'f64', timeUnixNano: 'f64', count: 'f64',
    sum: 'double', bucketCounts: 'f64[]', explicitBounds: 'double[]', exemplars: 'Exemplar[]', flags: 'u32',
    min: 'double', max: 'double' },
  ExponentialHistogramDataPoint: { attributes: 'KeyValue[]', startTimeUnixNano: 'f64', timeUnixNano: 'f64',
    count: 'f64', sum: 'double', scale: 's32', zeroCount: 'f64', positive: 'Buckets', negative: 'Buckets',
    flags: 'u32', exemplars: 'Exemplar[]', min: 'double', max: 'double', zeroThreshold: 'double' },
  Buckets: { offset: 's32', bucketCounts: 'u64[]' },
  SummaryDataPoint: { attributes: 'KeyValue[]', startTimeUnixNano: 'f64', timeUnixNano: 'f64', count: 'f64',
    sum: 'double', quantileValues: 'ValueAtQuantile[]', flags: 'u32' },
  ValueAtQuantile: { quantile: 'double', value: 'double' },
  Exemplar: { filteredAttributes: 'KeyValue[]', timeUnixNano: 'f64', asDouble: 'double', asInt: 'sf64',
    spanId: 'sid', traceId: 'tid', $oneof: [['asDouble', 'asInt']] },
};

const I64 = /^-?(0|[1-9][0-9]*)$/;
const U64 = /^(0|[1-9][0-9]*)$/;
const camel = (k) => k.replace(/_([a-z])/g, (_, c) => c.toUpperCase());

function walk(msgName, obj, path, errs, warns) {
  const sch = S[msgName];
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    errs.push(`${path}: expected object (${msgName})`);
    return;
  }
  for (const [k, v] of Object.entries(obj)) {
    const t = sch[k];
    if (!t || k.startsWith('$')) {
      const hint = sch[camel(k)] ? ` (use lowerCamelCase "${camel(k)}")` : '';
      errs.push(`${path}.${k}: unknown field for ${msgName}${hint}`);
      continue;
    }
    if (t.endsWith('[]')) {
      if (!Array.isArray(v)) { errs.push(`${path}.${k}: expected array`); continue; }
      const et = t.slice(0, -2);
      v.forEach((e, i) => checkValue(et, e, `${path}.${k}[${i}]`, errs, warns));
    } else {
      checkValue(t, v, `${path}.${k}`, errs, warns);
    }
  }
  for (const group of sch.$oneof || []) {
    const set = group.filter((f) => obj[f] !== undefined);
    if (set.length > 1) errs.push(`${path}: oneof violated, more than one of ${set.join(', ')} set`);
  }
  for (const req of sch.$required || []) {
    if (!req.split('|').some((f) => obj[f] !== undefined)) errs.push(`${path}: one of ${req.replace(/\|/g, ', ')} is required`);
  }
  semantic(msgName, obj, path, errs, warns);
}

function checkValue(t, v, path, errs, warns) {
  if (v === null) { errs.push(`${path}: null is not allowed (omit the field instead)`); return; }
  const optional = t.endsWith('?');
  if (optional) t = t.slice(0, -1);
  if (S[t]) return walk(t, v, path, errs, warns);
  if (t.startsWith('enum:')) {
    const max = Number(t.slice(5));
    if (typeof v === 'string') errs.push(`${path}: enum must be an integer in OTLP/JSON, got string "${v}"`);
    else if (!Number.isInteger(v) || v < 0 || v > max) errs.push(`${path}: enum value ${JSON.stringify(v)} out of range 0..${max}`);
    return;
  }
  switch (t) {
    case 'string': if (typeof v !== 'string') errs.push(`${path}: expected string`); return;
    case 'bool': if (typeof v !== 'boolean') errs.push(`${path}: expected boolean`); return;
    case 'double':
      if (typeof v === 'number') return;
      if (v === 'NaN' || v === 'Infinity' || v === '-Infinity') return;
      errs.push(`${path}: expected JSON number (or "NaN"/"Infinity"/"-Infinity")`); return;
    case 'u32': case 'f32': case 'i32': case 's32': {
      const n = typeof v === 'string' && /^-?[0-9]+$/.test(v) ? Number(v) : v;
      if (typeof v === 'string') warns.push(`${path}: 32-bit integer sent as string (legal proto3 JSON, unusual)`);
      const lo = t === 'u32' || t === 'f32' ? 0 : -(2 ** 31);
      const hi = t === 'u32' || t === 'f32' ? 2 ** 32 - 1 : 2 ** 31 - 1;
      if (!Number.isInteger(n) || n < lo || n > hi) errs.push(`${path}: expected ${t} integer, got ${JSON.stringify(v)}`);
      return;
    }
    case 'u64': case 'f64': case 'i64': case 'sf64': {
      const unsigned = t === 'u64' || t === 'f64';
      if (typeof v === 'number') {
        if (!Number.isSafeInteger(v)) errs.push(`${path}: 64-bit value ${v} as JSON number is not a safe integer; send a decimal string`);
        else if (unsigned && v < 0) errs.push(`${path}: negative value for unsigned field`);
        return;
      }
      if (typeof v !== 'string' || !(unsigned ? U64 : I64).test(v)) { errs.push(`${path}: expected decimal string for 64-bit integer, got ${JSON.stringify(v)}`); return; }
      const b = BigInt(v);
      const ok = unsigned ? b < 2n ** 64n : b >= -(2n ** 63n) && b < 2n ** 63n;
      if (!ok) errs.push(`${path}: 64-bit value out of range`);
      return;
    }
    case 'bytes':
      if (typeof v !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(v)) errs.push(`${path}: expected base64 string`);
      return;
    case 'tid': case 'sid': {
      const len = t === 'tid' ? 32 : 16;
      if (typeof v !== 'string') { errs.push(`${path}: expected hex string`); return; }
      if (optional && v === '') return; // parentSpanId of a root span
      if (v.length !== len || !/^[0-9a-fA-F]+$/.test(v)) errs.push(`${path}: expected ${len} hex chars (OTLP/JSON ids are hex, not base64), got "${v}"`);
      else if (/^0+$/.test(v)) errs.push(`${path}: all-zero id is invalid`);
      return;
    }
  }
  errs.push(`${path}: internal: unknown type ${t}`);
}

const big = (v) => (v === undefined ? 0n : BigInt(v));

function semantic(msgName, o, path, errs, warns) {
  if (msgName === 'Span') {
    for (const f of ['traceId', 'spanId', 'name', 'startTimeUnixNano', 'endTimeUnixNano']) {
      if (o[f] === undefined) errs.push(`${path}: missing ${f}`);
    }
    if (o.kind === undefined || o.kind === 0) warns.push(`${path}: kind unset (SPAN_KIND_UNSPECIFIED)`);
    try { if (big(o.endTimeUnixNano) < big(o.startTimeUnixNano)) errs.push(`${path}: endTimeUnixNano < startTimeUnixNano`); } catch {}
  }
  if (msgName === 'Sum' || msgName === 'Histogram' || msgName === 'ExponentialHistogram') {
    if (!o.aggregationTemporality) errs.push(`${path}.aggregationTemporality: must be 1 (DELTA) or 2 (CUMULATIVE)`);
  }
  if (msgName === 'KeyValue' && (o.key === undefined || o.key === '')) errs.push(`${path}: empty attribute key`);
  if (msgName === 'HistogramDataPoint') {
    const b = o.explicitBounds || [];
    const c = o.bucketCounts || [];
    if (c.length !== 0 && c.length !== b.length + 1) errs.push(`${path}: bucketCounts has ${c.length} entries, explicitBounds ${b.length}; need bounds+1`);
    for (let i = 1; i < b.length; i++) if (!(b[i] > b[i - 1])) errs.push(`${path}.explicitBounds: not strictly increasing at ${i}`);
    try {
      const total = c.reduce((a, x) => a + BigInt(x), 0n);
      if (c.length && total !== big(o.count)) errs.push(`${path}: sum(bucketCounts)=${total} != count=${o.count ?? 0}`);
    } catch {}
    if (o.timeUnixNano === undefined) errs.push(`${path}: missing timeUnixNano`);
  }
}

// ---- layer 2: official protobuf definitions round trip
const ID_FIELDS = new Set(['traceId', 'spanId', 'parentSpanId']);
function mapIds(x, f) {
  if (Array.isArray(x)) return x.map((e) => mapIds(e, f));
  if (x && typeof x === 'object' && !(x instanceof Uint8Array)) {
    const out = {};
    for (const [k, v] of Object.entries(x)) out[k] = ID_FIELDS.has(k) && (typeof v === 'string' || v instanceof Uint8Array || Array.isArray(v)) ? f(v) : mapIds(v, f);
    return out;
  }
  return x;
}
// canonical form used for the comparison: ids lowercase hex, 64-bit ints as strings,
// 32-bit ints as numbers.
function canon(x, key) {
  if (Array.isArray(x)) return x.map((e) => canon(e, key));
  if (x && typeof x === 'object') {
    const out = {};
    // an empty repeated field is the same as an absent one on the wire
    for (const k of Object.keys(x).sort()) if (!(Array.isArray(x[k]) && x[k].length === 0)) out[k] = canon(x[k], k);
    return out;
  }
  if (ID_FIELDS.has(key) && typeof x === 'string') return x.toLowerCase();
  if (typeof x === 'number' && /UnixNano$|^count$|^zeroCount$|^intValue$|^asInt$|^bucketCounts$/.test(key ?? '')) return String(x);
  if (typeof x === 'string' && /^(flags|droppedAttributesCount|droppedEventsCount|droppedLinksCount|scale|offset)$/.test(key ?? '')) return Number(x);
  return x;
}

function roundTrip(Type, body, errs) {
  const input = mapIds(body, (h) => (h === '' ? new Uint8Array(0) : Buffer.from(h, 'hex')));
  const msg = Type.fromObject(input);
  const v = Type.verify(msg);
  if (v) errs.push(`protobuf verify: ${v}`);
  const bytes = Type.encode(msg).finish();
  const decoded = Type.decode(bytes);
  const obj = Type.toObject(decoded, { longs: String, enums: Number, bytes: Array, defaults: false, arrays: false });
  const back = mapIds(obj, (b) => Buffer.from(b).toString('hex'));
  const a = JSON.stringify(canon(body));
  const b = JSON.stringify(canon(back));
  if (a !== b) errs.push(`protobuf round trip changed the message (a field the official schema does not carry or typed differently):\n  sent:    ${a.slice(0, 2000)}\n  decoded: ${b.slice(0, 2000)}`);
  return { decoded: back, protobufBytes: bytes.length };
}

function validate(kind, body) {
  const errors = [];
  const warnings = [];
  const msgName = kind === 'traces' ? 'ExportTraceServiceRequest' : 'ExportMetricsServiceRequest';
  walk(msgName, body, '$', errors, warnings);
  let decoded;
  let protobufBytes;
  if (errors.length === 0) {
    ({ decoded, protobufBytes } = roundTrip(kind === 'traces' ? TraceRequest : MetricsRequest, body, errors));
  }
  return { ok: errors.length === 0, errors, warnings, decoded, protobufBytes };
}
export const validateTraces = (body) => validate('traces', body);

// An OTLP/protobuf ExportTraceServiceRequest or ExportMetricsServiceRequest (`kind` traces or
// metrics): decoded with the official definitions (the generated protobufjs module), turned into
// the JSON mapping (hex ids) and validated as a JSON body is. A field the schema does not know
// would be skipped by the decoder, so the body must be as long as the decoded message encoded
// again, give or take the 8 bytes by which the two outer length prefixes of a traces request may
// be longer than they need to be (5-byte varints).
export function validateProtobuf(kind, raw) {
  const Type = kind === 'traces' ? TraceRequest : MetricsRequest;
  let obj;
  let reencoded;
  try {
    const msg = Type.decode(raw);
    reencoded = Type.encode(msg).finish().length;
    obj = mapIds(Type.toObject(msg, { longs: String, enums: Number, bytes: Array, defaults: false, arrays: false }),
      (b) => Buffer.from(b).toString('hex'));
  } catch (e) {
    return { ok: false, errors: [`protobuf decode: ${e.message}`], warnings: [] };
  }
  const r = validate(kind, obj);
  const extra = raw.length - reencoded;
  if (extra < 0 || extra > (kind === 'traces' ? 8 : 0)) r.errors.push(`protobuf body of ${raw.length} bytes decodes to ${reencoded} (fields the schema does not know?)`);
  r.ok = r.errors.length === 0;
  return { ...r, decoded: r.decoded ?? obj };
}
export const validateMetrics = (body) => validate('metrics', body);

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [kind, file] = process.argv.slice(2);
  if (!['traces', 'metrics'].includes(kind) || !file) {
    console.error('usage: node otlp-json-validate.mjs traces|metrics FILE.json');
    process.exit(2);
  }
  const r = validate(kind, JSON.parse(readFileSync(file, 'utf8')));
  for (const w of r.warnings) console.log('warning:', w);
  for (const e of r.errors) console.log('error:', e);
  console.log(r.ok ? `OK (${r.protobufBytes} bytes as protobuf)` : `INVALID (${r.errors.length} errors)`);
  process.exit(r.ok ? 0 : 1);
}
