/**
 * Every method of every resource manager takes `CallOptions` as its last
 * argument (a signal, a deadline, headers): checked by the compiler for each
 * method, and at run time that the list of managers checked is the client's.
 */
import { describe, expect, it } from 'vitest';
import { Client, type CallOptions } from '../../src/index.js';

/** The last parameter of a function type (of its last overload, the general one). */
type LastParameter<F> = F extends (...args: infer A) => unknown ? (Required<A> extends [...unknown[], infer L] ? L : never) : never;
/** The names of `T`'s methods. */
type MethodNames<T> = { [K in keyof T]: T[K] extends (...args: never[]) => unknown ? K : never }[keyof T];
/** `true` for each method whose last parameter takes `CallOptions`; the method's name otherwise, which fails the check below. */
type TakesCallOptionsLast<T> = { [K in MethodNames<T>]: CallOptions extends NonNullable<LastParameter<T[K]>> ? true : K };
/** Compiles only when every value of `T` is `true`. */
type AllTrue<T> = T[keyof T] extends true ? true : T[keyof T];

const managers = ['applications', 'bots', 'applicationWebhooks', 'commands', 'activities', 'channels', 'webhooks', 'interactions', 'auth', 'users'] as const;
type Managers = { [K in (typeof managers)[number]]: AllTrue<TakesCallOptionsLast<Client[K]>> };
// A method whose last parameter is not CallOptions turns its manager's entry into that method's name: a type error here, naming it.
const everyManagerTakesCallOptionsLast: Managers = {
  applications: true,
  bots: true,
  applicationWebhooks: true,
  commands: true,
  activities: true,
  channels: true,
  webhooks: true,
  interactions: true,
  auth: true,
  users: true,
};

describe('method shapes', () => {
  it('the managers checked for CallOptions last are every manager the client has', () => {
    const client = new Client({ baseUrl: 'http://127.0.0.1:9' });
    const held = Object.keys(client).filter((key) => {
      const value = (client as unknown as Record<string, unknown>)[key];
      return typeof value === 'object' && value !== null && (value.constructor?.name ?? '').endsWith('Manager');
    });
    expect(held.sort()).toEqual([...managers].sort());
    // The check itself is the type of everyManagerTakesCallOptionsLast: it names exactly these managers.
    expect(Object.keys(everyManagerTakesCallOptionsLast).sort()).toEqual(held.sort());
    void client.close();
  });
});
