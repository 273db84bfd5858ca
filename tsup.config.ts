import { defineConfig, type Options } from 'tsup';

/**
 * Shared by every build: no chunk listings in the output (errors still
 * print), and source maps without the embedded sources. The maps still send
 * stack traces (node --enable-source-maps) and debuggers to the right line
 * of src/*.ts at a fraction of the size; the dist code is not minified, so
 * it stays readable on its own.
 */
const common: Pick<Options, 'silent' | 'sourcemap' | 'esbuildOptions'> = {
  silent: true,
  sourcemap: true,
  esbuildOptions(options) {
    options.sourcesContent = false;
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
