/**
 * How the kit quotes what a handler threw: one readable line, whatever was thrown.
 */
import { describe, expect, it } from 'vitest';
import { describeThrown } from '../../src/testing/errors.js';

describe('describeThrown', () => {
  it('quotes an Error, a { code, message }, a string, a symbol and a null-prototype object', () => {
    expect(describeThrown(new RangeError('boom'))).toBe('RangeError: boom');
    expect(describeThrown({ code: 50013, message: 'Missing Permissions' })).toBe('50013: Missing Permissions');
    expect(describeThrown({ message: 'plain' })).toBe('plain');
    expect(describeThrown('a string')).toBe('a string');
    expect(describeThrown(Symbol('sym'))).toBe('Symbol(sym)');
    expect(describeThrown(Object.create(null))).toBe('[Object: null prototype] {}');
    expect(describeThrown({ a: 1 })).toBe('{ a: 1 }');
  });

  it('never throws: a revoked proxy and a throwing message getter get a fallback', () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(describeThrown(proxy)).toBe('a value that cannot be shown');
    const getter = Object.defineProperty({}, 'message', {
      get() {
        throw new Error('no');
      },
    });
    expect(describeThrown(getter)).toBe('a value that cannot be shown');
  });

  it('cuts a long description to 300 characters', () => {
    const text = describeThrown('x'.repeat(10_000));
    expect(text).toHaveLength(301);
    expect(text.endsWith('…')).toBe(true);
  });
});
