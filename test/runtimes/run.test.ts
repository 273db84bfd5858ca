import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const RUN = fileURLToPath(new URL('./run.mjs', import.meta.url));

/** Runs the runtimes runner with `args`; resolves with its exit code and output (it refuses a bad filter before loading any scenario, so no build is needed). */
function runRunner(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [RUN, ...args], { encoding: 'utf8', timeout: 10_000 }, (_error, stdout, stderr) =>
      resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
}

describe('test/runtimes/run.mjs', () => {
  it('fails, naming the runtimes it knows, when its filter names a runtime it does not have', async () => {
    for (const args of [['nosuch'], ['node', 'nodejs']]) {
      const { code, stdout, stderr } = await runRunner(args);
      expect(code, `exit code of run.mjs ${args.join(' ')} (stdout: ${stdout})`).toBe(1);
      expect(stderr).toMatch(/no runtime named (nosuch|nodejs) \(known: node, bun, deno, workerd\); nothing was run/);
      expect(stdout, 'scenarios run despite the bad filter').toBe('');
    }
  });
});
