#!/usr/bin/env node
// `tools/call echo` over stdio in both protocol eras, for bench/RESULTS.md: the same server
// binary, a fresh process per measurement, the eras alternating (order rotated each round).
//   2025-11-25: initialize + notifications/initialized, then the calls.
//   2026-07-28: no handshake; every call carries the revision, the client's capabilities and
//               info in `_meta` (as the revision requires of each request).
// N measured calls after a warm-up, W in flight; the server's CPU per call is read from
// /proc/<pid>/task/*/schedstat over the measured calls only.
//   node era-bench.mjs [--rounds R] [--n N] [--window W] -- <server command> [args...]
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

const args = process.argv.slice(2);
const sep = args.indexOf('--');
if (sep < 0) { console.error('usage: era-bench.mjs [--rounds R] [--n N] [--window W] -- cmd...'); process.exit(2); }
const opt = (name, def) => { const i = args.indexOf(name); return i >= 0 && i < sep ? Number(args[i + 1]) : def; };
const rounds = opt('--rounds', 5), n = opt('--n', 100000), window = opt('--window', 64), warmup = 5000;
const cmd = args.slice(sep + 1);

const cpuNs = (pid) => readdirSync(`/proc/${pid}/task`).reduce((s, t) => {
  try { return s + Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]); } catch { return s; }
}, 0);

function call(era, id) {
  const params = { name: 'echo', arguments: { text: 'hello' } };
  if (era === '2026-07-28') {
    params._meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'era-bench', version: '1.0.0' },
    };
  }
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }) + '\n';
}

async function measure(era) {
  const child = spawn(cmd[0], cmd.slice(1), { stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting = new Map();
  let buf = '';
  child.stdout.on('data', (d) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl); buf = buf.slice(nl + 1);
      const m = JSON.parse(line);
      const done = waiting.get(m.id);
      if (done) { waiting.delete(m.id); done(m); }
    }
  });
  const send = (text, id) => new Promise((resolve) => { waiting.set(id, resolve); child.stdin.write(text); });
  if (era === '2025-11-25') {
    await send(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: {
      protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'era-bench', version: '1.0.0' } } }) + '\n', 0);
    child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  }
  let bad = 0;
  const check = era === '2026-07-28' ? '"resultType":"complete"' : null;
  const run = async (first, count) => {
    let next = first; const end = first + count;
    const lane = async () => {
      while (next < end) {
        const id = next++;
        const m = await send(call(era, id), id);
        if (!m.result || m.result.content?.[0]?.text !== 'hello' ||
            (check && m.result.resultType !== 'complete')) bad++;
      }
    };
    await Promise.all(Array.from({ length: window }, lane));
  };
  await run(1, warmup);
  const c0 = cpuNs(child.pid), t0 = process.hrtime.bigint();
  await run(1 + warmup, n);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9, c1 = cpuNs(child.pid);
  child.stdin.end();
  await new Promise((r) => child.on('exit', r));
  return { rate: n / seconds, cpu: (c1 - c0) / 1000 / n, bad };
}

const eras = ['2025-11-25', '2026-07-28'];
for (let r = 1; r <= rounds; r++) {
  for (const era of r % 2 ? eras : [...eras].reverse()) {
    const m = await measure(era);
    console.log(`r${r} ${era} ${m.rate.toFixed(0)} calls/s ${m.cpu.toFixed(2)} us/call errors=${m.bad} load=${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`);
  }
}
