// Prints one closing line for the whole `npm test` run: the vitest totals, plus the runtimes
// scenarios (test/runtimes/run.mjs) when they ran.
import { existsSync, readFileSync } from 'node:fs';

const read = (name) => JSON.parse(readFileSync(new URL(`../test-results/${name}`, import.meta.url), 'utf8'));
const report = read('vitest.json');
const runtimes = existsSync(new URL('../test-results/runtimes.json', import.meta.url)) ? read('runtimes.json') : { passed: 0, failed: 0, skipped: 0 };
const passed = report.numPassedTests + runtimes.passed;
const failed = report.numFailedTests + runtimes.failed;
const skipped = report.numPendingTests + report.numTodoTests + runtimes.skipped;
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exitCode = failed === 0 && report.success ? 0 : 1;
