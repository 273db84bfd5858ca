import { Agent } from 'undici';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors/local.js';
import { createTransport } from '../../src/rest/create-rest-client.js';
import { FetchTransport } from '../../src/rest/fetch-transport.js';
import type { Transport } from '../../src/rest/transport.js';
import { UndiciTransport } from '../../src/rest/undici-transport.js';

describe('the transport a client gets', () => {
  it("defaults to undici's pool on Node and to fetch on Bun, Deno, workerd and elsewhere", async () => {
    const onNode = createTransport(undefined, undefined, 'node');
    expect(onNode).toBeInstanceOf(UndiciTransport);
    await onNode.close();
    for (const runtime of ['bun', 'deno', 'workerd', 'other'] as const) {
      expect(createTransport(undefined, undefined, runtime), runtime).toBeInstanceOf(FetchTransport);
    }
  });

  it('gives what was asked for where it runs, a custom transport anywhere', async () => {
    const custom: Transport = { send: () => Promise.reject(new Error('unused')), close: () => Promise.resolve() };
    expect(createTransport(custom, undefined, 'workerd')).toBe(custom);
    expect(createTransport('fetch', undefined, 'node')).toBeInstanceOf(FetchTransport);
    const onDeno = createTransport('undici', undefined, 'deno');
    expect(onDeno).toBeInstanceOf(UndiciTransport);
    await onDeno.close();
    const dispatcher = new Agent();
    const withDispatcher = createTransport(undefined, dispatcher, 'node');
    expect(withDispatcher).toBeInstanceOf(UndiciTransport);
    await withDispatcher.close();
    await dispatcher.close();
  });

  it('refuses undici where it is a shim (Bun) or absent (workerd), naming the option, instead of failing at the first request', async () => {
    for (const runtime of ['bun', 'workerd', 'other'] as const) {
      const error = (() => {
        try {
          createTransport('undici', undefined, runtime);
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(error, runtime).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues[0]?.path).toBe('transport');
      expect((error as ValidationError).message).toContain(`does not run on ${runtime}`);
    }
    const dispatcher = new Agent();
    expect(() => createTransport(undefined, dispatcher, 'bun')).toThrow(/dispatcher: undici's transport does not run on bun/);
    await dispatcher.close();
  });
});
