import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync, type Plugin } from 'esbuild';
import { defineConfig, type Options } from 'tsup';
import { PAGE_SCRIPT_BUILD } from './src/testing/playground/assets/page-script.js';

/**
 * The playground page's script, bundled from `src/testing/playground/browser/`
 * once per build and put in place of `page-script.ts`, whose source form
 * bundles it on first request with esbuild: the package serves the text
 * and never loads esbuild.
 */
const playgroundScript: Plugin = {
  name: 'playground-script',
  setup(build) {
    build.onLoad({ filter: /[\\/]playground[\\/]assets[\\/]page-script\.ts$/ }, () => {
      const text = buildSync(PAGE_SCRIPT_BUILD).outputFiles[0]?.text;
      if (!text) throw new Error('the playground script bundled to nothing');
      return {
        contents: `/** The page's script, bundled at build time. */\nexport function pageScript() {\n  return ${JSON.stringify(text)};\n}\n`,
        loader: 'js',
      };
    });
  },
};

/**
 * The edge build (`dist/edge/`, the `workerd` and `worker` export
 * conditions): the main entry without the parts only Node runs, each put in
 * place of its module by one that refuses with the SDK's own error, and
 * `core/edge-build.ts` saying it is the edge build (fetch by default, the
 * Gateway refused up front, whatever runtime is detected). Neither
 * undici, `ws` nor `node:worker_threads` is imported, so a Worker bundles
 * and loads it; the runtime checks (`core/runtime.ts`) refuse these paths
 * before they are reached.
 */
const NODE_ONLY: Record<string, string> = {
  'core/edge-build.js': 'export const EDGE_BUILD = true;',
  'rest/undici-transport.js': `import { ValidationError } from '../errors/local.js';
export class UndiciTransport {
  constructor() {
    throw new ValidationError('client options', [{ path: 'transport', message: "undici's transport is not in the edge build of the SDK: use transport: 'fetch' (its default there)" }]);
  }
}`,
  'gateway/connection.js': `import { GatewayError } from '../errors/gateway.js';
import { NO_GATEWAY_ON_WORKERS } from './connect-checks.js';
export class GatewayConnection {
  constructor() {
    throw new GatewayError(NO_GATEWAY_ON_WORKERS);
  }
}`,
  'gateway/worker-pool.js': `import { GatewayError } from '../errors/gateway.js';
import { NO_GATEWAY_ON_WORKERS } from './connect-checks.js';
export function workerShards() {
  throw new GatewayError(NO_GATEWAY_ON_WORKERS);
}`,
};
/** The sources' folder: the stubs are keyed by their path under it. */
const SRC = fileURLToPath(new URL('./src/', import.meta.url));
const edgeStubs: Plugin = {
  name: 'edge-stubs',
  setup(build) {
    // Any relative import of one of these modules, from any entry (src/transport.ts imports ./rest/undici-transport.js).
    build.onResolve({ filter: /^\.{1,2}\/(.*\/)?(undici-transport|connection|worker-pool|edge-build)\.js$/ }, (args) => {
      const key = relative(SRC, resolve(args.resolveDir, args.path)).split(sep).join('/');
      return key in NODE_ONLY ? { path: key, namespace: 'edge-stub', pluginData: dirname(resolve(SRC, key)) } : undefined;
    });
    build.onLoad({ filter: /.*/, namespace: 'edge-stub' }, (args) => {
      const contents = NODE_ONLY[args.path];
      if (contents === undefined) throw new Error(`no edge stub for ${args.path}`);
      return { contents, loader: 'ts', resolveDir: args.pluginData as string };
    });
  },
};

/**
 * Shared by every build: no chunk listings in the output (errors still
 * print), and source maps with the sources embedded, so a stack frame in
 * src/*.ts (node --enable-source-maps, Vitest, debuggers) shows its line
 * though the package ships no src/; the dist code is not minified, so it
 * stays readable on its own.
 */
const common: Pick<Options, 'silent' | 'sourcemap' | 'esbuildOptions' | 'esbuildPlugins'> = {
  silent: true,
  sourcemap: true,
  esbuildPlugins: [playgroundScript],
  esbuildOptions(options) {
    options.sourcesContent = true;
  },
};

export default defineConfig([
  {
    ...common,
    entry: {
      index: 'src/index.ts',
      transport: 'src/transport.ts',
      diagnostics: 'src/diagnostics.ts',
      stores: 'src/stores.ts',
      receiver: 'src/receiver.ts',
      'testing/index': 'src/testing/index.ts',
      'testing/msw': 'src/testing/msw.ts',
      'redis/index': 'src/redis/index.ts',
      'shard-worker': 'src/gateway/shard-worker.ts',
      'otel/index': 'src/otel/index.ts',
    },
    format: ['esm', 'cjs'],
    dts: false, // declarations come from tsc (tsconfig.types.json): one readable file per source file
    clean: true,
    target: 'node20',
    platform: 'node',
    splitting: true,
    treeshake: true,
    // import.meta.url in the CommonJS build too: the Gateway's worker pool finds shard-worker.js beside itself.
    shims: true,
    // community-chat-sdk/otel must use the application's copy of the API (one global tracer provider), never a bundled one.
    external: ['@opentelemetry/api'],
  },
  {
    // The edge build: ESM, no Node-only module (see NODE_ONLY above); its dependencies stay imports, for the Worker's bundler;
    // built-ins keep their node: prefix, the only spelling workerd's nodejs_compat answers.
    ...common,
    esbuildPlugins: [edgeStubs],
    removeNodeProtocol: false,
    external: [/^node:/],
    entry: { index: 'src/index.ts', transport: 'src/transport.ts', diagnostics: 'src/diagnostics.ts', stores: 'src/stores.ts', receiver: 'src/receiver.ts' },
    outDir: 'dist/edge',
    format: ['esm'],
    clean: false,
    target: 'es2022',
    platform: 'neutral',
    splitting: true,
    treeshake: true,
  },
  {
    // The command-line entries (bins: the emulator, the fleet's status): ESM only, with a shebang.
    ...common,
    entry: { 'testing/cli': 'src/testing/cli.ts', 'redis/cli': 'src/redis/cli.ts' },
    format: ['esm'],
    clean: false,
    target: 'node20',
    platform: 'node',
    splitting: false,
    banner: { js: '#!/usr/bin/env node' },
  },
]);
