/**
 * The `community-chat-fleet` command line: a URL that may carry a password is never echoed, REDIS_URL stands in for
 * `--redis`, and one deadline bounds the whole run against a Redis that accepts connections but never answers.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { describeWithRedis, useRedis } from '../helpers/redis-server.js';

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs the CLI from source; settles with its exit code and output (never rejects). */
function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<Outcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/redis/cli.ts', ...args],
      { timeout: 60_000, env: { ...process.env, REDIS_URL: undefined, ...env } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr, ms: Date.now() - started });
      },
    );
  });
}

/** The JSON error a `--json` run printed on stdout (the whole of stdout: one object), with its exit code. */
function jsonError(out: Outcome): { code: number; error: { code: string; message: string } } {
  expect(out.stderr, 'nothing on stderr with --json').toBe('');
  const parsed = JSON.parse(out.stdout) as { error: { code: string; message: string } };
  expect(Object.keys(parsed)).toEqual(['error']);
  expect(Object.keys(parsed.error).sort()).toEqual(['code', 'message']);
  return { code: out.code, error: parsed.error };
}

describe('community-chat-fleet command line', () => {
  it('with --json, a bad command line, URL or option is a JSON error on stdout with exit 2, never echoing the URL', async () => {
    const url = 'http://user:s3cretpw@localhost:1';
    expect(jsonError(await cli(['status', '--redis', url, '--json']))).toEqual({
      code: 2,
      error: { code: 'invalid-url', message: 'invalid --redis URL (it must be redis://… or rediss://…)' },
    });
    expect(jsonError(await cli(['status', '--json'])), 'no --redis').toMatchObject({ code: 2, error: { code: 'usage' } });
    expect(jsonError(await cli(['status', '--json', '--colour'])), 'an unknown option').toMatchObject({ code: 2, error: { code: 'usage' } });
    const timeout = jsonError(await cli(['status', '--redis', 'redis://127.0.0.1:1', '--timeout-ms', 'soon', '--json']));
    expect(timeout).toMatchObject({ code: 2, error: { code: 'invalid-option', message: expect.stringContaining('--timeout-ms') } });
    const help = await cli(['--help']);
    expect(help.stdout).toContain('{"error": {"code": "...", "message": "..."}}');
  });

  it('with --json, Redis refusing the connection is a JSON error with exit 1, without the URL or its password', async () => {
    const url = 'redis://user:s3cretpw@127.0.0.1:1';
    const out = await cli(['status', '--redis', url, '--timeout-ms', '20000', '--json']);
    const { code, error } = jsonError(out);
    expect(code).toBe(1);
    expect(error.code).toBe('redis-failed');
    expect(error.message).toMatch(/ECONNREFUSED|connect/);
    expect(out.stdout).not.toContain('s3cretpw');
    expect(out.stdout).not.toContain(url);
  });

  it.each(['redis://user:s3cretpw@ho st:1', 'http://user:s3cretpw@localhost:1', 'not a url s3cretpw'])(
    'refuses the URL %s with exit 2 and without echoing it',
    async (url) => {
      for (const run of [() => cli(['status', '--redis', url]), () => cli(['status'], { REDIS_URL: url })]) {
        const out = await run();
        expect(out.code, `exit code; stderr: ${out.stderr}`).toBe(2);
        expect(out.stderr).toContain('invalid --redis URL');
        expect(out.stderr + out.stdout).not.toContain('s3cretpw');
      }
    },
  );

  it('refuses a --timeout-ms out of bounds with exit 2 naming it', async () => {
    for (const value of ['0', '-5', 'soon', '99999999999']) {
      const out = await cli(['status', '--redis', 'redis://127.0.0.1:1', '--timeout-ms', value]);
      expect(out.code, `--timeout-ms ${value}: ${out.stderr}`).toBe(2);
      expect(out.stderr).toContain('--timeout-ms');
    }
  });

  describe('against a server that accepts the connection and never answers', () => {
    let server: Server | undefined;
    const sockets: Socket[] = [];
    afterEach(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server?.close(resolve));
    });

    it('gives up at --timeout-ms with exit 1 and a readable message, not waiting for the replies (destroy, not close)', async () => {
      server = createServer((socket) => {
        sockets.push(socket);
        socket.on('data', () => undefined);
      });
      await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('no port');
      const out = await cli(['status', '--redis', `redis://user:s3cretpw@127.0.0.1:${address.port}`, '--timeout-ms', '800']);
      expect(out.code, `exit code; stderr: ${out.stderr}`).toBe(1);
      expect(out.stderr).toContain('did not answer within 800 ms');
      expect(out.stderr).not.toContain('s3cretpw');
      expect(sockets.length, 'the CLI connected to the silent server').toBeGreaterThan(0);
      const json = await cli(['status', '--redis', `redis://user:s3cretpw@127.0.0.1:${address.port}`, '--timeout-ms', '800', '--json']);
      expect(jsonError(json)).toEqual({ code: 1, error: { code: 'timeout', message: 'Redis did not answer within 800 ms (--timeout-ms)' } });
    });
  });
});

describeWithRedis('community-chat-fleet against Redis', () => {
  const redis = useRedis();

  it('reads the URL from REDIS_URL when --redis is absent', async () => {
    const out = await cli(['status', '--key', 'cli-env'], { REDIS_URL: redis.server.url });
    expect(out.code, `exit code; stderr: ${out.stderr}`).toBe(0);
    expect(out.stdout).toContain('fleet {cli-env}');
  });

  it("with --json, a key that is not one hash tag's name is a JSON error with exit 1", async () => {
    const out = await cli(['status', '--key', 'a{b}', '--json'], { REDIS_URL: redis.server.url });
    expect(jsonError(out)).toMatchObject({ code: 1, error: { code: 'invalid-argument', message: expect.stringContaining('key') } });
    expect(out.stdout).not.toContain(redis.server.url);
  });
});
