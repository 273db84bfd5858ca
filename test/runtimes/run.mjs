// The runtimes step of `npm test` (after the build): the same bot on every runtime the SDK supports,
// against the emulator running here under Node. Node (this one), Bun and Deno run test/runtimes/bot.mjs
// over the Gateway; workerd runs examples/cloudflare-worker through miniflare. Bun, Deno and workerd
// come from the npm registry as dev dependencies. A missing runtime fails the run under CI=true and is
// skipped with one line otherwise. Writes its counts to test-results/runtimes.json for test/summary.mjs.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

// The scenarios load the built package (dist/): imported when run, so a wrong filter is told without a build.
const gatewayScenario = async (...args) => (await import('./gateway-scenario.mjs')).gatewayScenario(...args);
const workerdScenario = async (...args) => (await import('./workerd-scenario.mjs')).workerdScenario(...args);

const root = fileURLToPath(new URL('../../', import.meta.url));
const ci = ['true', '1'].includes(String(process.env.CI).toLowerCase());
const bin = (name) => `${root}node_modules/.bin/${name}`;
const require = createRequire(import.meta.url);

/** The workerd binary miniflare runs, if installed. */
function workerdBinary() {
  try {
    return require('workerd').default ?? require('workerd');
  } catch {
    return undefined;
  }
}

/** Each runtime: its binary, how to ask its version, and its scenario. */
const runtimes = [
  { name: `node`, binary: process.execPath, version: () => process.version, run: () => gatewayScenario('node', process.execPath, []) },
  {
    name: 'bun',
    binary: bin('bun'),
    version: () => execFileSync(bin('bun'), ['--version'], { encoding: 'utf8' }).trim(),
    run: () => gatewayScenario('bun', bin('bun'), []),
  },
  {
    name: 'deno',
    binary: bin('deno'),
    // Its first line is "deno 2.9.6 (stable, release, x86_64-unknown-linux-gnu)": the version alone is the second word.
    version: () => execFileSync(bin('deno'), ['--version'], { encoding: 'utf8' }).split(/\s+/)[1],
    // -A: the bot reads its environment, connects to the emulator and reads the package; no prompt may wait for a terminal.
    run: () => gatewayScenario('deno', bin('deno'), ['run', '-A', '--quiet']),
  },
  {
    name: 'workerd',
    binary: workerdBinary(),
    version: () =>
      execFileSync(workerdBinary(), ['--version'], { encoding: 'utf8' })
        .trim()
        .replace(/^workerd /, ''),
    run: () => workerdScenario('workerd'),
  },
];

const only = process.argv.slice(2);
const unknown = only.filter((name) => !runtimes.some((runtime) => runtime.name === name));
if (unknown.length > 0) {
  // A filter that names no runtime would run nothing and pass: it fails instead, saying what it knows.
  console.error(`runtimes: no runtime named ${unknown.join(', ')} (known: ${runtimes.map(({ name }) => name).join(', ')}); nothing was run`);
  process.exitCode = 1;
} else {
  await runAll(runtimes.filter(({ name }) => only.length === 0 || only.includes(name)));
}

/** Runs each runtime's scenario in turn, prints one line each, and writes the counts for test/summary.mjs. */
async function runAll(selected) {
  const results = { passed: 0, failed: 0, skipped: 0, lines: [] };
  for (const runtime of selected) {
    let version;
    try {
      if (!runtime.binary || !existsSync(runtime.binary)) throw new Error('not installed');
      version = runtime.version();
    } catch (error) {
      const why = `${runtime.name}: its binary is missing or does not start (${error.message}); npm ci installs it from the registry`;
      if (ci) {
        results.failed++;
        results.lines.push(`FAIL ${why}`);
      } else {
        results.skipped++;
        results.lines.push(`SKIP ${why}`);
      }
      console.log(results.lines.at(-1));
      continue;
    }
    try {
      const account = await runtime.run();
      results.passed++;
      results.lines.push(`ok   ${runtime.name} ${version}: ${account}`);
    } catch (error) {
      results.failed++;
      results.lines.push(`FAIL ${runtime.name} ${version}: ${error.message}`);
    }
    console.log(results.lines.at(-1));
  }
  mkdirSync(`${root}test-results`, { recursive: true });
  writeFileSync(`${root}test-results/runtimes.json`, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`runtimes: ${results.passed} passed, ${results.failed} failed${results.skipped ? `, ${results.skipped} skipped` : ''}`);
  process.exitCode = results.failed === 0 ? 0 : 1;
}
