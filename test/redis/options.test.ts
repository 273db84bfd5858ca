/**
 * The Redis factories refuse options they cannot honour, each named in a
 * ValidationError, before any command: an unknown name, a `commandTimeoutMs`
 * or other duration past 2^31 - 1 ms (a timer would fire at once and every
 * command fail "did not answer within"), a bad `waitForReplicas`.
 */
import { describe, expect, it } from 'vitest';
import {
  createRedisGatewaySessionStore,
  createRedisIdentifyThrottle,
  createRedisRateLimitStore,
  createRedisReplayStore,
  createRedisUserSessionStore,
} from '../../src/redis/index.js';
import { validationRefusal as refusal } from '../helpers/refusal.js';

const client = { isReady: true, sendCommand: () => Promise.reject(new Error('no command may be sent')) };

const factories: Record<string, { create: (extra: Record<string, unknown>) => unknown; durations: string[] }> = {
  createRedisRateLimitStore: { create: (extra) => createRedisRateLimitStore({ client, ...extra }), durations: ['reservationMs', 'pollMs', 'keepMs'] },
  createRedisUserSessionStore: { create: (extra) => createRedisUserSessionStore({ client, key: 'k', ...extra }), durations: ['lockMs'] },
  createRedisGatewaySessionStore: { create: (extra) => createRedisGatewaySessionStore({ client, ...extra }), durations: ['ttlMs'] },
  createRedisIdentifyThrottle: { create: (extra) => createRedisIdentifyThrottle({ client, ...extra }), durations: ['intervalMs', 'pollMs'] },
  createRedisReplayStore: { create: (extra) => createRedisReplayStore({ client, ...extra }), durations: [] },
};

describe('the Redis factories refuse options they cannot honour', () => {
  for (const [name, { create, durations }] of Object.entries(factories)) {
    it(name, () => {
      for (const option of ['commandTimeoutMs', ...durations])
        for (const value of [3e9, Number.POSITIVE_INFINITY, Number.NaN, -1]) {
          const error = refusal(() => create({ [option]: value }));
          expect(error.operation, `${option}: ${value}`).toBe(name);
          expect(error.issues[0]?.path, `${option}: ${value}`).toBe(option);
        }
      expect(refusal(() => create({ commandTimeout: 5 })).issues).toEqual([{ path: 'commandTimeout', message: `is not an option of ${name}` }]);
      expect(() => create({ commandTimeoutMs: 2_147_483_647 })).not.toThrow();
    });
  }

  it('a waitForReplicas with an unknown name, a count that is not whole, or a timeout past 2^31 - 1 ms', () => {
    expect(refusal(() => createRedisReplayStore({ client, waitForReplicas: { replicas: 1.5 } })).issues[0]?.path).toBe('waitForReplicas.replicas');
    expect(refusal(() => createRedisReplayStore({ client, waitForReplicas: { replicas: 1, timeoutMs: 3e9 } })).issues[0]?.path).toBe(
      'waitForReplicas.timeoutMs',
    );
    expect(refusal(() => createRedisUserSessionStore({ client, key: 'k', waitForReplicas: { replica: 1 } as never })).issues[0]?.path).toBe('replica');
  });
});

describe("the rate-limit store's prefix follows the one key rule (redis/keys.ts)", () => {
  it('a prefix holding a brace is refused, so `bot` and `{bot}` never share keys', () => {
    for (const prefix of ['{bot}', 'a{b}c', 'x}', '', '   '])
      expect(refusal(() => createRedisRateLimitStore({ client, prefix })).issues[0]?.path, JSON.stringify(prefix)).toBe('prefix');
    expect(() => createRedisRateLimitStore({ client, prefix: 'bot' })).not.toThrow();
  });
});

describe('numbers Redis answers are clamped', () => {
  it("the rate-limit store's wait: a planted 3e9 ms (a 1 ms timer past 2^31 - 1) is cut to the longest pause the client accepts", async () => {
    const planted = { isReady: true, sendCommand: async () => [0, 3e9, 'bucket', ''] };
    const store = createRedisRateLimitStore({ client: planted });
    const controller = new AbortController();
    const asked: number[] = [];
    const acquiring = store.acquire('route:GET /x', 'normal', controller.signal, (ms) => {
      asked.push(ms);
      controller.abort();
    });
    await expect(acquiring).rejects.toBeDefined();
    expect(asked).toEqual([600_000]);
  });
});
