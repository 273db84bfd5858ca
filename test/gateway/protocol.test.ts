import { describe, expect, it } from 'vitest';
import { closeCodeRule, closeCodes } from '../../src/testing/index.js';

describe('close-code table', () => {
  it('maps each code to resume, reidentify or fatal; unlisted codes resume', () => {
    expect(closeCodeRule(4000).action).toBe('resume');
    expect(closeCodeRule(4004)).toMatchObject({ action: 'fatal', hint: expect.stringMatching(/token/) });
    expect(closeCodeRule(4007).action).toBe('reidentify');
    expect(closeCodeRule(4009).action).toBe('reidentify');
    expect(closeCodeRule(1000)).toMatchObject({ action: 'resume', name: 'closed by the server' });
    expect(closeCodeRule(1006)).toMatchObject({ action: 'resume', name: 'connection lost' });
    for (const rule of Object.values(closeCodes)) if (rule.action === 'fatal') expect(rule.hint).toBeTruthy();
  });
});

describe('reading frames and sequences (a number or a string per dispatch, no wrapper object)', () => {
  it('reads a dispatch sequence: the one to record, none, a duplicate, or what is wrong with it', async () => {
    const { readSequence, NO_SEQUENCE, DUPLICATE_SEQUENCE, MAX_SEQUENCE_JUMP } = await import('../../src/gateway/protocol.js');
    expect(readSequence(0, null)).toBe(0);
    expect(readSequence(6, 5)).toBe(6);
    expect(readSequence(undefined, 5)).toBe(NO_SEQUENCE);
    expect(readSequence(null, null)).toBe(NO_SEQUENCE);
    expect(readSequence(5, 5)).toBe(DUPLICATE_SEQUENCE);
    expect(readSequence(4, 5)).toBe(DUPLICATE_SEQUENCE);
    expect(readSequence(-4, null)).toMatch(/not a safe non-negative integer \(-4\)/);
    expect(readSequence(2.5, 1)).toMatch(/not a safe non-negative integer/);
    expect(readSequence(5 + MAX_SEQUENCE_JUMP + 1, 5)).toMatch(/more than 1000000 ahead of the last one \(5\)/);
    expect(NO_SEQUENCE).toBeLessThan(0);
    expect(DUPLICATE_SEQUENCE).toBeLessThan(0);
  });

  it('reads a frame, or says why it is none', async () => {
    const { readFrame } = await import('../../src/gateway/protocol.js');
    expect(readFrame('{"op":0,"s":3,"t":"X","d":{"a":1}}')).toEqual({ op: 0, s: 3, t: 'X', d: { a: 1 } });
    expect(readFrame('{"op":11,"s":"3","t":5}')).toEqual({ op: 11, d: undefined });
    expect(readFrame('nope')).toBe('a frame that is not JSON');
    expect(readFrame('[1]')).toBe('a frame that is JSON but not an object (an array)');
    expect(readFrame('{"op":"0"}')).toBe('a frame without an integer op');
  });
});
