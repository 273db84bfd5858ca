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
    // ESM-only dependencies must be bundled into the CJS build, or require() breaks at run time.
    noExternal: ['p-queue'],
    // community-chat-sdk/otel must use the application's copy of the API (one global tracer provider), never a bundled one.
    external: ['@opentelemetry/api'],
  },
  {
    // The emulator's command-line entry (a bin): ESM only, with a shebang.
    ...common,
    entry: { 'testing/cli': 'src/testing/cli.ts' },
    format: ['esm'],
    clean: false,
    target: 'node20',
    platform: 'node',
    splitting: false,
    noExternal: ['p-queue'],
    banner: { js: '#!/usr/bin/env node' },
  },
]);
