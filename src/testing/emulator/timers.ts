/**
 * The emulator's real-time timers and in-flight requests (delivery retries,
 * interaction expiry), kept per state so that closing the emulator stops them.
 * Timers are unref'd: they never keep a process alive on their own.
 *
 * @module
 */

import type { EmulatorState } from './state.js';

interface Runtime {
  readonly timers: Set<NodeJS.Timeout>;
  readonly controllers: Set<AbortController>;
  /** Called once every request in flight has ended, after closing. */
  readonly drained: (() => void)[];
  closed: boolean;
}

const runtimes = new WeakMap<EmulatorState, Runtime>();

function runtimeOf(state: EmulatorState): Runtime {
  let runtime = runtimes.get(state);
  if (!runtime) {
    runtime = { timers: new Set(), controllers: new Set(), drained: [], closed: false };
    runtimes.set(state, runtime);
  }
  return runtime;
}

/** Whether the emulator was closed (nothing new starts then). */
export function isClosed(state: EmulatorState): boolean {
  return runtimeOf(state).closed;
}

/** Runs `task` after `delayMs` of real time, unless the emulator closes first. */
export function schedule(state: EmulatorState, delayMs: number, task: () => void): void {
  const runtime = runtimeOf(state);
  if (runtime.closed) return;
  const timer = setTimeout(
    () => {
      runtime.timers.delete(timer);
      if (!runtime.closed) task();
    },
    Math.max(0, delayMs),
  );
  timer.unref();
  runtime.timers.add(timer);
}

/** An abort signal that `abort` and closing the emulator abort; call `done` when the request ends. */
export function track(state: EmulatorState): { signal: AbortSignal; abort: () => void; done: () => void } {
  const runtime = runtimeOf(state);
  const controller = new AbortController();
  if (runtime.closed) controller.abort();
  runtime.controllers.add(controller);
  const done = () => {
    runtime.controllers.delete(controller);
    if (runtime.closed && runtime.controllers.size === 0) for (const resolve of runtime.drained.splice(0)) resolve();
  };
  return { signal: controller.signal, abort: () => controller.abort(), done };
}

/** Stops every timer and aborts every request in flight; resolves once those requests have ended. */
export function stopTimers(state: EmulatorState): Promise<void> {
  const runtime = runtimeOf(state);
  runtime.closed = true;
  for (const timer of runtime.timers) clearTimeout(timer);
  runtime.timers.clear();
  for (const controller of runtime.controllers) controller.abort();
  if (runtime.controllers.size === 0) return Promise.resolve();
  return new Promise((resolve) => runtime.drained.push(resolve));
}

/** Stops every timer and aborts every request in flight, as closing does, but new ones may start (the emulator's `reset()`). */
export function cancelTimers(state: EmulatorState): void {
  const runtime = runtimeOf(state);
  for (const timer of runtime.timers) clearTimeout(timer);
  runtime.timers.clear();
  for (const controller of runtime.controllers) controller.abort();
}
