// The size of a Worker with the receiver, the router and the REST client (examples/cloudflare-worker),
// bundled and minified as wrangler bundles it, then gzipped as Cloudflare counts it. Run alone
// (`node bench/worker-size.mjs`, after `npm run build`) it also lists what the bundle is made of.
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { bundleWorker } from '../scripts/bundle-worker.mjs';
import { WORKER_GZIP_LIMIT } from '../test/runtimes/workerd-scenario.mjs';

/** The gzipped size in KB, its target, and the minified bytes per package or folder. */
export async function workerBundleSize() {
  const bundle = await bundleWorker();
  const parts = new Map();
  for (const { file, bytes } of bundle.inputs) {
    const inPackage = file.split('node_modules/')[1];
    const part = inPackage
      ? inPackage
          .split('/')
          .slice(0, inPackage.startsWith('@') ? 2 : 1)
          .join('/')
      : file.split('/').slice(0, 2).join('/');
    parts.set(part, (parts.get(part) ?? 0) + bytes);
  }
  return {
    kb: gzipSync(bundle.code).byteLength / 1024,
    minifiedKb: bundle.bytes / 1024,
    targetKb: WORKER_GZIP_LIMIT / 1024,
    parts: [...parts].sort((a, b) => b[1] - a[1]),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const size = await workerBundleSize();
  console.log(`Worker bundle: ${size.minifiedKb.toFixed(1)} KB minified, ${size.kb.toFixed(1)} KB gzipped (target at most ${size.targetKb} KB)`);
  for (const [part, bytes] of size.parts) console.log(`  ${part.padEnd(32)} ${(bytes / 1024).toFixed(1)} KB minified`);
}
