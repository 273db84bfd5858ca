import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: { index: 'src/index.ts', transport: 'src/transport.ts', 'testing/index': 'src/testing/index.ts', 'testing/msw': 'src/testing/msw.ts', 'redis/index': 'src/redis/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
    platform: 'node',
    splitting: true,
    treeshake: true,
    // ESM-only dependencies must be bundled into the CJS build, or require() breaks at run time.
    noExternal: ['p-queue'],
  },
  {
    // The emulator's command-line entry (a bin): ESM only, with a shebang.
    entry: { 'testing/cli': 'src/testing/cli.ts' },
    format: ['esm'],
    sourcemap: true,
    clean: false,
    target: 'node20',
    platform: 'node',
    splitting: false,
    noExternal: ['p-queue'],
    banner: { js: '#!/usr/bin/env node' },
  },
]);
