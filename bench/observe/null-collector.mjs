// An OTLP/HTTP collector that costs as little as possible: reads each body, answers {}.
// The observation benchmarks (compare.sh, instructions.sh) export to it.
//   node null-collector.mjs PORT
import { createServer } from 'node:http';
const srv = createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => { res.writeHead(200, { 'Content-Type': 'application/json' }); res.end('{}'); });
});
srv.listen(Number(process.argv[2]), '127.0.0.1');
