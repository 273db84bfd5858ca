/**
 * Errors crossing the threads of shard workers: each kind comes back as the kind it left, so the worker's connection
 * treats it as the main thread meant (a held-back Identify told as it is, a failed wait counted in a reported outage
 * not reported again).
 */
import { expect, it } from 'vitest';
import { CountedFailure } from '../../src/gateway/connection-host.js';
import { receiveError, sendError } from '../../src/gateway/worker-messages.js';
import { GatewayError, GatewayFatalError, SessionBudgetError } from '../../src/index.js';

const roundTrip = (error: unknown) => receiveError(structuredClone(sendError(error)));

it('a failed Identify wait counted in an outage already reported comes back counted; other errors come back as they left', () => {
  const counted = roundTrip(new CountedFailure('throttle down'));
  expect(counted).toBeInstanceOf(CountedFailure);
  expect(counted.message).toBe('throttle down');
  const plain = roundTrip(new Error('throttle down'));
  expect(plain).toBeInstanceOf(GatewayError);
  expect(plain).not.toBeInstanceOf(CountedFailure);
  expect(roundTrip(new SessionBudgetError({ remaining: 1, total: 1000, reserve: 50, resetAfterMs: 1000 }))).toBeInstanceOf(SessionBudgetError);
  expect(roundTrip(new GatewayFatalError(4004, 'authentication failed', 'check the token'))).toBeInstanceOf(GatewayFatalError);
});
