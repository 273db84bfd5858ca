import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { describeThrown, thrownValue, toError } from '../../src/errors/base.js';
import {
  AbortError,
  ApiError,
  CommunityChatError,
  GatewayFatalError,
  InteractionExpiredError,
  RateLimitError,
  ValidationError,
  isCommunityChatError,
  type ErrorKind,
} from '../../src/index.js';

/** A 429 of GET /x, as the response decoding builds it. */
function rateLimitError(retryAfterMs: number, global: boolean): RateLimitError {
  return new RateLimitError({
    method: 'GET',
    path: '/x',
    operation: 'op',
    status: 429,
    body: undefined,
    headers: {},
    credential: 'bot',
    retryAfterMs,
    global,
  });
}

describe('error classes', () => {
  it('name each error after its class, and a user subclass after its own', () => {
    expect(new ValidationError('op', [{ path: 'a', message: 'b' }]).name).toBe('ValidationError');
    expect(new GatewayFatalError(4004, 'Authentication failed', 'replace the token').name).toBe('GatewayFatalError');
    class MyError extends CommunityChatError {}
    const mine = new MyError('x');
    expect(mine.name).toBe('MyError');
    expect(isCommunityChatError(mine)).toBe(true);
  });

  it('derive every guard from the prototype chain: a class is its ancestors too, never its siblings', () => {
    const rateLimit = rateLimitError(5, false);
    const kindsOf = (error: unknown, kinds: ErrorKind[]) => kinds.map((kind) => isCommunityChatError(error, kind));
    expect(isCommunityChatError(rateLimit)).toBe(true);
    expect(kindsOf(rateLimit, ['CommunityChatError', 'ApiError', 'RateLimitError'])).toEqual([true, true, true]);
    expect(kindsOf(rateLimit, ['ServerError', 'ValidationError', 'AbortError', 'GatewayError'])).toEqual([false, false, false, false]);
    const fatal = new GatewayFatalError(4014, 'Disallowed intents', 'check intents');
    expect([isCommunityChatError(fatal, 'GatewayError'), isCommunityChatError(fatal, 'GatewayFatalError'), isCommunityChatError(fatal, 'ApiError')]).toEqual([
      true,
      true,
      false,
    ]);
    const expired = new InteractionExpiredError({ interactionId: '1', ageMs: 16 * 60_000 }, 0);
    expect([
      isCommunityChatError(expired, 'InteractionError'),
      isCommunityChatError(expired, 'InteractionExpiredError'),
      expired instanceof CommunityChatError,
    ]).toEqual([true, true, true]);
    const aborted = new AbortError({ method: 'GET', path: '/x', operation: 'op', mayHaveReachedServer: false });
    expect(isCommunityChatError(aborted, 'AbortError')).toBe(true);
    expect(aborted.message).toBe('GET /x: aborted by the caller');
  });

  it('build the API error message from the summary response decoding gives it', () => {
    const error = new ApiError({
      method: 'GET',
      path: '/x',
      operation: 'op',
      status: 409,
      body: { a: 1 },
      headers: {},
      credential: 'none',
      summary: 'conflict',
      code: 7,
    });
    expect(error.message).toBe('GET /x failed with 409: conflict');
    expect(error.code).toBe(7);
    expect(inspect(error)).toContain('ApiError');
  });

  it('recognise errors from another copy of the package by the kinds on their prototype chain', () => {
    // Another copy's classes: the same global symbol on each prototype, none of our constructors.
    const kind = Symbol.for('community-chat-sdk.error.kind');
    class ForeignBase extends Error {}
    class ForeignApi extends ForeignBase {}
    class ForeignRateLimit extends ForeignApi {}
    Object.defineProperty(ForeignBase.prototype, kind, { value: 'CommunityChatError' });
    Object.defineProperty(ForeignApi.prototype, kind, { value: 'ApiError' });
    Object.defineProperty(ForeignRateLimit.prototype, kind, { value: 'RateLimitError' });
    const foreign = new ForeignRateLimit('x');
    expect(isCommunityChatError(foreign, 'RateLimitError')).toBe(true);
    expect(isCommunityChatError(foreign, 'ApiError')).toBe(true);
    expect(isCommunityChatError(foreign, 'ServerError')).toBe(false);
    expect(isCommunityChatError(new ForeignApi('x'), 'RateLimitError')).toBe(false);
    // A plain error carrying another symbol's list of kinds is not taken for one.
    const lookalike = Object.assign(new Error('x'), { [Symbol.for('community-chat-sdk.error.kinds')]: ['CommunityChatError', 'ApiError', 'RateLimitError'] });
    expect(isCommunityChatError(lookalike, 'RateLimitError')).toBe(false);
    expect(isCommunityChatError(new Error('plain'), 'ApiError')).toBe(false);
    expect(isCommunityChatError(null, 'ApiError')).toBe(false);
    expect(isCommunityChatError('ApiError', 'ApiError')).toBe(false);
  });
});

