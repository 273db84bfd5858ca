/**
 * A real Redis for the tests: `redis-server` (Debian's package) on a free
 * loopback port, persistence off, stopped by its pid.
 *
 * Without `redis-server` on PATH the Redis suites skip with one loud line,
 * except under `CI=true`, where a missing binary fails the run.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type RedisClientType } from 'redis';
import { afterAll, beforeAll, describe } from 'vitest';
import { until } from './until.js';

/** The path of `redis-server`, or `undefined` when it is not installed. */
export function findRedisServer(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  const path = found.stdout.trim();
  return found.status === 0 && path !== '' ? path : undefined;
}

const binary = findRedisServer();

/** Whether no other test file of this run has printed the skip line yet (the files run in workers of one vitest process). */
function firstInRun(): boolean {
  try {
    writeFileSync(join(tmpdir(), `ccsdk-redis-skip-${process.ppid}`), '', { flag: 'wx' });
    return true;
  } catch {
    return false;
  }
}
let warned = false;

/**
 * `describe` when `redis-server` exists; otherwise `describe.skip` with one
 * loud line (or a failure under `CI=true`).
 */
export function describeWithRedis(name: string, body: () => void): void {
  if (binary !== undefined) {
    describe(name, body);
    return;
  }
  if (process.env.CI === 'true') {
    describe(name, () => {
      throw new Error('redis-server is not on PATH and CI=true: install it with apt-get install -y redis-server');
    });
    return;
  }
  if (!warned && firstInRun()) {
    warned = true;
    console.warn('\n!!! SKIPPING the Redis suites: redis-server is not on PATH. Install it with: apt-get install -y redis-server\n');
  }
  describe.skip(name, body);
}

/** A running `redis-server`. */
export interface RunningRedis {
  /** `redis://127.0.0.1:<port>`. */
  url: string;
  port: number;
  pid: number;
  /** Stops the server by its pid (SIGTERM, then SIGKILL) and waits for it to exit. */
  stop(): Promise<void>;
}

/** A free TCP port on the loopback interface. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Whether Redis answers PING on the port. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    socket.setTimeout(500, () => socket.destroy());
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) socket.end();
    });
    socket.on('close', () => resolve(reply.startsWith('+PONG')));
    socket.on('error', () => undefined);
  });
}

/** Starts `redis-server` on a free loopback port (or `port`), with persistence off unless `appendOnlyDir` is given, and waits until it accepts connections. */
export async function startRedisServer(options: { port?: number; appendOnlyDir?: string } = {}): Promise<RunningRedis> {
  if (binary === undefined) throw new Error('redis-server is not on PATH: apt-get install -y redis-server');
  const port = options.port ?? (await freePort());
  // With appendOnlyDir, writes are kept in an AOF there (fsync every write), so a restart on the same port and directory keeps them.
  const persistence =
    options.appendOnlyDir === undefined ? ['--appendonly', 'no'] : ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', options.appendOnlyDir];
  const child: ChildProcess = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--protected-mode', 'no', '--loglevel', 'warning'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // A process starting says nothing when it is ready: the one poll, PING until it answers.
  try {
    await until(
      async () => {
        if (child.exitCode !== null) throw new Error(`redis-server exited at once: ${output}`);
        return ping(port);
      },
      { timeoutMs: 10_000, what: () => `redis-server answering PING on port ${port} (its output: ${output})` },
    );
  } catch (error) {
    if (child.exitCode === null) child.kill('SIGKILL');
    throw error;
  }
  const pid = child.pid as number;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid,
    async stop() {
      if (child.exitCode !== null) return;
      process.kill(pid, 'SIGTERM');
      const timer = setTimeout(() => {
        if (child.exitCode === null) process.kill(pid, 'SIGKILL');
      }, 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A `redis-server` and a connected client, for a test file (call inside `describeWithRedis`). */
export interface RedisForTests {
  /** The server. */
  readonly server: RunningRedis;
  /** A connected node-redis client. */
  readonly connection: RedisClientType;
}

/** Starts a `redis-server` and connects a client before the file's tests; closes both after them. */
export function useRedis(): RedisForTests {
  let running: { server: RunningRedis; connection: RedisClientType } | undefined;
  beforeAll(async () => {
    const server = await startRedisServer();
    const connection: RedisClientType = createClient({ url: server.url });
    connection.on('error', () => undefined);
    await connection.connect();
    running = { server, connection };
  });
  afterAll(async () => {
    await running?.connection.close();
    await running?.server.stop();
  });
  const started = () => {
    if (running === undefined) throw new Error('useRedis: read it inside a test or a hook');
    return running;
  };
  return {
    get server() {
      return started().server;
    },
    get connection() {
      return started().connection;
    },
  };
}

/** How many times Redis ran the command `name` (lower case) since it started, from `INFO commandstats` (commands run by scripts included). */
export async function commandCalls(connection: Pick<RedisClientType, 'sendCommand'>, name: string): Promise<number> {
  const info = String(await connection.sendCommand(['INFO', 'commandstats']));
  const match = new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(info);
  return Number(match?.[1] ?? 0);
}
