/**
 * The cross-process burst of the Redis tests: 4 bot processes
 * (test/redis/worker.ts), one bot token, one burst each to one route bucket
 * and one webhook, on one Redis node or on a Redis Cluster.
 */
import { startScript, type RunningScript } from '../helpers/index.js';
import type { LimitsServer } from '../helpers/limits-server.js';

/** The bot process the cross-process tests run. */
export const WORKER = 'test/redis/worker.ts';

/** What one process reports. */
export interface BurstResult {
  ok: number;
  failed: string[];
  rateLimited: number;
}

/** The JSON a worker prints on its `result` line. */
export async function resultOf<T>(script: RunningScript, timeoutMs: number): Promise<T> {
  const match = await script.waitForOutput(/result (.*)\n/, timeoutMs);
  return JSON.parse(match[1] as string) as T;
}

/** Where the processes keep their limits: in memory, on one Redis node, or on a cluster (its node URLs). */
export interface BurstStore {
  store: 'redis' | 'memory';
  redisUrl?: string | undefined;
  clusterUrls?: readonly string[] | undefined;
}

/** 4 processes start together and each sends 15 channel reads and 100 webhook executions; resolves with their reports. */
export async function burst(where: BurstStore, server: LimitsServer, webhookWindowMs: number): Promise<BurstResult[]> {
  const startAt = Date.now() + 2500;
  const workers = await Promise.all(
    [0, 1, 2, 3].map((proc) =>
      startScript(WORKER, {
        env: {
          MODE: 'burst',
          STORE: where.store,
          PREFIX: `burst-${where.store}-${startAt}:`,
          REDIS_URL: where.redisUrl ?? '',
          ...(where.clusterUrls ? { REDIS_CLUSTER: where.clusterUrls.join(',') } : {}),
          BASE_URL: server.url,
          PROC: String(proc),
          START_AT: String(startAt),
          ROUTE_COUNT: '15',
          WEBHOOK_COUNT: '100',
          WEBHOOK_WINDOW_MS: String(webhookWindowMs),
          DEADLINE_MS: '40000',
        },
      }),
    ),
  );
  return Promise.all(workers.map((worker) => resultOf<BurstResult>(worker, 60_000)));
}
