import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 15_000,
    hookTimeout: 15_000,
    restoreMocks: true,
    // The JSON report feeds the one-line summary that `npm test` prints last.
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
    unstubGlobals: true,
  },
});
