#!/usr/bin/env node
/**
 * The mutation measure (issue 31): puts each deliberate bug of `test/mutations/catalogue.mjs` into the code, one at a time,
 * runs its area's fast tests (a fixed list of files, under a minute), records whether they went red and how long that took,
 * and puts the code back. Prints a table and the catch rate per area.
 *
 *   npm run mutate                      every area
 *   npm run mutate -- --area worker     one area (repeat or comma-separate for more)
 *   npm run mutate -- --id fleet-floor  one mutation (repeat or comma-separate for more)
 *   npm run mutate -- --list            the catalogue, nothing run
 *   --no-baseline     skip the unmutated run of each area (it must pass, or the area's results mean nothing)
 *   --timeout <ms>    the most one run may take (default 150000); a run past it is killed and counted as caught (timeout)
 *   --json <path>     where the results go (default test-results/mutations.json)
 *   --fail-under <r>  exit 1 when the overall catch rate is below r (0 to 1)
 *   --exclude <p>     leave out the test files whose path starts with p (repeat or comma-separate), e.g. to measure the
 *                     suite without `test/mutations/` (the tests written for the survivors): the "before" figure
 *
 * Safety: a mutation is applied to the file in place and the original text written back in `finally` (and on SIGINT or
 * SIGTERM); at the end every file touched is compared with its original text and, when it was clean in git before the run,
 * checked with `git diff --quiet`. A snippet no longer found (the code moved on) is reported "stale", not an error; one
 * found more than once is "ambiguous" (made unique in the catalogue, never applied at a guess).
 *
 * Run it with `nice -n 10` on a shared machine.
 */

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AREAS, MUTATIONS } from '../test/mutations/catalogue.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function parseArgs(argv) {
  const options = {
    areas: [],
    ids: [],
    list: false,
    baseline: true,
    timeoutMs: 150_000,
    json: 'test-results/mutations.json',
    failUnder: undefined,
    exclude: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      return next;
    };
    if (arg === '--area') options.areas.push(...value().split(','));
    else if (arg === '--id') options.ids.push(...value().split(','));
    else if (arg === '--list') options.list = true;
    else if (arg === '--no-baseline') options.baseline = false;
    else if (arg === '--timeout') options.timeoutMs = Number(value());
    else if (arg === '--json') options.json = value();
    else if (arg === '--fail-under') options.failUnder = Number(value());
    else if (arg === '--exclude') options.exclude.push(...value().split(','));
    else throw new Error(`unknown argument ${arg} (see the header of scripts/mutate.mjs)`);
  }
  for (const area of options.areas) if (!(area in AREAS)) throw new Error(`unknown area ${area}: one of ${Object.keys(AREAS).join(', ')}`);
  const known = new Set(MUTATIONS.map((m) => m.id));
  for (const id of options.ids) if (!known.has(id)) throw new Error(`unknown mutation ${id}`);
  return options;
}

/** Every file's original text, by path, for as long as a mutation may be in it. */
const originals = new Map();
/** The file holding a mutation right now, if any. */
let applied;

function restore() {
  if (applied === undefined) return;
  writeFileSync(join(root, applied), originals.get(applied));
  applied = undefined;
}

/** The vitest run under way (its own process group), if any. */
let running;

function killRunning() {
  try {
    if (running !== undefined) process.kill(-running.pid, 'SIGKILL');
  } catch {}
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    killRunning();
    restore();
    process.exit(130);
  });
}

function occurrences(text, snippet) {
  let count = 0;
  for (let at = text.indexOf(snippet); at >= 0; at = text.indexOf(snippet, at + 1)) count++;
  return count;
}

/** The test files of a mutation (its own, or its area's) that exist: a run with none would "fail" and count as caught. */
function testsOf(mutation, exclude) {
  return (mutation.tests ?? AREAS[mutation.area].tests).filter((file) => existsSync(join(root, file)) && !exclude.some((prefix) => file.startsWith(prefix)));
}

