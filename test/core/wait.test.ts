import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KeyedQueue, wait } from '../../src/core/wait.js';
import { trackUnhandledRejections } from '../helpers/index.js';

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

  it('a promise it no longer waits for (the signal had aborted) never ends as an unhandled rejection', async () => {
    vi.useRealTimers();
    const unhandled = trackUnhandledRejections();
    try {
      const controller = new AbortController();
      controller.abort('gone');
      let fail!: (error: Error) => void;
      const pending = new Promise<never>((_, reject) => (fail = reject));
      await expect(wait(pending, { signal: controller.signal })).rejects.toBe('gone');
      fail(new Error('failed after the caller left'));
      // Node reports an unhandled rejection after the microtasks of the turn it happened in.
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled.count, 'unhandled rejections of the abandoned promise').toBe(0);
    } finally {
      unhandled.stop();
    }
  });

  it('passes a promise through when nothing can end the wait early', async () => {
    const pending = Promise.resolve(7);
    await expect(wait(pending)).resolves.toBe(7);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('KeyedQueue: one task at a time per key', () => {
  it('runs a key’s tasks in order (a failure does not stop the next), other keys at once, and forgets idle keys', async () => {
    const queue = new KeyedQueue<string>();
    const log: string[] = [];
    let release: () => void = () => undefined;
    const first = queue.run('a', () => new Promise<void>((resolve) => (release = resolve)).then(() => void log.push('a1')));
    const failing = queue.run('a', async () => {
      log.push('a2');
      throw new Error('a2 failed');
    });
    const third = queue.run('a', async () => void log.push('a3'));
    await queue.run('b', async () => void log.push('b1'));
    // b ran while a1 still held its key.
    expect(log).toEqual(['b1']);
    // Once the microtasks of b's end have run (a turn of the event loop), only a is held.
    await new Promise((resolve) => setImmediate(resolve));
    expect(queue.size).toBe(1);
    release();
    await first;
    await expect(failing).rejects.toThrow('a2 failed');
    await third;
    expect(log).toEqual(['b1', 'a1', 'a2', 'a3']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(queue.size).toBe(0);
  });
});

describe('KeyedQueue with a signal', () => {
  it('a task whose signal aborts while queued rejects at once, never runs, and the next still waits for the one before', async () => {
    const queue = new KeyedQueue<number>();
    const log: string[] = [];
    let release: () => void = () => undefined;
    const first = queue.run(1, () => new Promise<void>((resolve) => (release = resolve)).then(() => void log.push('first')));
    const controller = new AbortController();
    const skipped = queue.run(1, async () => void log.push('skipped'), controller.signal);
    const last = queue.run(1, async () => void log.push('last'));
    controller.abort(new Error('gave up'));
    await expect(skipped).rejects.toThrow('gave up');
    expect(log).toEqual([]);
    release();
    await Promise.all([first, last]);
    expect(log).toEqual(['first', 'last']);
  });
});

describe('KeyedQueue and runInTurn: nothing left behind', () => {
  const turnOfTheLoop = () => new Promise((resolve) => setImmediate(resolve));

  it('forgets a key whose queued task was aborted once its lane is idle: 1000 such keys leave no lane', async () => {
    const queue = new KeyedQueue<string>();
    for (let i = 0; i < 1000; i++) {
      let release: () => void = () => undefined;
      const first = queue.run(`k${i}`, () => new Promise<void>((resolve) => (release = resolve)));
      const controller = new AbortController();
      const aborted = queue.run(`k${i}`, async () => undefined, controller.signal);
      controller.abort(new Error('gave up'));
      await expect(aborted).rejects.toThrow('gave up');
      release();
      await first;
    }
    await turnOfTheLoop();
    expect(queue.size, 'lanes left for 1000 idle keys').toBe(0);
    // A signal already aborted on a new key never takes a turn, and leaves no lane either.
    const controller = new AbortController();
    controller.abort(new Error('before'));
    await expect(queue.run('never', async () => undefined, controller.signal)).rejects.toThrow('before');
    expect(queue.size, 'lanes left by a task refused at once').toBe(0);
  });

  it('a task that throws synchronously rejects, ends its turn and frees its lane, with or without a signal', async () => {
    const unhandled = trackUnhandledRejections();
    try {
      const queue = new KeyedQueue<string>();
      const throwing = (() => {
        throw new Error('threw at once');
      }) as () => Promise<void>;
      // First in its lane (the fast path).
      await expect(queue.run('alone', throwing)).rejects.toThrow('threw at once');
      // Queued behind another, with a signal.
      let release: () => void = () => undefined;
      const first = queue.run('k', () => new Promise<void>((resolve) => (release = resolve)));
      const second = queue.run('k', throwing, new AbortController().signal);
      const third = queue.run('k', async () => 'third ran');
      release();
      await first;
      await expect(second).rejects.toThrow('threw at once');
      await expect(third, 'the task after the one that threw').resolves.toBe('third ran');
      await turnOfTheLoop();
      expect(queue.size, 'lanes left after tasks that threw').toBe(0);
      expect(unhandled.count, 'unhandled rejections').toBe(0);
    } finally {
      unhandled.stop();
    }
  });
});
