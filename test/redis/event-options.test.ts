/**
 * The event stream's and the worker's options, checked at creation (no Redis needed: a client that is never ready).
 */
import { describe, expect, it } from 'vitest';
import { createEventWorker, createRedisEventStream } from '../../src/redis/index.js';
import { orderKeyOf } from '../../src/redis/event-worker-options.js';
import { validationRefusal } from '../helpers/refusal.js';

/** A client the stream never reaches: options are checked before any command. */
const client = { isReady: false, sendCommand: async () => null };

describe('createRedisEventStream options', () => {
  it('wraps the name in one hash tag, so `s-bot` and `{s-bot}` can never share a stream', () => {
    expect(createRedisEventStream({ client, stream: 's-bot' }).key).toBe('{s-bot}');
    expect(createRedisEventStream({ client }).key).toBe('{ccsdk:events}');
    for (const name of ['{s-bot}', '{}{bot}', '', ' ']) {
      const error = validationRefusal(() => createRedisEventStream({ client, stream: name }));
      expect(error.operation, name).toBe('createRedisEventStream');
      expect(error.issues[0]?.path, name).toBe('stream');
    }
  });
});

describe('createRedisEventStream numbers and names', () => {
  it.each([
    [{ commandTimeoutMs: 3e9 }, 'commandTimeoutMs', /at most 600000/],
    [{ commandTimeoutMs: Number.POSITIVE_INFINITY }, 'commandTimeoutMs', /finite/],
    [{ commandTimeoutMs: 0 }, 'commandTimeoutMs', /at least 1/],
    [{ streem: 'x' }, 'streem', /not an option of createRedisEventStream/],
  ])('refuses %o naming %s', (extra, path, message) => {
    const error = validationRefusal(() => createRedisEventStream({ client, ...(extra as object) }));
    expect(error.issues[0]?.path).toBe(path);
    expect(error.issues[0]?.message).toMatch(message);
  });
});

describe('createEventWorker options', () => {
  const stream = createRedisEventStream({ client, stream: 'options' });
  const base = { stream, group: 'g', consumer: 'w', client: { interactions: {} } as never };

  it('accepts the defaults and in-range values', () => {
    expect(createEventWorker(base)).toBeDefined();
    expect(
      createEventWorker({ ...base, concurrency: 1000, claimIdleMs: 50, pollMs: 1, blockMs: 60_000, maxDeliveries: 1, trimEveryMs: 0, maxBacklog: 0 }),
    ).toBeDefined();
    expect(createEventWorker({ ...base, trimEveryMs: 100 })).toBeDefined();
  });

  it.each([
    [{ concurrency: Number.NaN }, 'concurrency', /must be a number/],
    [{ concurrency: Number.POSITIVE_INFINITY }, 'concurrency', /finite/],
    [{ concurrency: 0 }, 'concurrency', /at least 1/],
    [{ concurrency: 1.5 }, 'concurrency', /whole number/],
    [{ claimIdleMs: -5 }, 'claimIdleMs', /at least 50/],
    [{ claimIdleMs: 3e9 }, 'claimIdleMs', /at most 2147483647/],
    [{ pollMs: 0 }, 'pollMs', /at least 1/],
    [{ pollMs: -1 }, 'pollMs', /at least 1/],
    [{ pollMs: Number.NaN }, 'pollMs', /must be a number/],
    [{ blockMs: 0 }, 'blockMs', /at least 1/],
    [{ blockMs: 60_001 }, 'blockMs', /at most 60000/],
    [{ maxDeliveries: 0 }, 'maxDeliveries', /at least 1/],
    [{ claimIdleMs: 500.5 }, 'claimIdleMs', /whole number/],
    [{ trimEveryMs: -1 }, 'trimEveryMs', /at least 100/],
    [{ trimEveryMs: 1 }, 'trimEveryMs', /at least 100/],
    [{ trimEveryMs: 250.5 }, 'trimEveryMs', /whole number/],
    [{ maxBacklog: Number.NaN }, 'maxBacklog', /must be a number/],
    [{ startFrom: 'end' }, 'startFrom', /one of 'beginning', 'new'/],
    [{ orderBy: 'user' }, 'orderBy', /must be 'guild', 'channel' or a function \(event\) => string \| undefined \(got "user"\)/],
    [{ group: ' ' }, 'group', /not blank/],
    [{ consumer: '' }, 'consumer', /not blank/],
    [{ clock: 5 }, 'clock', /function/],
    [{ claimIdle: 100 }, 'claimIdle', /not an option of createEventWorker/],
    [{ stream: {} }, 'stream', /createRedisEventStream/],
    [{ client: undefined }, 'client', /must be a Client/],
  ])('refuses %o naming %s', (extra, path, message) => {
    const error = validationRefusal(() => createEventWorker({ ...base, ...(extra as object) }));
    expect(error.operation).toBe('createEventWorker');
    expect(error.issues[0]?.path).toBe(path);
    expect(error.issues[0]?.message).toMatch(message);
  });
});

describe('orderKeyOf', () => {
  const event = { type: 'MESSAGE_CREATE', data: {}, shardId: 0, id: '1-0', deliveries: 1 };

  it('never throws: a key function throwing what String() cannot read is told as such, and a problem callback that throws is ignored', () => {
    const told: string[] = [];
    const throwing = () => {
      throw Object.create(null);
    };
    expect(orderKeyOf(throwing, event, (why) => void told.push(why))).toBeUndefined();
    expect(told).toEqual(['the key function threw: a thrown object that cannot be read as text']);
    const broken = () => {
      throw new Error('the reporter broke');
    };
    expect(orderKeyOf(throwing, event, broken)).toBeUndefined();
    expect(orderKeyOf(() => 42 as unknown as string, event, broken)).toBeUndefined();
    expect(orderKeyOf(() => 'guild-1', event, broken)).toBe('guild-1');
  });
});
