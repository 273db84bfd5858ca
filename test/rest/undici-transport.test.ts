import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Dispatcher } from 'undici';
import type { TransportRequest } from '../../src/rest/transport.js';
import type { TransportFailure } from '../../src/errors/transport.js';

/** A fresh copy of the transport module, so undici is not loaded yet (it is loaded per module instance, on the first request). */
async function freshTransport(): Promise<typeof import('../../src/rest/undici-transport.js')> {
  vi.resetModules();
  return import('../../src/rest/undici-transport.js');
}

async function request(signal?: TransportRequest['signal']): Promise<TransportRequest> {
  const { AttemptSignal } = await import('../../src/rest/transport.js');
  return { method: 'GET', origin: 'http://127.0.0.1:9', path: '/api/v1/users/@me', headers: {}, body: undefined, signal: signal ?? new AttemptSignal() };
}

/** What the transport loads of undici: its Pool and util by their own modules, the package's index when they fail. */
const UNDICI_MODULES = ['undici', 'undici/lib/dispatcher/pool.js', 'undici/lib/core/util.js'];

afterEach(() => {
  for (const name of UNDICI_MODULES) vi.doUnmock(name);
  vi.resetModules();
});

describe('UndiciTransport loads undici on its first request', () => {
  it('a request whose signal aborts while undici loads is refused before it reaches the dispatcher', async () => {
    const { UndiciTransport } = await freshTransport();
    const dispatched: string[] = [];
    // A dispatched request fails at once, so the send settles either way and the assertion below says what happened.
    const dispatch = (options: Dispatcher.DispatchOptions, handler: { onError(error: Error): void }) => {
      dispatched.push(options.path);
      handler.onError(new Error('dispatched'));
    };
    const transport = new UndiciTransport({ dispatcher: { dispatch } as unknown as Dispatcher });
    const { AttemptSignal } = await import('../../src/rest/transport.js');
    const signal = new AttemptSignal();
    const sending = transport.send(await request(signal));
    signal.abort(new Error('caller gave up'));
    const failure = (await sending.catch((error: unknown) => error)) as TransportFailure;
    expect(failure.kind, 'the failure of a request aborted while undici loaded').toBe('aborted');
    expect(dispatched, 'requests handed to the dispatcher after their signal aborted').toEqual([]);
  });

  it('a failed load is a network failure that reached nothing, and the next request tries the load again', async () => {
    for (const name of UNDICI_MODULES)
      vi.doMock(name, () => {
        throw new Error('undici is not installed');
      });
    const { UndiciTransport } = await freshTransport();
    const transport = new UndiciTransport();
    const failure = (await transport.send(await request()).catch((error: unknown) => error)) as TransportFailure;
    expect(failure.kind).toBe('network');
    expect(failure.mayHaveReachedServer, 'a request sent without undici loaded cannot have reached the server').toBe(false);
    expect(failure.detail).toMatch(/^undici could not be loaded: /);

    for (const name of UNDICI_MODULES) vi.doUnmock(name);
    const dispatched: string[] = [];
    const dispatcher = { dispatch: (options: Dispatcher.DispatchOptions) => dispatched.push(options.path) } as unknown as Dispatcher;
    void new UndiciTransport({ dispatcher }).send(await request());
    await vi.waitFor(() => expect(dispatched, 'the request after a failed load, once undici loaded').toEqual(['/api/v1/users/@me']));
  });
});

describe('the transports of community-chat-sdk/transport', () => {
  it('close on `await using` ([Symbol.asyncDispose] is close())', async () => {
    const { FetchTransport, UndiciTransport } = await import('../../src/transport.js');
    for (const transport of [new UndiciTransport(), new FetchTransport()]) {
      const close = vi.spyOn(transport, 'close');
      {
        await using _disposed = transport;
      }
      expect(close, transport.constructor.name).toHaveBeenCalledTimes(1);
    }
  });
});
