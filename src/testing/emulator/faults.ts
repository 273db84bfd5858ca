/**
 * Faults on demand: the next N calls of an operation (or of any) answer a
 * chosen status in the service's wording, wait a while first, or have their
 * connection reset; plus the standing knobs (latency on every call, a share
 * of 503s).
 *
 * @module
 */

import type { OperationId } from '../../core/routes.js';
import { HttpError } from './responses.js';
import type { RateLimitScope } from './limits.js';

/** The statuses a fault can answer with. */
export type FaultStatus = 401 | 403 | 404 | 429 | 500 | 503;

/** One fault to inject (see {@link EmulatorFaults.next}). */
export interface FaultInput {
  /** The operation whose next calls it hits (a contract operation id, e.g. `executeWebhook`), or `'*'` for any REST call. @default '*' */
  operation?: OperationId | '*';
  /** How many calls it hits. @default 1 */
  times?: number;
  /** The status to answer with, its body worded as the service words it. @default undefined (answered normally, after `latencyMs`) */
  status?: FaultStatus;
  /** For a 429: the `Retry-After` to announce, milliseconds. @default 1000 */
  retryAfterMs?: number;
  /** For a 429: `X-RateLimit-Scope` (`global` also sets `X-RateLimit-Global` and the body's `global`). @default 'user' */
  scope?: RateLimitScope;
  /** Milliseconds to wait before answering. @default 0 */
  latencyMs?: number;
  /** Reset the connection instead of answering (nothing is handled; the client sees a network failure). @default false */
  reset?: boolean;
}

/** A fault waiting for calls to hit (see {@link EmulatorFaults.next}). */
export interface InjectedFault {
  /** What it does. */
  readonly input: Readonly<FaultInput>;
  /** Calls it will still hit. */
  readonly remaining: number;
  /** Resolves once it has hit its last call (or was cancelled). */
  readonly done: Promise<void>;
  /** Stops it before it has hit every call. */
  cancel(): void;
}

/** A fault still waiting for calls (see {@link EmulatorFaults.pending}). */
export interface PendingFault {
  /** What it does. */
  input: Readonly<FaultInput>;
  /** Calls it will still hit. */
  remaining: number;
}

/** What a call hit: the wait first, then a reset, an error to answer, or (neither) the normal answer. */
export interface FaultHit {
  /** Milliseconds to wait first. */
  latencyMs: number;
  /** Reset the connection instead of answering. */
  reset: boolean;
  /** The error to answer with, when the fault has a status. */
  error: HttpError | undefined;
}

/** The most faults queued at once: a test that injects in a loop without calls gets an error, not a leak. */
const MAX_FAULTS = 1000;

/** The Not Found wording of each resource, by the path parameter naming it (Discord's codes). */
const UNKNOWN: Readonly<Record<string, readonly [string, number]>> = {
  webhook_id: ['Unknown Webhook', 10015],
  channel_id: ['Unknown Channel', 10003],
  application_id: ['Unknown Application', 10002],
  guild_id: ['Unknown Guild', 10004],
  interaction_id: ['Unknown interaction', 10062],
  command_id: ['Unknown application command', 10063],
};

/** The error body the service answers for `status` on a route (Discord's wording; docs/assumptions.md records it). */
export function faultError(status: FaultStatus, input: FaultInput, routePath: string | undefined): HttpError {
  if (status === 404) {
    // The most specific resource the route names: a command of an application is an unknown command.
    const named = [...(routePath ?? '').matchAll(/\{(\w+)\}/g)].map((found) => UNKNOWN[found[1] as string]).filter((entry) => entry !== undefined);
    const [message, code] = named.at(-1) ?? ['404: Not Found', 0];
    return new HttpError(404, message, code);
  }
  if (status === 429) {
    const retryAfterMs = input.retryAfterMs ?? 1000;
    const scope = input.scope ?? 'user';
    const global = scope === 'global';
    const headers: Record<string, string> = { 'retry-after': String(Math.ceil(retryAfterMs / 1000)), 'x-ratelimit-scope': scope };
    if (global) headers['x-ratelimit-global'] = 'true';
    return new HttpError(429, 'You are being rate limited.', 0, { retry_after: retryAfterMs / 1000, global }, headers);
  }
  const [message, code] = WORDING[status];
  return new HttpError(status, message, code);
}

