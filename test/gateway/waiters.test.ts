import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConnectWaiters } from '../../src/gateway/waiters.js';
import { GatewayError } from '../../src/index.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('ConnectWaiters (fake timers)', () => {
  it('resolves or rejects every waiter together, clearing their timers', async () => {
    vi.useFakeTimers();
    const waiters = new ConnectWaiters();
    const a = waiters.wait(
      1000,
      undefined,
      () => new Error('timeout'),
      () => undefined,
    );
    const b = waiters.wait(
      1000,
      undefined,
      () => new Error('timeout'),
      () => undefined,
    );
    expect(waiters.size).toBe(2);
    waiters.resolveAll();
    await expect(Promise.all([a, b])).resolves.toEqual([undefined, undefined]);
    const c = waiters.wait(
      1000,
      undefined,
      () => new Error('timeout'),
      () => undefined,
    );
    waiters.rejectAll(new GatewayError('gone'));
    await expect(c).rejects.toThrow('gone');
    expect(waiters.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('times out one waiter alone, then calls onGiveUp', async () => {
    vi.useFakeTimers();
    const waiters = new ConnectWaiters();
    const gaveUp = vi.fn();
    const short = waiters.wait(100, undefined, () => new GatewayError('too slow'), gaveUp);
    const long = waiters.wait(
      1000,
      undefined,
      () => new GatewayError('too slow'),
      () => undefined,
    );
    const settled = short.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(100);
    expect(await settled).toBeInstanceOf(GatewayError);
    expect(gaveUp).toHaveBeenCalledTimes(1);
    expect(waiters.size).toBe(1);
    waiters.resolveAll();
    await long;
  });

  it('rejects at once for an aborted signal, and on a later abort', async () => {
    const waiters = new ConnectWaiters();
    await expect(
      waiters.wait(
        1000,
        AbortSignal.abort('stop'),
        () => new Error('timeout'),
        () => undefined,
      ),
    ).rejects.toThrow(/aborted/);
    const controller = new AbortController();
    const gaveUp = vi.fn();
    const pending = waiters.wait(60_000, controller.signal, () => new Error('timeout'), gaveUp);
    controller.abort('later');
    await expect(pending).rejects.toMatchObject({ cause: 'later' });
    expect(gaveUp).toHaveBeenCalledTimes(1);
    expect(waiters.size).toBe(0);
  });
});
