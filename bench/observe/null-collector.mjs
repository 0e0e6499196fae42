// An OTLP/HTTP collector that costs as little as possible: reads each body, answers {}.
// The observation benchmarks (compare.sh, instructions.sh, cpu.py) export to it.
//   node null-collector.mjs PORT [COUNT_FILE]
// With COUNT_FILE, the number of spans received so far (`"spanId"` members of /v1/traces
// bodies) is written there after each body, so that a benchmark can tell whether any were
// dropped on the way.
import { createServer } from 'node:http';
import { writeFileSync } from 'node:fs';
const countFile = process.argv[3];
let spans = 0;
const srv = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => { if (countFile) chunks.push(c); });
  req.on('end', () => {
    if (countFile && req.url === '/v1/traces') {
      spans += Buffer.concat(chunks).toString('latin1').split('"spanId"').length - 1;
      writeFileSync(countFile, String(spans));
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{}');
  });
});
srv.listen(Number(process.argv[2]), '127.0.0.1');
