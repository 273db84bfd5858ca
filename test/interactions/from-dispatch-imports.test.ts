/**
 * What importing from-dispatch.ts loads, in a fresh process: no zod (the
 * payload's rule and the issues of a refused payload come from
 * payload-check.ts), so a Gateway that sends no request body never loads it.
 */
import { describe, expect, it } from 'vitest';
import { startScript } from '../helpers/index.js';

describe('interactionFromDispatch, imported', () => {
  it('loads no zod: importing it and building or refusing a payload work with zod made unloadable', async () => {
    const probe = await startScript('test/helpers/zod-free-probe.ts');
    const code = await probe.exited;
    expect(code, probe.stderr()).toBe(0);
    // The hook does refuse zod (else this test proves nothing), and from-dispatch did its work without it.
    expect(JSON.parse(probe.stdout().trim())).toEqual({
      hookBites: true,
      kind: 'command',
      issues: [{ path: 'token', message: 'expected a non-empty string, received nothing' }],
    });
  });
});
