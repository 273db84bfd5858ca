import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  // Examples that a test imports in-process name the package as users do; like
  // tsconfig's `paths`, resolve those names to the sources, so the suite needs
  // no build first (a fresh clone runs the tests before `npm run build`).
  resolve: {
    alias: [
      { find: /^community-chat-sdk$/, replacement: source('./src/index.ts') },
      { find: /^community-chat-sdk\/transport$/, replacement: source('./src/transport.ts') },
      { find: /^community-chat-sdk\/testing$/, replacement: source('./src/testing/index.ts') },
      { find: /^community-chat-sdk\/testing\/msw$/, replacement: source('./src/testing/msw.ts') },
      { find: /^community-chat-sdk\/redis$/, replacement: source('./src/redis/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    environment: 'node',
    testTimeout: 15_000,
    hookTimeout: 15_000,
    restoreMocks: true,
    // The JSON report feeds the one-line summary that `npm test` prints last.
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
    unstubGlobals: true,
  },
});
