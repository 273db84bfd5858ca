import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../src/rest/retry-after.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-21T10:00:00Z');
  it.each([
    ['0', 0],
    ['3', 3000],
    ['1.5', 1500],
    ['0.001', 1],
    [' 2 ', 2000],
    ['Sat, 21 Nov 2026 10:00:30 GMT', 30_000],
    ['Sat, 21 Nov 2026 09:59:00 GMT', 0],
  ])('%j gives %d ms', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });

  it.each([undefined, null, '', '-1', '1e3', 'soon', '12abc'])('%j gives undefined', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});
