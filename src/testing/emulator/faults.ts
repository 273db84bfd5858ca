/**
 * Faults on demand: the next N calls of an operation (or of any) answer a
 * chosen status in the service's wording, wait a while first, or have their
 * connection reset; plus the standing knobs (latency on every call, a share
 * of 503s).
 *
 * @module
 */

import { checkCount, checkDuration, refuseUnknownOptions } from '../../core/bounds.js';
import { type OperationId, operationIds } from '../../core/routes.js';
import { ValidationError, type ValidationIssue } from '../../errors/local.js';
import { HttpError } from './responses.js';
import type { RateLimitScope } from './limits.js';

/** The statuses a fault can answer with. */
export type FaultStatus = 401 | 403 | 404 | 429 | 500 | 503;

/** Every {@link FaultStatus}, to check a fault against. */
export const FAULT_STATUSES: readonly FaultStatus[] = [401, 403, 404, 429, 500, 503];
/** Every {@link RateLimitScope}. */
const SCOPES: readonly RateLimitScope[] = ['user', 'global', 'shared'];
/** The fields of a {@link FaultInput}. */
const FAULT_FIELDS = ['operation', 'times', 'status', 'retryAfterMs', 'scope', 'latencyMs', 'reset'] as const;
/** The most calls one fault may hit. */
const MAX_FAULT_TIMES = 1_000_000;

/** Why `input` cannot be a fault (each field named, the valid values listed), or nothing. */
function faultIssues(input: FaultInput): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const { operation, status, scope, reset } = input as Record<string, unknown>;
  if (operation !== undefined && operation !== '*' && !operationIds.includes(operation as OperationId)) {
    issues.push({
      path: 'operation',
      message: `must be '*' or a contract operation id, one of: ${operationIds.join(', ')} (got ${JSON.stringify(operation)})`,
    });
  }
  if (status !== undefined && !FAULT_STATUSES.includes(status as FaultStatus)) {
    issues.push({ path: 'status', message: `must be one of the numbers ${FAULT_STATUSES.join(', ')} (got ${JSON.stringify(status)})` });
  }
  if (scope !== undefined && !SCOPES.includes(scope as RateLimitScope)) {
    issues.push({ path: 'scope', message: `must be one of ${SCOPES.map((one) => `'${one}'`).join(', ')} (got ${JSON.stringify(scope)})` });
  }
  if (reset !== undefined && typeof reset !== 'boolean') issues.push({ path: 'reset', message: `must be a boolean (got ${JSON.stringify(reset)})` });
  return issues;
}

/** One fault to inject (see {@link EmulatorFaults.next}). */
export interface FaultInput {
  /** The operation whose next calls it hits (a contract operation id, e.g. `webhooks.execute` or `channels.get`), or `'*'` for any REST call. @default '*' */
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
interface FaultHit {
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
function faultError(status: FaultStatus, input: FaultInput, routePath: string | undefined): HttpError {
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
  #latencyMs = 0;
  #errorRate = 0;
  readonly #queued: Queued[] = [];

  /**
   * Milliseconds added before every REST call is handled, from 0 to
   * 2147483647 (a `ValidationError` otherwise). @default 0
   */
  get latencyMs(): number {
    return this.#latencyMs;
  }

  /** Sets it; a `ValidationError` for a value that is not a duration from 0 to 2147483647 ms. */
  set latencyMs(ms: number) {
    this.#latencyMs = checkDuration('faults.latencyMs', 'latencyMs', ms);
  }

  /** Share of REST calls answered with an injected 503, from 0 (none) to 1 (all); a `ValidationError` otherwise. @default 0 */
  get errorRate(): number {
    return this.#errorRate;
  }

  /** Sets it; a `ValidationError` for a value that is not a number from 0 to 1. */
  set errorRate(rate: number) {
    this.#errorRate = checkCount('faults.errorRate', 'errorRate', rate, { max: 1, integer: false });
  }

  /**
   * Makes the next `times` calls of `operation` (or of any call) answer
   * `status`, wait `latencyMs` first, or have their connection reset.
   * Faults apply in the order they were injected; each call is hit by at
   * most one. Throws `ValidationError` naming each field that cannot be a
   * fault (an unknown operation or status, with the valid ones listed).
   */
  next(input: FaultInput): InjectedFault {
    refuseUnknownOptions('faults.next', input, FAULT_FIELDS);
    const times = checkCount('faults.next', 'times', input.times, { min: 1, max: MAX_FAULT_TIMES }) ?? 1;
    checkDuration('faults.next', 'latencyMs', input.latencyMs);
    checkDuration('faults.next', 'retryAfterMs', input.retryAfterMs);
    const issues = faultIssues(input);
    if (issues.length > 0) throw new ValidationError('faults.next', issues);
    if (input.status === undefined && input.reset !== true && (input.latencyMs ?? 0) <= 0) {
      throw new ValidationError('faults.next', [{ path: 'status', message: 'a fault needs a status, reset: true or a latencyMs' }]);
    }
    if (this.#queued.length >= MAX_FAULTS) {
      throw new ValidationError('faults.next', [{ path: 'times', message: `${MAX_FAULTS} faults are already waiting for calls; clear() them` }]);
    }
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

  /** The standing knobs, as the playground shows them. */
  toJSON(): {
    /** See {@link EmulatorFaults.latencyMs}. */
    latencyMs: number;
    /** See {@link EmulatorFaults.errorRate}. */
    errorRate: number;
  } {
    return { latencyMs: this.#latencyMs, errorRate: this.#errorRate };
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
    this.#latencyMs = 0;
    this.#errorRate = 0;
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
