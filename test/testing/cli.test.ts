/**
 * The emulator's command line: arguments read strictly (unknown flags, a flag
 * without its value and a port that is not a plain decimal number are usage
 * errors, exit 2), and a port in use or a bad host is one readable line
 * (exit 1), never a stack trace. Run as a real child process.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CliUsageError, readCliArgs } from '../../src/testing/cli-args.js';
import { startScript } from '../helpers/index.js';

function usageError(args: string[]): string {
  try {
    readCliArgs(args);
  } catch (error) {
    if (error instanceof CliUsageError) return error.message;
    throw error;
  }
  throw new Error(`no usage error for ${args.join(' ')}`);
}

describe('readCliArgs', () => {
  it('reads the flags, with their defaults', () => {
    expect(readCliArgs([])).toEqual({ help: false, port: 8080, host: '127.0.0.1', seed: undefined, playground: true });
    expect(readCliArgs(['--port', '0', '--host=::1', '--seed', '7', '--no-playground'])).toEqual({
      help: false,
      port: 0,
      host: '::1',
      seed: 7,
      playground: false,
    });
    expect(readCliArgs(['-h']).help).toBe(true);
  });

  it('refuses unknown flags, a flag without its value, and ports that are not plain decimal numbers from 0 to 65535', () => {
    expect(usageError(['--prot', '9000'])).toMatch(/--prot/);
    expect(usageError(['--port'])).toMatch(/--port/);
    expect(usageError(['--port=0x1F90'])).toMatch(/--port must be a whole decimal number \(got "0x1F90"\)/);
    expect(usageError(['--port', '1e3'])).toMatch(/--port/);
    expect(usageError(['--port', '-1'])).toMatch(/--port/);
    expect(usageError(['--port', '70000'])).toMatch(/0 to 65535/);
    expect(usageError(['--seed', 'abc'])).toMatch(/--seed/);
    expect(usageError(['stray'])).toMatch(/stray|positional/i);
  });
});

describe('community-chat-emulator, as a child process', () => {
  it('exits 2 with a readable usage line for a bad flag, and never starts', async () => {
    const cli = await startScript('src/testing/cli.ts', { args: ['--port'] });
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toMatch(/^community-chat-emulator: .*--port.*\nRun with --help/);
    expect(cli.stdout()).toBe('');
  }, 30_000);

  it('exits 1 with one readable line, no stack trace, when the port is in use or the host is not this machine', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const busy = await startScript('src/testing/cli.ts', { args: ['--port', String(port)] });
      expect(await busy.exited).toBe(1);
      expect(busy.stderr()).toBe(
        `community-chat-emulator: cannot start: port ${port} is already in use on 127.0.0.1 (pick another with --port, or --port 0 for any free one)\n`,
      );
      const elsewhere = await startScript('src/testing/cli.ts', { args: ['--port', '0', '--host', '203.0.113.7'] });
      expect(await elsewhere.exited).toBe(1);
      expect(elsewhere.stderr()).toMatch(/^community-chat-emulator: cannot start: host "203\.0\.113\.7" is not an address of this machine\n$/);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  }, 30_000);
});
