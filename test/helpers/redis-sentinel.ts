/**
 * A real Sentinel-managed Redis for the tests: a master (`startRedisServer`)
 * and one Sentinel (`redis-server --sentinel`, Debian's package) watching it
 * as `mymaster`, on free loopback ports; stopped by their pids. Suites using
 * it are wrapped in `describeWithRedis`.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { until } from './until.js';
import { findRedisServer, freePort, startRedisServer } from './redis-server.js';

const run = promisify(execFile);

/** A running master and its Sentinel. */
export interface RunningSentinel {
  /** The master's name, as Sentinel knows it. */
  name: string;
  /** The Sentinel's address, for `createSentinel({ sentinelRootNodes })`. */
  sentinel: { host: string; port: number };
  /** Stops the Sentinel and the master. */
  stop(): Promise<void>;
}

/** Starts a master and a Sentinel that watches it, and waits until the Sentinel names the master. */
export async function startRedisSentinel(): Promise<RunningSentinel> {
  const binary = findRedisServer();
  if (binary === undefined) throw new Error('redis-server is not on PATH: apt-get install -y redis-server');
  const master = await startRedisServer();
  const dir = mkdtempSync(join(tmpdir(), 'ccsdk-sentinel-'));
  const port = await freePort();
  const config = join(dir, 'sentinel.conf');
  // Sentinel rewrites its configuration file, so it gets a file of its own.
  writeFileSync(config, `port ${port}\nbind 127.0.0.1\nsentinel monitor mymaster 127.0.0.1 ${master.port} 1\nsentinel down-after-milliseconds mymaster 1000\n`);
  const child = spawn(binary, [config, '--sentinel', '--loglevel', 'warning'], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
    await master.stop();
  };
  // The Sentinel says nothing when it is ready: asked, with the tests' one poll.
  const names = async () => {
    const answer = await run('redis-cli', ['-p', String(port), 'SENTINEL', 'get-master-addr-by-name', 'mymaster'], { encoding: 'utf8' }).catch(() => ({
      stdout: '',
    }));
    return answer.stdout.includes(String(master.port));
  };
  try {
    await until(names, { timeoutMs: 10_000, what: 'the Sentinel naming its master' });
  } catch (error) {
    await stop();
    throw error;
  }
  return { name: 'mymaster', sentinel: { host: '127.0.0.1', port }, stop };
}
