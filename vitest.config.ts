import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { testFilesByProject } from './test/projects.js';

const source = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

// Three projects, each file in one by what it starts (test/projects.ts):
// `npm run test:unit` runs `unit` alone, `vitest run` (and `npm test`) all three.
const files = testFilesByProject(source('.'));

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
      { find: /^community-chat-sdk\/diagnostics$/, replacement: source('./src/diagnostics.ts') },
      { find: /^community-chat-sdk\/stores$/, replacement: source('./src/stores.ts') },
      { find: /^community-chat-sdk\/receiver$/, replacement: source('./src/receiver.ts') },
    ],
  },
  test: {
    projects: (['unit', 'unit-shared', 'integration', 'multi-process'] as const).map((name) => ({
      extends: true as const,
      // The unit files share no process-wide state a thread could not hold: worker threads start faster than forked
      // processes (measured on 2 busy cores: 131 s against 180 s, 69 s against 88 s of CPU). Those that leave no state in a
      // module (`unit-shared`: see test/projects.ts) also share one module graph per thread instead of importing the SDK afresh
      // for each file, which cost more than their tests.
      test: {
        name,
        include: files[name],
        ...(name === 'unit' || name === 'unit-shared' ? { pool: 'threads' as const } : {}),
        ...(name === 'unit-shared' ? { isolate: false } : {}),
      },
    })),
    environment: 'node',
    testTimeout: 15_000,
    hookTimeout: 15_000,
    restoreMocks: true,
    // The JSON report feeds the one-line summary that `npm test` prints last.
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
    unstubGlobals: true,
  },
});
