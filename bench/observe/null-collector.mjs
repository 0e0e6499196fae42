// An OTLP/HTTP collector that costs as little as possible: reads each body, answers {} (an empty
// body to protobuf).
// The observation benchmarks (compare.sh, instructions.sh, cpu.py, http_cpu.py) export to it.
//   node null-collector.mjs PORT [COUNT_FILE]
// With COUNT_FILE, the number of spans received so far (`"spanId"` members of /v1/traces JSON
// bodies, ScopeSpans.spans fields of protobuf ones) is written there after each body, so that a
// benchmark can tell whether any were dropped on the way.
import { createServer } from 'node:http';
import { writeFileSync } from 'node:fs';
const countFile = process.argv[3];
let spans = 0;

// The spans of an OTLP/protobuf ExportTraceServiceRequest: field 2 of each ScopeSpans (field 2)
// of each ResourceSpans (field 1), found by walking the length-delimited fields.
function protobufSpans(buf) {
  const fields = (b, start, end, want, f) => {
    let p = start;
    const varint = () => {
      let v = 0;
      for (let shift = 0; ; shift += 7) {
        const x = b[p++];
        v += (x & 0x7f) * 2 ** shift;
        if (x < 0x80) return v;
      }
    };
    while (p < end) {
      const key = varint();
      const wire = key & 7;
      if (wire === 0) varint();
      else if (wire === 1) p += 8;
      else if (wire === 5) p += 4;
      else {
        const n = varint();
        if (key >>> 3 === want) f(p, p + n);
        p += n;
      }
    }
  };
  let n = 0;
  fields(buf, 0, buf.length, 1, (a, b) =>
    fields(buf, a, b, 2, (c, d) => fields(buf, c, d, 2, () => n++)));
  return n;
}
const srv = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => { if (countFile) chunks.push(c); });
  req.on('end', () => {
    if (countFile && req.url === '/v1/traces') {
      const body = Buffer.concat(chunks);
      spans += req.headers['content-type'] === 'application/x-protobuf'
        ? protobufSpans(body)
        : body.toString('latin1').split('"spanId"').length - 1;
      writeFileSync(countFile, String(spans));
    }
    if (req.headers['content-type'] === 'application/x-protobuf') {
      res.writeHead(200, { 'Content-Type': 'application/x-protobuf' });
      res.end();  // an empty ExportTraceServiceResponse
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{}');
  });
});
srv.listen(Number(process.argv[2]), '127.0.0.1');
