/**
 * A real Redis Cluster for the tests: three masters (`redis-server
 * --cluster-enabled yes`, Debian's package), with a replica each when asked,
 * on free loopback ports, joined with `redis-cli --cluster create`,
 * persistence off, stopped by their pids. Suites using it are wrapped in
 * `describeWithRedis`, so they skip loudly without `redis-server` (and fail
 * under `CI=true`).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findRedisServer, freePort } from './redis-server.js';
import { until } from './until.js';

const run = promisify(execFile);

/** A running three-master cluster. */
export interface RunningRedisCluster {
  /** Every node's `host:port` (masters first), e.g. for `createCluster({ rootNodes })`. */
  nodes: { host: string; port: number; url: string }[];
  /** The port of the master that holds `key`'s slot now. */
  masterOf(key: string): Promise<number>;
  /**
   * Fails the master of `key`'s slot over to its replica the hard way: the
   * master is paused (SIGSTOP, as a frozen host) until the replica is
   * promoted, then killed. Resolves with the new master's port.
   */
  killMasterOf(key: string): Promise<number>;
  /** Stops every node (SIGTERM, then SIGKILL) and removes their files. */
  stop(): Promise<void>;
}

async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { encoding: 'utf8' });
  return stdout;
}

/**
 * Starts three cluster-enabled masters (and a replica of each with
 * `replicas: 1`), assigns the 16,384 slots among them, and waits for
 * `cluster_state:ok` on each node and for every replica to be in sync.
 */
export async function startRedisCluster(options: { replicas?: 0 | 1 } = {}): Promise<RunningRedisCluster> {
  const binary = findRedisServer();
  if (binary === undefined) throw new Error('redis-server is not on PATH: apt-get install -y redis-server');
  const replicas = options.replicas ?? 0;
  const dir = mkdtempSync(join(tmpdir(), 'ccsdk-cluster-'));
  const ports: number[] = [];
  for (let n = 0; n < 3 * (1 + replicas); n++) ports.push(await freePort());
  const children: ChildProcess[] = ports.map((port) =>
    spawn(
      binary,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(dir, `nodes-${port}.conf`),
        // A master that stops answering is failed over after a second, so the failover test is quick.
        '--cluster-node-timeout',
        '1000',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
        '--protected-mode',
        'no',
        '--loglevel',
        'warning',
      ],
      { stdio: 'ignore' },
    ),
  );
  const byPort = new Map(ports.map((port, index) => [port, children[index] as ChildProcess]));
  const exited = children.map((child) => new Promise<void>((resolve) => child.once('exit', () => resolve())));
  const stop = async () => {
    for (const child of children) if (child.exitCode === null && child.pid !== undefined) child.kill('SIGTERM');
    const timer = setTimeout(() => {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    }, 3000);
    await Promise.all(exited);
    clearTimeout(timer);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports)
      await until(
        () =>
          cli(port, 'PING').then(
            (reply) => reply.trim() === 'PONG',
            () => false,
          ),
        { timeoutMs: 15_000, what: `node ${port} answers PING` },
      );
    await run('redis-cli', ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', String(replicas), '--cluster-yes'], {
      encoding: 'utf8',
    });
    for (const port of ports)
      await until(
        () =>
          cli(port, 'CLUSTER', 'INFO').then(
            (info) => info.includes('cluster_state:ok'),
            () => false,
          ),
        { timeoutMs: 15_000, what: `node ${port} reports cluster_state:ok` },
      );
    if (replicas > 0) {
      const inSync = async () => {
        const roles = await Promise.all(ports.map((port) => cli(port, 'INFO', 'replication')));
        return roles.filter((info) => info.includes('role:slave') && info.includes('master_link_status:up')).length === 3;
      };
      await until(() => inSync().catch(() => false), { timeoutMs: 15_000, what: 'every replica in sync with its master' });
    }
  } catch (error) {
    await stop();
    throw error;
  }
  /** Nodes not stopped or killed: asked about the cluster (a paused node would never answer). */
  const paused = new Set<number>();
  const live = () => ports.find((port) => !paused.has(port) && byPort.get(port)?.exitCode === null) as number;
  const masterOf = async (key: string): Promise<number> => {
    const slot = Number((await cli(live(), 'CLUSTER', 'KEYSLOT', key)).trim());
    for (const line of (await cli(live(), 'CLUSTER', 'NODES')).split('\n')) {
      const [, address, flags, , , , , , ...ranges] = line.split(' ');
      if (!flags?.includes('master') || flags.includes('fail')) continue;
      for (const range of ranges) {
        const [from, to] = range.split('-').map(Number);
        if (from !== undefined && slot >= from && slot <= (to ?? from)) return Number(address?.split(':')[1]?.split('@')[0]);
      }
    }
    throw new Error(`no master serves slot ${slot}`);
  };
  return {
    nodes: ports.map((port) => ({ host: '127.0.0.1', port, url: `redis://127.0.0.1:${port}` })),
    masterOf,
    async killMasterOf(key) {
      const old = await masterOf(key);
      const child = byPort.get(old);
      if (!child?.pid) throw new Error(`no process for port ${old}`);
      paused.add(old);
      process.kill(child.pid, 'SIGSTOP');
      // The cluster says nothing when it promotes a replica: polled.
      const promoted = await until(
        () =>
          masterOf(key).then(
            (port) => (port !== old ? port : undefined),
            () => undefined,
          ),
        {
          timeoutMs: 15_000,
          what: 'a replica promoted',
        },
      );
      child.kill('SIGKILL');
      return promoted;
    },
    stop,
  };
}
