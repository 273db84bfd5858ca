// Bundles examples/cloudflare-worker as wrangler does (esbuild, ESM, the workerd/worker/browser
// conditions, node: built-ins left to workerd's nodejs_compat, keepNames as wrangler sets it), minified
// as `wrangler deploy --minify`. An approximation of wrangler's bundle: wrangler adds its own shims and
// middleware, so the figure is close to, not exactly, what `wrangler deploy --dry-run` reports.
// Used by `npm run bench` (its gzipped size against the 100 KB target) and by the workerd scenario
// (test/runtimes/workerd.mjs runs this very bundle in workerd).
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
/** The Worker's entry. */
export const WORKER_ENTRY = `${root}examples/cloudflare-worker/src/index.ts`;

/** Node built-ins, bare or `node:`-prefixed, stay imports of `node:<name>` (what nodejs_compat provides). */
const nodeBuiltins = {
  name: 'nodejs-compat',
  setup(build) {
    const names = new Set(builtinModules);
    build.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      const name = args.path.replace(/^node:/, '');
      return args.path.startsWith('node:') || names.has(name) ? { path: `node:${name}`, external: true } : undefined;
    });
  },
};

/** The bundle of `entry` (the example Worker unless told): its text and what it is made of (bytes of output per input file). */
export async function bundleWorker({ entry = WORKER_ENTRY, minify = true } = {}) {
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: root,
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2022',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    minify,
    // wrangler keeps function and class names (error.name and stack traces read them): it costs bytes, so it is counted here too.
    keepNames: true,
    metafile: true,
    logLevel: 'silent',
    plugins: [nodeBuiltins],
    // As in a user's project: community-chat-sdk is the published package (its workerd export), not this repository's tsconfig paths to src/.
    tsconfigRaw: {},
  });
  const output = result.outputFiles[0];
  const inputs = Object.values(result.metafile.outputs)[0]?.inputs ?? {};
  return {
    code: output.text,
    bytes: output.contents.byteLength,
    inputs: Object.entries(inputs).map(([file, { bytesInOutput }]) => ({ file, bytes: bytesInOutput })),
  };
}