/** Runs vitest on `files`, stopping at the first failure; resolves `{ passed, timedOut, ms, failure }`. */
function runTests(files, timeoutMs) {
  if (files.length === 0) throw new Error('no test file to run');
  return new Promise((resolve) => {
    const started = performance.now();
    const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
    const child = spawn(process.execPath, [vitest, 'run', '--bail=1', '--reporter=dot', ...files], {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', CI: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    running = child;
    let output = '';
    const keep = (chunk) => {
      output = (output + chunk.toString()).slice(-200_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killRunning();
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      running = undefined;
      const failure = output
        .split('\n')
        .map((line) => line.trim())
        .find((line) => /^(FAIL|×|✗)\s/.test(line));
      resolve({ passed: code === 0 && !timedOut, timedOut, ms: performance.now() - started, failure: failure?.replace(/^(FAIL|×|✗)\s+/, ''), output });
    });
  });
}

function gitClean(file) {
  try {
    execFileSync('git', ['diff', '--quiet', '--', file], { cwd: root });
    return true;
  } catch {
    return false;
  }
}

function pad(text, width) {
  const s = String(text);
  return s.length >= width ? `${s.slice(0, width - 1)}…` : s + ' '.repeat(width - s.length);
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  let selected = MUTATIONS.filter((m) => options.areas.length === 0 || options.areas.includes(m.area));
  if (options.ids.length > 0) selected = selected.filter((m) => options.ids.includes(m.id));
  if (options.list) {
    for (const m of selected) console.log(`${pad(m.id, 34)} ${pad(m.area, 10)} ${m.file}: ${m.description}`);
    console.log(`${selected.length} mutations`);
    return 0;
  }
  const cleanBefore = new Map();
  for (const m of selected) if (!cleanBefore.has(m.file)) cleanBefore.set(m.file, gitClean(m.file));

  const areas = [...new Set(selected.map((m) => m.area))];
  const baseline = {};
  if (options.baseline) {
    for (const area of areas) {
      const run = await runTests(testsOf({ area }, options.exclude), options.timeoutMs);
      baseline[area] = { passed: run.passed, seconds: run.ms / 1000 };
      console.log(`baseline ${area}: ${run.passed ? 'green' : 'RED'} in ${(run.ms / 1000).toFixed(1)} s`);
      if (!run.passed) {
        console.error(run.output.slice(-4000));
        console.error(`the unmutated fast tests of ${area} fail (${run.failure ?? 'see above'}): fix them before measuring`);
        return 1;
      }
    }
  }

  const results = [];
  for (const m of selected) {
    const text = readFileSync(join(root, m.file), 'utf8');
    const found = occurrences(text, m.find);
    const tests = testsOf(m, options.exclude);
    if (tests.length === 0) {
      results.push({ ...m, result: 'SURVIVED', seconds: 0, failure: 'no test file of its list exists' });
      console.log(`${pad(m.id, 34)} SURVIVED (no test file of its list exists)`);
      continue;
    }
    if (found !== 1) {
      results.push({ ...m, result: found === 0 ? 'stale' : 'ambiguous', seconds: 0 });
      console.log(`${pad(m.id, 34)} ${found === 0 ? 'stale (snippet not found)' : `ambiguous (snippet found ${found} times)`}`);
      continue;
    }
    originals.set(m.file, text);
    let run;
    try {
      applied = m.file;
      writeFileSync(
        join(root, m.file),
        text.replace(m.find, () => m.replace),
      );
      run = await runTests(tests, options.timeoutMs);
    } finally {
      restore();
    }
    const result = run.passed ? 'SURVIVED' : run.timedOut ? 'caught (timeout)' : 'caught';
    results.push({ ...m, result, seconds: run.ms / 1000, failure: run.failure });
    console.log(`${pad(m.id, 34)} ${pad(result, 17)} ${(run.ms / 1000).toFixed(1).padStart(6)} s  ${run.failure ?? ''}`);
  }

  // Nothing may stay mutated: every file touched is back to its text, and clean in git if it was before.
  const dirty = [];
  for (const [file, text] of originals) {
    if (readFileSync(join(root, file), 'utf8') !== text || (cleanBefore.get(file) && !gitClean(file))) dirty.push(file);
  }

  console.log(`\n${[pad('mutation', 34), pad('area', 10), pad('result', 17), pad('s', 7), 'bug'].join(' ')}`);
  for (const r of results) console.log([pad(r.id, 34), pad(r.area, 10), pad(r.result, 17), pad(r.seconds.toFixed(1), 7), r.description].join(' '));
  console.log('\ncatch rate per area (stale and ambiguous ones not counted):');
  let caughtAll = 0;
  let countedAll = 0;
  const summary = {};
  for (const area of areas) {
    const counted = results.filter((r) => r.area === area && (r.result === 'SURVIVED' || r.result.startsWith('caught')));
    const caught = counted.filter((r) => r.result.startsWith('caught')).length;
    const stale = results.filter((r) => r.area === area && (r.result === 'stale' || r.result === 'ambiguous')).length;
    const slowest = Math.max(0, ...counted.map((r) => r.seconds));
    caughtAll += caught;
    countedAll += counted.length;
    summary[area] = { caught, counted: counted.length, stale, rate: counted.length === 0 ? null : caught / counted.length };
    const rate = counted.length === 0 ? '-' : `${((100 * caught) / counted.length).toFixed(0)}%`;
    console.log(
      `  ${pad(AREAS[area].title, 44)} ${String(caught).padStart(3)}/${String(counted.length).padEnd(3)} ${rate.padStart(5)}` +
        `${stale > 0 ? `  (${stale} stale)` : ''}  baseline ${baseline[area]?.seconds.toFixed(1) ?? '-'} s, slowest run ${slowest.toFixed(1)} s`,
    );
  }
  const overall = countedAll === 0 ? 0 : caughtAll / countedAll;
  console.log(`  ${pad('all', 44)} ${String(caughtAll).padStart(3)}/${String(countedAll).padEnd(3)} ${`${(100 * overall).toFixed(0)}%`.padStart(5)}`);
  const survivors = results.filter((r) => r.result === 'SURVIVED');
  if (survivors.length > 0) console.log(`\nsurvivors: ${survivors.map((r) => r.id).join(', ')}`);

  const out = join(root, options.json);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify({ baseline, summary, overall, results: results.map(({ find, replace, ...r }) => r) }, null, 2)}\n`);

  if (dirty.length > 0) {
    console.error(`\nA MUTATION WAS LEFT IN ${dirty.join(', ')}: restore them with git checkout`);
    return 2;
  }
  if (options.failUnder !== undefined && overall < options.failUnder) return 1;
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    restore();
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  },
);
