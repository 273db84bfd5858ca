/**
 * Which project of the suite a test file belongs to, told by what it starts:
 * `multi-process` when it starts other processes, worker threads or a browser
 * (scripts, shard workers, runtimes, chromium), `integration` when it starts a
 * real Redis, runs the emulator end to end (`test/integration/`) or is one of
 * the few long in-process scenarios named below, `unit` otherwise. One rule,
 * read by `vitest.config.ts`, so a new test lands in its project by what it
 * does rather than by a list to keep.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The projects of the suite, fastest first (`npm run test:unit` runs `unit` and `unit-shared`). */
export type Project = 'unit-shared' | 'unit' | 'integration' | 'multi-process';

/** What a multi-process test file uses: a script in a child process, a runtime, a browser. */
const MULTI_PROCESS = /\bstartScript\(|node:child_process|\bchromium\b|playwright-core|runtimes\/run\.mjs/;
/** What an integration test file uses: a real Redis (one node, a cluster, Sentinel, or the store contracts over them). */
const INTEGRATION = /helpers\/redis-(?:server|cluster|sentinel)\.js|\/redis-contracts\.js/;

/**
 * What makes a unit test file unfit to share one module graph and one thread with the files before it: state it leaves in a
 * module or the process that a later file would meet (a mocked module, fake timers: a module's interval created under them
 * never fires after; MSW, whose cookie store keeps a response's `Set-Cookie` for the next request; stubbed globals or
 * environment), or a count it asserts on that another file would add to (the thread's timers, unhandled rejections, the heap). Files with none of
 * these are `unit-shared`.
 */
const LEAVES_STATE =
  /\bvi\.(?:mock|doMock|useFakeTimers|stubGlobal|stubEnv)\(|useMswRecorder|from 'msw|\bactiveTimers\(|getActiveResourcesInfo|trackUnhandledRejections|'unhandledRejection'|memoryUsage\(|process\.env\.[A-Z_]+ =|globalThis\.\w+ =/;

/** Suites of Gateways whose shards run in worker threads, started and killed: with the processes. */
const THREADS = new Set([
  'test/gateway/workers.test.ts',
  'test/gateway/worker-crash.test.ts',
  'test/gateway/worker-pool.test.ts',
  'test/gateway/fleet-workers.test.ts',
  'test/gateway/reshard-workers.test.ts',
]);

/**
 * In-process scenarios that run for seconds of real time by design (a fleet of
 * Gateways resharding under traffic, the heap at the secret book's cap): in
 * `integration`, so `npm run test:unit` stays within a minute.
 */
const SCENARIOS = new Set([
  'test/gateway/reshard.test.ts',
  'test/gateway/fleet-reshard.test.ts',
  'test/gateway/fleet-reshard-handoff.test.ts',
  'test/gateway/secrets-memory.test.ts',
]);

/** The project of one test file, from its path (relative to the repository, `/`-separated) and its text. */
export function projectOf(path: string, text: string): Project {
  if (MULTI_PROCESS.test(text) || THREADS.has(path)) return 'multi-process';
  if (INTEGRATION.test(text) || SCENARIOS.has(path) || path.startsWith('test/integration/')) return 'integration';
  return LEAVES_STATE.test(text) ? 'unit' : 'unit-shared';
}

/** Every test file of the suite (`test/**` and `examples/**`), relative to `root`, by project. */
export function testFilesByProject(root: string): Record<Project, string[]> {
  const byProject: Record<Project, string[]> = { 'unit-shared': [], unit: [], integration: [], 'multi-process': [] };
  for (const dir of ['test', 'examples']) {
    for (const entry of readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })) {
      if (!entry.endsWith('.test.ts') || entry.split(/[\\/]/).includes('node_modules')) continue;
      const path = relative(root, join(root, dir, entry))
        .split('\\')
        .join('/');
      byProject[projectOf(path, readFileSync(join(root, path), 'utf8'))].push(path);
    }
  }
  for (const files of Object.values(byProject)) files.sort();
  return byProject;
}
