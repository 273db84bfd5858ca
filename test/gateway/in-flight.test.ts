/**
 * The interactions a fleet's shard is still handling hold its saved
 * sequence below the oldest of them, until they settle, the session starts
 * anew, or they outlive an interaction token.
 */
import { expect, it } from 'vitest';
import { INTERACTION_LIFETIME_MS } from '../../src/core/constants.js';
import { InFlightInteractions } from '../../src/gateway/in-flight.js';

it('holds the sequence below the oldest interaction being handled, per shard, until each is done', () => {
  const inFlight = new InFlightInteractions(() => 0);
  expect(inFlight.resumableSequence(0, 10)).toBe(10);
  const first = inFlight.begin(0, 'a', 11);
  const second = inFlight.begin(0, 'b', 14);
  inFlight.begin(1, 'c', 3);
  expect(inFlight.resumableSequence(0, 20)).toBe(10);
  expect(inFlight.resumableSequence(1, 9)).toBe(2);
  expect(inFlight.shardOf('b')).toBe(0);
  first();
  expect(inFlight.resumableSequence(0, 20)).toBe(13);
  second();
  expect(inFlight.resumableSequence(0, 20)).toBe(20);
  expect(inFlight.shardOf('b')).toBeUndefined();
  expect(inFlight.size).toBe(1);
  // Without a received sequence there is nothing to resume; without a sequence of its own an interaction is not tracked.
  expect(inFlight.resumableSequence(1, null)).toBeNull();
  inFlight.begin(2, 'd', null);
  expect(inFlight.resumableSequence(2, 7)).toBe(7);
});

it('a new session forgets what the old one was handling; one older than an interaction token holds nothing', () => {
  let now = 0;
  const inFlight = new InFlightInteractions(() => now);
  const done = inFlight.begin(0, 'a', 5);
  inFlight.reset(0);
  expect(inFlight.resumableSequence(0, 2)).toBe(2);
  expect(inFlight.shardOf('a')).toBeUndefined();
  done();
  inFlight.begin(0, 'b', 8);
  now = INTERACTION_LIFETIME_MS / 2;
  inFlight.begin(0, 'c', 9);
  now = INTERACTION_LIFETIME_MS + 1;
  expect(inFlight.resumableSequence(0, 12)).toBe(8);
  expect(inFlight.shardOf('b')).toBeUndefined();
  expect(inFlight.size).toBe(1);
});
