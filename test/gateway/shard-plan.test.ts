/**
 * The shard plan (options, then GET /gateway/bot for what they leave open),
 * the overall status of many shards, and the order shards connect in.
 */
import { describe, expect, it } from 'vitest';
import { GatewayError, ValidationError } from '../../src/index.js';
import { readGatewayBot, resolveShardPlan } from '../../src/gateway/shard-plan.js';
import { overallStatus, type ShardHandle } from '../../src/gateway/shards.js';
import { connectFixed } from '../../src/gateway/shard-start.js';
import type { GatewayStatus } from '../../src/gateway/options.js';

const bot = (body: unknown) => {
  const calls: number[] = [];
  return { calls, fetch: async () => (calls.push(1), body) };
};

describe('resolveShardPlan', () => {
  it('without shards or shardCount: no sharding and no request', async () => {
    const { calls, fetch } = bot({});
    expect(await resolveShardPlan({}, fetch)).toEqual({ sharded: false, ids: [0], count: 1, maxConcurrency: 1, perWorker: undefined });
    expect(calls).toHaveLength(0);
  });

  it("'auto' takes the shard count and max_concurrency from GET /gateway/bot", async () => {
    const { fetch } = bot({ url: 'ws://x', shards: 3, session_start_limit: { max_concurrency: 2 } });
    expect(await resolveShardPlan({ shards: 'auto', shardsPerWorker: 2 }, fetch)).toEqual({
      sharded: true,
      ids: [0, 1, 2],
      count: 3,
      maxConcurrency: 2,
      perWorker: 2,
    });
  });

  it('asks nothing when shardCount and maxConcurrency are given; sorts the ids', async () => {
    const { calls, fetch } = bot({});
    expect(await resolveShardPlan({ shards: [3, 1], shardCount: 4, maxConcurrency: 1 }, fetch)).toMatchObject({ ids: [1, 3], count: 4, maxConcurrency: 1 });
    expect(calls).toHaveLength(0);
  });

  it('refuses ids at or above the count the service recommends, and a count it does not give', async () => {
    await expect(resolveShardPlan({ shards: [0, 5] }, bot({ shards: 4 }).fetch)).rejects.toBeInstanceOf(ValidationError);
    await expect(resolveShardPlan({ shards: 'auto' }, bot({ shards: 'many' }).fetch)).rejects.toThrow(/set gateway.shardCount/);
  });

  it('reports a failed GET /gateway/bot as a GatewayError that says how to skip it, and needs the request when it cannot make it', async () => {
    const error = await resolveShardPlan({ shards: 'auto' }, () => Promise.reject(new Error('503'))).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as Error).message).toMatch(/GET \/gateway\/bot failed.*shardCount and gateway.maxConcurrency/);
    await expect(resolveShardPlan({ shards: 'auto' }, undefined)).rejects.toBeInstanceOf(ValidationError);
  });

  it('reads max_concurrency as 1 when the body does not say', () => {
    expect(readGatewayBot({ shards: 2 })).toEqual({ shards: 2, maxConcurrency: 1 });
    expect(readGatewayBot(null)).toEqual({ shards: undefined, maxConcurrency: 1 });
  });
});

const handle = (id: number, status: GatewayStatus, log: string[] = []): ShardHandle => ({
  id,
  status,
  sessionId: undefined,
  sequence: null,
  latency: undefined,
  lastAckAt: undefined,
  resumeUrl: undefined,
  restore: () => undefined,
  connect: async () => {
    log.push(`start ${id}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
    log.push(`ready ${id}`);
  },
  destroy: async () => undefined,
});

describe('many shards', () => {
  it('are ready when all are, idle when all are, else as the least advanced', () => {
    expect(overallStatus([handle(0, 'ready'), handle(1, 'ready')])).toBe('ready');
    expect(overallStatus([handle(0, 'idle'), handle(1, 'idle')])).toBe('idle');
    expect(overallStatus([handle(0, 'ready'), handle(1, 'identifying')])).toBe('identifying');
    expect(overallStatus([handle(0, 'resuming'), handle(1, 'reconnecting')])).toBe('reconnecting');
    expect(overallStatus([])).toBe('idle');
  });

  it('connect one after another within a bucket, buckets side by side', async () => {
    const log: string[] = [];
    await connectFixed(
      [0, 1, 2, 3].map((id) => handle(id, 'idle', log)),
      2,
      undefined,
    );
    // Shard 2 starts only once shard 0 (its bucket) is ready; shard 3 after shard 1.
    expect(log.indexOf('start 2')).toBeGreaterThan(log.indexOf('ready 0'));
    expect(log.indexOf('start 3')).toBeGreaterThan(log.indexOf('ready 1'));
    expect(log.indexOf('start 1')).toBeLessThan(log.indexOf('ready 0'));
  });
});
