/**
 * The event stream's and the worker's options, checked at creation (no Redis needed: a client that is never ready).
 */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors/index.js';
import { createRedisEventStream } from '../../src/redis/index.js';

/** A client the stream never reaches: options are checked before any command. */
const client = { isReady: false, sendCommand: async () => null };

function refused(create: () => unknown): ValidationError {
  try {
    create();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('the options were accepted');
}

describe('createRedisEventStream options', () => {
  it('wraps the name in one hash tag, so `s-bot` and `{s-bot}` can never share a stream', () => {
    expect(createRedisEventStream({ client, stream: 's-bot' }).key).toBe('{s-bot}');
    expect(createRedisEventStream({ client }).key).toBe('{ccsdk:events}');
    for (const name of ['{s-bot}', '{}{bot}', '', ' ']) {
      const error = refused(() => createRedisEventStream({ client, stream: name }));
      expect(error.operation, name).toBe('createRedisEventStream');
      expect(error.issues[0]?.path, name).toBe('stream');
    }
  });
});
