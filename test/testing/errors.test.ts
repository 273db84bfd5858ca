/**
 * How the kit quotes what a handler threw: one readable line, whatever was thrown.
 */
import { describe, expect, it } from 'vitest';
import { CommunityChatError } from '../../src/index.js';
import { runBotModule } from '../../src/testing/cli-bot.js';
import { describeThrown } from '../../src/testing/errors.js';
import { BotModuleError, isBotModuleError } from '../../src/testing/index.js';

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

describe('BotModuleError', () => {
  it('is one of the house errors, with its guard, when a --bot module cannot load', async () => {
    const error = await runBotModule({} as never, 'test/testing/no-such-bot-module.js').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(BotModuleError);
    expect(error).toBeInstanceOf(CommunityChatError);
    expect(isBotModuleError(error)).toBe(true);
    expect(isBotModuleError(new Error('other'))).toBe(false);
    expect((error as Error).name).toBe('BotModuleError');
    expect((error as Error).message).toMatch(/cannot load test\/testing\/no-such-bot-module\.js: Error: Cannot find module/);
  });
});
