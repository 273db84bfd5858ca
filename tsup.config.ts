import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts' },
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
});
