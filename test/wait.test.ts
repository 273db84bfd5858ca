import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { wait } from '../src/wait.js';

/** Everything a finished wait must have let go of: its timer and its abort listener. */
function leftBehind(signal: AbortSignal): number {
  return vi.getTimerCount() + getEventListeners(signal, 'abort').length;
}

describe('wait: the one abortable wait', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sleeps the time given, then lets go of its timer and listener', async () => {
    const signal = new AbortController().signal;
    let done = false;
    const sleeping = wait(1000, { signal }).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await sleeping;
    expect(done).toBe(true);
    expect(leftBehind(signal)).toBe(0);
  });

  it('rejects when the signal aborts, with the reason or what onAbort makes of it, at once when it already has', async () => {
    const controller = new AbortController();
    const sleeping = wait(60_000, { signal: controller.signal });
    const mapped = wait(new Promise<never>(() => undefined), { signal: controller.signal, onAbort: (reason) => new Error(`stopped: ${String(reason)}`) });
    controller.abort('bye');
    await expect(sleeping).rejects.toBe('bye');
    await expect(mapped).rejects.toThrow('stopped: bye');
    expect(leftBehind(controller.signal)).toBe(0);
    await expect(wait(10, { signal: controller.signal })).rejects.toBe('bye');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('waits for a promise up to timeoutMs: onTimeout rejects, without it the timeout resolves undefined; a settled promise clears the timer', async () => {
    const signal = new AbortController().signal;
    const never = new Promise<string>(() => undefined);
    const timedOut = expect(wait(never, { signal, timeoutMs: 500, onTimeout: () => new Error('too late') })).rejects.toThrow('too late');
    const quiet = expect(wait(never, { timeoutMs: 500 })).resolves.toBeUndefined();
    await vi.advanceTimersByTimeAsync(500);
    await timedOut;
    await quiet;
    expect(leftBehind(signal)).toBe(0);

    await expect(wait(Promise.resolve('value'), { signal, timeoutMs: 500, onTimeout: () => new Error('too late') })).resolves.toBe('value');
    await expect(wait(Promise.reject(new Error('failed')), { signal, timeoutMs: 500 })).rejects.toThrow('failed');
    expect(leftBehind(signal)).toBe(0);
  });

  it('passes a promise through when nothing can end the wait early', async () => {
    const pending = Promise.resolve(7);
    await expect(wait(pending)).resolves.toBe(7);
    expect(vi.getTimerCount()).toBe(0);
  });
});
