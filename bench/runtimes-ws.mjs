// Which WebSocket the Gateway should use on Bun and Deno: `ws` (what the SDK uses) against the
// runtime's own WebSocket, raw (parse + emit, bench/gateway-adapter.mjs), and the SDK's Gateway
// itself, each alone in a fresh process of that runtime against bench/gateway-server.mjs (Node).
// Prints client CPU microseconds per event, median of ROUNDS rounds. Needs `npm run build`.
//   node bench/runtimes-ws.mjs
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { median } from './measure.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const runtimes = [
  ['bun', here('../node_modules/.bin/bun'), []],
  ['deno', here('../node_modules/.bin/deno'), ['run', '-A', '--quiet']],
];

const server = spawn(process.execPath, [here('./gateway-server.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
const [chunk] = await once(server.stdout, 'data');
const port = String(chunk).trim();
try {
  for (const [name, binary, args] of runtimes) {
    if (!existsSync(binary)) {
      console.log(`${name}: not installed (npm ci installs it): skipped`);
      continue;
    }
    const times = { ws: [], native: [], sdk: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const adapter of Object.keys(times)) {
        const out = execFileSync(binary, [...args, here('./gateway-adapter.mjs')], { env: { ...process.env, ADAPTER: adapter, PORT: port }, encoding: 'utf8' });
        times[adapter].push(JSON.parse(out.trim().split('\n').at(-1)).cpuUsPerEvent);
      }
    }
    const [ws, native, sdk] = [median(times.ws), median(times.native), median(times.sdk)];
    console.log(
      `${name}: client CPU µs per event, median of ${ROUNDS}: raw ws ${ws.toFixed(2)}, raw native WebSocket ${native.toFixed(2)} (${(native / ws).toFixed(2)}x ws), SDK Gateway on ws ${sdk.toFixed(2)}`,
    );
  }
} finally {
  server.kill('SIGTERM');
}
