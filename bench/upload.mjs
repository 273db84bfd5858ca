// npm run bench (or node bench/upload.mjs after npm run build): peak RSS above baseline while
// uploading a 200 MB attachment, as a file-backed Blob (fs.openAsBlob, Content-Length) and as a
// Node stream of unknown length (chunked), to a server in another process. Target: under 50 MB
// above baseline. Prints; asserts nothing.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, openAsBlob } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '../dist/index.js';

const SIZE_MB = Number(process.env.BENCH_UPLOAD_MB ?? 200);
const MB = 1024 * 1024;

async function writeFile(path) {
  const handle = await open(path, 'w');
  const chunk = Buffer.alloc(MB);
  try {
    for (let i = 0; i < SIZE_MB; i++) {
      chunk.fill(i & 0xff);
      await handle.write(chunk);
    }
  } finally {
    await handle.close();
  }
}

/** Runs `fn`, sampling RSS every 2 ms; returns the peak above the RSS measured just before. */
async function peakAbove(fn) {
  globalThis.gc?.();
  await new Promise((resolve) => setTimeout(resolve, 50));
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 2);
  const started = performance.now();
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
  peak = Math.max(peak, process.memoryUsage.rss());
  return { aboveMb: (peak - baseline) / MB, baselineMb: baseline / MB, seconds: (performance.now() - started) / 1000 };
}

const dir = await mkdtemp(join(tmpdir(), 'ccsdk-bench-upload-'));
const server = spawn(process.execPath, [fileURLToPath(new URL('./server.mjs', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
try {
  const path = join(dir, 'upload.bin');
  await writeFile(path);
  const [chunk] = await once(server.stdout, 'data');
  const client = new Client({ baseUrl: `http://127.0.0.1:${String(chunk).trim()}`, auth: { botToken: 'bench-token' }, timeoutMs: 120_000 });
  // Warm up: load every module and open the connection before the baseline.
  await client.channels.uploadAttachment('1', { data: new Uint8Array(4 * MB), filename: 'warm.bin' });

  console.log(`Upload: ${SIZE_MB} MB attachment to a loopback server in another process, node ${process.version}; peak RSS above baseline (target < 50 MB)`);
  const blob = await peakAbove(async () => client.channels.uploadAttachment('1', { data: await openAsBlob(path), filename: 'upload.bin' }));
  console.log(
    `  Blob from fs.openAsBlob (Content-Length):  ${blob.aboveMb.toFixed(1)} MB above a ${blob.baselineMb.toFixed(0)} MB baseline, ${(SIZE_MB / blob.seconds).toFixed(0)} MB/s`,
  );
  const stream = await peakAbove(() => client.channels.uploadAttachment('1', { data: createReadStream(path), filename: 'upload.bin' }));
  console.log(
    `  fs.createReadStream, unknown length (chunked): ${stream.aboveMb.toFixed(1)} MB above a ${stream.baselineMb.toFixed(0)} MB baseline, ${(SIZE_MB / stream.seconds).toFixed(0)} MB/s`,
  );
  await client.close();
} finally {
  server.kill('SIGTERM');
  await rm(dir, { recursive: true, force: true });
}
