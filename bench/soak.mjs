// The soak of long-running state: 200,000 calls over distinct ids (channels,
// incoming webhooks and interaction callbacks), against a server that sends
// rate-limit headers with a fresh bucket id per route, then the heap growth
// after a full GC. Run with --expose-gc (npm run bench does). Prints; asserts nothing.
//   node --expose-gc bench/soak.mjs [calls]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Client } from '../dist/index.js';

const CALLS = Number(process.argv[2] ?? process.env.SOAK_CALLS ?? 200_000);
const CONCURRENCY = 64;
if (typeof globalThis.gc !== 'function') {
  console.error('soak: run with node --expose-gc');
  process.exit(2);
}

const server = spawn(process.execPath, [fileURLToPath(new URL('./server.mjs', import.meta.url)), '--ratelimit'], { stdio: ['ignore', 'pipe', 'inherit'] });
const [chunk] = await once(server.stdout, 'data');
const baseUrl = `http://127.0.0.1:${Number(String(chunk).trim())}`;
// A 1 s webhook window instead of the contract's 60 s, so the windows of the run have expired when the heap is measured.
const client = new Client({ baseUrl, auth: { botToken: 'soak-token' }, webhookRateLimit: { limit: 30, windowMs: 1000 } });

/** Call `i`: a third each of channel reads, webhook executions and interaction callbacks, every one with a new id. */
function call(i) {
  switch (process.env.SOAK_ONLY === undefined ? i % 3 : Number(process.env.SOAK_ONLY)) {
    case 0:
      return client.channels.get(`c${i}`);
    case 1:
      return client.webhooks.execute({ id: `w${i}`, token: `t${i}` }, { content: 'soak' });
    default:
      return client.interactions.respond(`i${i}`, { interaction_type: 5 });
  }
}

async function run(from, to) {
  let next = from;
  const worker = async () => {
    while (next < to) await call(next++);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

const settle = async () => {
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    globalThis.gc();
  }
  return process.memoryUsage().heapUsed;
};

try {
  await run(0, 2000); // warm up: JIT, sockets, lazily loaded schemas
  // Let the warm-up's buckets reset (the server says 1 s), then measure after the same tail as at the end.
  await new Promise((resolve) => setTimeout(resolve, 1200));
  await run(2000, 3000);
  const before = await settle();
  const started = Date.now();
  await run(3000, 3000 + CALLS);
  // The bot stays active, as a real one does: idle state is swept as new ids arrive, not by a timer.
  await new Promise((resolve) => setTimeout(resolve, 1200));
  await run(3000 + CALLS, 3000 + CALLS + 1000);
  await new Promise((resolve) => setTimeout(resolve, 1200));
  await run(3000 + CALLS + 1000, 3000 + CALLS + 2000);
  const after = await settle();
  const growthMb = (after - before) / 1024 / 1024;
  console.log(
    `soak: ${CALLS} calls over distinct ids (channels, webhooks, interaction callbacks) in ${((Date.now() - started) / 1000).toFixed(1)} s; heap after GC ${(before / 1048576).toFixed(1)} MB -> ${(after / 1048576).toFixed(1)} MB: growth ${growthMb.toFixed(2)} MB (target < 5 MB)`,
  );
} finally {
  await client.close();
  server.kill('SIGTERM');
}