/** The other statuses' wording and code (Discord's). */
const WORDING: Readonly<Record<Exclude<FaultStatus, 404 | 429>, readonly [string, number]>> = {
  401: ['401: Unauthorized', 0],
  403: ['Missing Permissions', 50013],
  500: ['500: Internal Server Error', 0],
  503: ['503: Service Unavailable', 0],
};

interface Queued {
  readonly input: Readonly<FaultInput>;
  remaining: number;
  resolve: () => void;
}

/** The emulator's faults: standing knobs, and faults queued for the next calls. */
export class EmulatorFaults {
  /** Milliseconds added before every REST call is handled. @default 0 */
  latencyMs = 0;
  /** Share of REST calls answered with an injected 503, from 0 (none) to 1 (all). @default 0 */
  errorRate = 0;
  readonly #queued: Queued[] = [];

  /**
   * Makes the next `times` calls of `operation` (or of any call) answer
   * `status`, wait `latencyMs` first, or have their connection reset.
   * Faults apply in the order they were injected; each call is hit by at
   * most one. Throws `TypeError` for input that cannot be a fault.
   */
  next(input: FaultInput): InjectedFault {
    const times = input.times ?? 1;
    if (!Number.isInteger(times) || times < 1) throw new TypeError(`faults.next: times must be a positive integer (got ${String(input.times)})`);
    if (input.status === undefined && input.reset !== true && (input.latencyMs ?? 0) <= 0) {
      throw new TypeError('faults.next: a fault needs a status, reset: true or a latencyMs');
    }
    if (input.latencyMs !== undefined && !(input.latencyMs >= 0 && Number.isFinite(input.latencyMs))) {
      throw new TypeError('faults.next: latencyMs must be a finite number of milliseconds, 0 or more');
    }
    if (this.#queued.length >= MAX_FAULTS) throw new TypeError(`faults.next: ${MAX_FAULTS} faults are already waiting for calls; clear() them`);
    let resolve!: () => void;
    const done = new Promise<void>((settle) => (resolve = settle));
    const entry: Queued = { input: Object.freeze({ ...input }), remaining: times, resolve };
    this.#queued.push(entry);
    const queued = this.#queued;
    return {
      input: entry.input,
      get remaining() {
        return entry.remaining;
      },
      done,
      cancel: () => {
        const at = queued.indexOf(entry);
        if (at >= 0) queued.splice(at, 1);
        entry.remaining = 0;
        resolve();
      },
    };
  }

  /** The faults still waiting for calls, oldest first. */
  get pending(): readonly PendingFault[] {
    return this.#queued.map((entry) => ({ input: entry.input, remaining: entry.remaining }));
  }

  /** Drops every queued fault and sets the standing knobs back to 0. */
  clear(): void {
    for (const entry of this.#queued.splice(0)) {
      entry.remaining = 0;
      entry.resolve();
    }
    this.latencyMs = 0;
    this.errorRate = 0;
  }

  /**
   * The fault a call of `operation` hits, counting it (`undefined`: none).
   * `routePath` (the route's template) words a 404.
   * @internal The router's.
   */
  take(operation: OperationId | undefined, routePath: string | undefined): FaultHit | undefined {
    const at = this.#queued.findIndex((entry) => entry.input.operation === undefined || entry.input.operation === '*' || entry.input.operation === operation);
    if (at < 0) return undefined;
    const entry = this.#queued[at] as Queued;
    if (--entry.remaining === 0) {
      this.#queued.splice(at, 1);
      entry.resolve();
    }
    const { input } = entry;
    return {
      latencyMs: input.latencyMs ?? 0,
      reset: input.reset === true,
      error: input.status === undefined ? undefined : faultError(input.status, input, routePath),
    };
  }
}