describe('isCommunityChatError(value, kind)', () => {
  it('narrows to the class of the kind asked about', () => {
    const caught: unknown = rateLimitError(250, true);
    if (!isCommunityChatError(caught, 'RateLimitError')) throw new Error('a RateLimitError was not recognised as one');
    // Typed as RateLimitError here: its own fields read without a cast.
    expect([caught.retryAfterMs, caught.global, caught.status]).toEqual([250, true, 429]);
  });

  it('refuses a kind that names no error class, instead of answering false forever', () => {
    const typo = 'RateLimitErorr' as ErrorKind;
    expect(() => isCommunityChatError(new Error('x'), typo)).toThrow(ValidationError);
    expect(() => isCommunityChatError(new Error('x'), typo)).toThrow(/kind: names no error class of the SDK \(one of CommunityChatError, ApiError/);
    // Not even a name inherited from Object.prototype passes for a kind.
    expect(() => isCommunityChatError({}, 'toString' as ErrorKind)).toThrow(ValidationError);
  });
});

describe('the error classes every entry exports', () => {
  it('all extend CommunityChatError, so isCommunityChatError recognises every error the SDK throws', async () => {
    const entries = {
      '.': await import('../../src/index.js'),
      './transport': await import('../../src/transport.js'),
      './testing': await import('../../src/testing/index.js'),
      './redis': await import('../../src/redis/index.js'),
    };
    const errorClasses = Object.entries(entries).flatMap(([entry, exports]) =>
      Object.entries(exports)
        .filter(([, value]) => typeof value === 'function' && value.prototype instanceof Error)
        .map(([name, value]) => ({ name: `${entry} ${name}`, value: value as abstract new (...args: never[]) => Error })),
    );
    expect(errorClasses.map(({ name }) => name)).toEqual(expect.arrayContaining(['./transport TransportFailure', '. MultipartStreamError']));
    expect(
      errorClasses.filter(({ value }) => !(value.prototype instanceof CommunityChatError) && value !== CommunityChatError).map(({ name }) => name),
    ).toEqual([]);
  });
});

describe('describeThrown and toError: whatever was thrown, never a throw of their own', () => {
  const unconvertible = Object.create(null) as object;
  const unreadable = new Error('hidden');
  Object.defineProperty(unreadable, 'message', {
    get() {
      throw new Error('message getter broke');
    },
  });
  const noPrototype = new Proxy(
    {},
    {
      getPrototypeOf() {
        throw new Error('prototype trap broke');
      },
    },
  );

  it.each([
    ['an Error', new Error('it broke'), 'it broke'],
    ['a string', 'plain words', 'plain words'],
    ['a number', 42, '42'],
    ['undefined', undefined, 'undefined'],
    ['an object String() cannot convert', unconvertible, 'a thrown object that cannot be read as text'],
    ['an Error whose message getter throws', unreadable, 'a thrown object that cannot be read as text'],
    ['a proxy whose prototype cannot be read', noPrototype, '[object Object]'],
  ])('describes %s', (_, value, text) => {
    expect(describeThrown(value)).toBe(text);
  });

  it('wraps a value instanceof cannot test in an Error, the value as its cause', () => {
    const wrapped = toError(noPrototype);
    expect(wrapped.message).toBe('a non-Error value was thrown (object)');
    expect(thrownValue(wrapped)).toBe(noPrototype);
    expect(toError(unreadable)).toBe(unreadable);
  });
});

describe('isCommunityChatError on hostile values: it answers, never throws or hangs', () => {
  const brand = Symbol.for('community-chat-sdk.error.kind');

  it('a proxy whose prototype is itself (an endless chain), a revoked proxy and a throwing brand getter are not SDK errors', () => {
    // Endless for any walk without a bound; past 10,000 steps it throws instead, so a guard without one fails here, not hangs.
    let steps = 0;
    const endless: object = new Proxy(
      {},
      {
        getPrototypeOf: () => {
          if (++steps > 10_000) throw new Error(`walked ${steps} prototypes`);
          return endless;
        },
      },
    );
    const { proxy: revoked, revoke } = Proxy.revocable({}, {});
    revoke();
    class Planted extends Error {}
    Object.defineProperty(Planted.prototype, brand, {
      get() {
        throw new Error('boom');
      },
    });
    const answers = [endless, revoked, new Planted('x')].map((value) => {
      try {
        return isCommunityChatError(value);
      } catch (error) {
        return `threw ${String(error)}`;
      }
    });
    expect(answers, 'the endless chain, the revoked proxy, the throwing getter').toEqual([false, false, false]);
  });

  it('a kind that names no class throws a ValidationError carrying the value asked about, so a catch block loses nothing', () => {
    const original = new Error('the real failure');
    let thrown: unknown;
    try {
      isCommunityChatError(original, 'RatelimitError' as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ValidationError);
    expect((thrown as Error).cause, 'the error caught').toBe(original);
  });
});

describe('the brand of each error class', () => {
  it('is set by the module that defines the class, so an error made through any entry (the transport entry loads no other error module) is recognised', async () => {
    const { KIND } = await import('../../src/errors/base.js');
    const unbranded: string[] = [];
    let classes = 0;
    for (const file of ['base', 'api', 'gateway', 'interaction', 'local', 'receive', 'request', 'transport']) {
      const source = readFileSync(new URL(`../../src/errors/${file}.ts`, import.meta.url), 'utf8');
      const module = (await import(`../../src/errors/${file}.ts`)) as Record<string, unknown>;
      // The classes the file itself defines, and its code after the last of them: the brand must be in the file.
      for (const name of [...source.matchAll(/^export class (\w+)/gm)].map((match) => match[1] as string)) {
        const errorClass = module[name] as { prototype: object };
        classes++;
        if (!Object.hasOwn(errorClass.prototype, KIND) || (errorClass.prototype as Record<symbol, unknown>)[KIND] !== name || !source.includes(`brand({`))
          unbranded.push(`${file}.ts: ${name}`);
      }
    }
    expect(classes, 'error classes found').toBeGreaterThan(30);
    expect(unbranded, 'classes without their own brand').toEqual([]);
  });
});
