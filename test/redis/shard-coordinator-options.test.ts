/**
 * The shard coordinator's options and arguments, checked before any command (a client that is never ready): durations
 * past what a timer honours, shard counts past `maxShards`, fleet keys that would share keys with another, unknown
 * options, and ids that would break a lease's `member|fence` value.
 */
import { describe, expect, it } from 'vitest';
import { ShardCoordinatorError, ValidationError } from '../../src/errors/index.js';
import { createRedisShardCoordinator, type RedisShardCoordinatorOptions } from '../../src/redis/index.js';

/** A client the coordinator never reaches: what is checked fails before any command. */
const client = { isReady: false, sendCommand: async () => null };

function refused(what: string, act: () => unknown): ValidationError {
  try {
    act();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw new Error(`${what}: threw ${String(error)} instead of a ValidationError`);
  }
  throw new Error(`${what}: was accepted`);
}

async function rejected(what: string, act: () => Promise<unknown>): Promise<ValidationError> {
  const error = await act().then(
    () => new Error(`${what}: was accepted`),
    (thrown: unknown) => thrown,
  );
  if (error instanceof ValidationError) return error;
  throw new Error(`${what}: failed with ${String(error)} instead of a ValidationError`);
}

describe('createRedisShardCoordinator options', () => {
  it.each([
    ['leaseMs', 7e9],
    ['leaseMs', 1e308],
    ['leaseMs', Number.POSITIVE_INFINITY],
    ['leaseMs', Number.NaN],
    ['leaseMs', 299],
    ['leaseMs', 1000.5],
    ['commandTimeoutMs', 3e9],
    ['commandTimeoutMs', Number.POSITIVE_INFINITY],
    ['commandTimeoutMs', 0],
    ['maxShards', 0],
    ['maxShards', 2.5],
    ['maxShards', 1e9],
  ] as const)('refuses %s: %s with a ValidationError naming it', (name, value) => {
    const error = refused(`${name} ${value}`, () => createRedisShardCoordinator({ client, [name]: value }));
    expect(error.operation).toBe('createRedisShardCoordinator');
    expect(error.issues.map((issue) => issue.path)).toEqual([name]);
  });

  it('keeps the bounds it was given, and its defaults', () => {
    expect(createRedisShardCoordinator({ client, leaseMs: 2_147_483_647 }).leaseMs).toBe(2_147_483_647);
    const coordinator = createRedisShardCoordinator({ client });
    expect([coordinator.leaseMs, coordinator.maxShards]).toEqual([10_000, 10_000]);
  });

  it('refuses fleet keys that Redis would hash like another (their own braces), empty, blank or over-long ones', () => {
    for (const key of ['{bot}', '{a:b}', '{}{bot}', 'a{b', '', '   ', 'x'.repeat(201)]) {
      const error = refused(`key ${JSON.stringify(key)}`, () => createRedisShardCoordinator({ client, key }));
      expect(error.issues[0]?.path, key).toBe('key');
    }
  });

  it('refuses an unknown or misspelt option, naming it', () => {
    const options = { client, leaseMS: 5000 } as unknown as RedisShardCoordinatorOptions;
    const error = refused('leaseMS', () => createRedisShardCoordinator(options));
    expect(error.issues).toEqual([{ path: 'leaseMS', message: 'is not an option of createRedisShardCoordinator' }]);
  });

  it('refuses a bot id that is empty, over-long or holds "|", and a second, different bot', () => {
    for (const bot of ['', 'a|b', 'x'.repeat(201)])
      expect(refused(`bot ${bot}`, () => createRedisShardCoordinator({ client, bot })).issues[0]?.path).toBe('bot');
    const coordinator = createRedisShardCoordinator({ client, bot: '111' });
    coordinator.join('111');
    expect(refused('join 222', () => coordinator.join('222')).issues[0]?.path).toBe('bot');
  });
});

describe('the coordinator’s shard counts and member ids', () => {
  const coordinator = createRedisShardCoordinator({ client, maxShards: 50 });

  it('refuses a reshard or a step past maxShards, and a proposed count past it with a ShardCoordinatorError, and a count that is not a whole number from 1', async () => {
    for (const count of [100_000, 51, 0, 1.5, Number.NaN]) {
      const error = await rejected(`requestReshard(${count})`, () => coordinator.requestReshard(count));
      expect(error.issues[0]?.path).toBe('shardCount');
    }
    expect((await rejected('default maxShards', () => createRedisShardCoordinator({ client }).requestReshard(100_000))).operation).toBe(
      'ShardCoordinator.requestReshard',
    );
    await rejected('tick(…, 51)', () => coordinator.tick('a', 51, true));
    // A proposed count is the service's recommendation: past maxShards, a ShardCoordinatorError says so (not a caller's mistake).
    const proposed = await coordinator.shardCount(51).then(
      () => new Error('shardCount(51) resolved'),
      (error: unknown) => error,
    );
    expect(proposed).toBeInstanceOf(ShardCoordinatorError);
    expect(String(proposed)).toContain("51 (the service's recommendation) is beyond this fleet's maxShards 50");
    await rejected('shardReady(8, 8)', () => coordinator.shardReady(8, 8));
  });

  it('refuses a member id that would break a lease value ("|"), an empty one or an over-long one', async () => {
    for (const member of ['a|b', '', 'm'.repeat(201)]) {
      const error = await rejected(`member ${member}`, () => coordinator.tick(member, 4, true));
      expect(error.issues[0]?.path).toBe('member');
    }
  });
});

describe('the coordinator and an answer of another shape', () => {
  it('rejects with a ShardCoordinatorError, never a TypeError, when Redis answers a step with something else', async () => {
    for (const answer of ['OK', null, [], [[0, 1, 0, -1, 0, 1]]]) {
      const odd = createRedisShardCoordinator({ client: { isReady: true, sendCommand: async () => answer } });
      const errors = await Promise.all(
        [odd.tick('a', 2, true), odd.shardCount(2), odd.requestReshard(2)].map((call) =>
          call.then(
            () => undefined,
            (error: unknown) => error,
          ),
        ),
      );
      for (const error of errors) expect(error, JSON.stringify(answer)).toBeInstanceOf(ShardCoordinatorError);
    }
  });
});
