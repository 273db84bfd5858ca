import { describe, expect, it } from 'vitest';
import { MAX_TIMER_MS, checkCount, checkDuration, clampNumber, optionNames, refuseUnknownOptions, textProblem, wholeWithin } from '../../src/core/bounds.js';
import { validationRefusal as refusal } from '../helpers/refusal.js';

describe('bounds: the one home of number and option checks', () => {
  it('refuses a duration a timer cannot honour, naming the option', () => {
    for (const bad of [MAX_TIMER_MS + 1, 7e9, 1e308, Number.POSITIVE_INFINITY, Number.NaN, -1, '5']) {
      const error = refusal(() => checkDuration('createThing', 'leaseMs', bad as number));
      expect(error.message, `value ${String(bad)}`).toContain('leaseMs');
      expect(error.issues[0]?.path).toBe('leaseMs');
    }
    expect(checkDuration('createThing', 'leaseMs', MAX_TIMER_MS)).toBe(MAX_TIMER_MS);
    expect(checkDuration('createThing', 'leaseMs', undefined)).toBeUndefined();
    expect(checkDuration('createThing', 'leaseMs', 1.5)).toBe(1.5);
    expect(() => checkDuration('createThing', 'leaseMs', 99, { min: 100 })).toThrow(/at least 100/);
    // A max above the timer's limit is still capped at it.
    expect(() => checkDuration('createThing', 'leaseMs', MAX_TIMER_MS + 1, { max: Number.MAX_SAFE_INTEGER })).toThrow(/at most 2147483647/);
  });

  it('refuses a count that is not a whole number within bounds', () => {
    expect(() => checkCount('reshard', 'count', 2.5)).toThrow(/whole number/);
    expect(() => checkCount('reshard', 'count', 100_000, { min: 1, max: 4096 })).toThrow(/count: must be at most 4096/);
    expect(() => checkCount('reshard', 'count', 0, { min: 1 })).toThrow(/at least 1/);
    expect(() => checkCount('reshard', 'count', Number.NaN)).toThrow(/must be a number/);
    expect(checkCount('reshard', 'count', 12, { min: 1, max: 4096 })).toBe(12);
  });

  it('clamps a number from the network or Redis, and reads only plain decimals', () => {
    expect(clampNumber(3e9, 0, 60_000, 5)).toBe(60_000);
    expect(clampNumber(-30, 0, 100, 5)).toBe(0);
    expect(clampNumber('42', 0, 100, 5)).toBe(42);
    expect(clampNumber('1e1', 0, 100, 5)).toBe(5);
    expect(clampNumber('0x10', 0, 100, 5)).toBe(5);
    expect(clampNumber('abc', 0, 100, 5)).toBe(5);
    expect(clampNumber(Number.NaN, 0, 100, 5)).toBe(5);
    expect(clampNumber(Number.POSITIVE_INFINITY, 0, 100, 5)).toBe(5);
    expect(clampNumber(null, 0, 100, 5)).toBe(5);
  });

  it('reads a whole number from the network or Redis within bounds, and one past a bound as missing (not clamped onto it)', () => {
    expect(wholeWithin('42', 1, 100)).toBe(42);
    expect(wholeWithin(100, 1, 100)).toBe(100);
    expect(wholeWithin(1, 1, 100)).toBe(1);
    expect(wholeWithin('101', 1, 100), 'past the upper bound').toBeUndefined();
    expect(wholeWithin('0', 1, 100), 'below the lower bound').toBeUndefined();
    expect(wholeWithin(-5, 0, 100)).toBeUndefined();
    expect(wholeWithin('4.5', 0, 100), 'not whole').toBeUndefined();
    for (const value of ['1e1', '0x10', 'abc', Number.NaN, Number.POSITIVE_INFINITY, null, undefined])
      expect(wholeWithin(value, 0, 100), String(value)).toBeUndefined();
  });

  it('refuses unknown option names, with the new name of a renamed one', () => {
    const error = refusal(() => refuseUnknownOptions('new Client', { token: 'x', now: () => 1, colour: 1 }, ['token', 'clock'], { now: 'clock' }));
    expect(error.issues).toEqual([
      { path: 'now', message: 'was renamed or removed: use clock' },
      { path: 'colour', message: 'is not an option of new Client' },
    ]);
    expect(() => refuseUnknownOptions('new Client', { token: 'x', clock: () => 1 }, ['token', 'clock'])).not.toThrow();
    expect(() => refuseUnknownOptions('new Client', undefined, ['token'])).not.toThrow();
  });

  it('lists the names of an options type from an object the compiler checks against it', () => {
    interface Options {
      clock?: () => number;
      timeoutMs?: number | undefined;
    }
    const names = optionNames<Options>({ clock: true, timeoutMs: true });
    expect(names).toEqual(['clock', 'timeoutMs']);
    expect(Object.isFrozen(names)).toBe(true);
    // @ts-expect-error an option of the type left out of the list does not compile
    optionNames<Options>({ clock: true });
    // @ts-expect-error a name the type does not have does not compile
    optionNames<Options>({ clock: true, timeoutMs: true, now: true });
  });

  it('textProblem: a string of 1 to maxLength characters passes; anything else is described, nothing thrown', () => {
    expect([textProblem('g1', 3), textProblem('abc', 3)]).toEqual([undefined, undefined]);
    expect(textProblem('abcd', 3)).toBe('must be 1 to 3 characters (got 4)');
    expect(textProblem('', 3)).toBe('must be 1 to 3 characters (got 0)');
    expect([textProblem(42, 3), textProblem(null, 3), textProblem({}, 3)]).toEqual([
      'must be a string (got number)',
      'must be a string (got null)',
      'must be a string (got object)',
    ]);
  });
});
