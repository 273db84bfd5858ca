/**
 * The one home of the SDK's bounds on numbers and option names: every
 * duration, count or size a caller passes is checked here (a `ValidationError`
 * naming the option), every number read from the network or from Redis is
 * clamped here, and every options object is checked for unknown keys here.
 *
 * Node's timers turn a delay past 2^31 - 1 ms (about 24.8 days) into 1 ms, so
 * no duration may exceed {@link MAX_TIMER_MS}.
 *
 * @module
 */

import { ValidationError, type ValidationIssue } from '../errors/local.js';

/** The longest delay a Node, Bun or Deno timer honours: 2^31 - 1 ms (about 24.8 days). */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * The default bound on a bot's shard count (`maxShards` of the Gateway and of the shard coordinator): a count past it,
 * asked for or read from the service or Redis, is refused or reported, so one typo can't make every step loop over a
 * hundred thousand shards.
 */
export const DEFAULT_MAX_SHARDS = 10_000;

/** The largest `maxShards` accepted, by the Gateway and by the shard coordinator. */
export const MAX_SHARDS_LIMIT = 65_536;

/** The bounds of a numeric option. */
export interface NumberBounds {
  /** The smallest value accepted. @default 0 */
  readonly min?: number;
  /** The largest value accepted. @default MAX_TIMER_MS for durations, Number.MAX_SAFE_INTEGER for counts */
  readonly max?: number;
  /** Whether only whole numbers are accepted. @default true for counts, false for durations */
  readonly integer?: boolean;
}

function numberProblem(value: unknown, min: number, max: number, integer: boolean): string | undefined {
  if (typeof value !== 'number' || Number.isNaN(value)) return `must be a number (got ${describe(value)})`;
  if (!Number.isFinite(value)) return `must be finite, from ${min} to ${max} (got ${value})`;
  if (integer && !Number.isInteger(value)) return `must be a whole number (got ${value})`;
  if (value < min) return `must be at least ${min} (got ${value})`;
  if (value > max) return `must be at most ${max} (got ${value})`;
  return undefined;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : String(value);
}

/**
 * The problem with a number, or `undefined` when it is within bounds. For
 * callers that gather several issues into one `ValidationError`.
 */
function numberIssue(name: string, value: unknown, bounds: NumberBounds & { readonly integer: boolean; readonly max: number }): ValidationIssue | undefined {
  const problem = numberProblem(value, bounds.min ?? 0, bounds.max, bounds.integer);
  return problem === undefined ? undefined : { path: name, message: problem };
}

/**
 * Checks an optional duration option in milliseconds: `undefined` passes;
 * anything else must be a finite number within `[min, max]` (by default
 * `[0, MAX_TIMER_MS]`), or a `ValidationError` naming `operation` and `name`
 * is thrown. Returns the value, so it reads as an assignment.
 */
export function checkDuration<T extends number | undefined>(operation: string, name: string, value: T, bounds: NumberBounds = {}): T {
  if (value === undefined) return value;
  const max = Math.min(bounds.max ?? MAX_TIMER_MS, MAX_TIMER_MS);
  const issue = numberIssue(name, value, { min: bounds.min ?? 0, max, integer: bounds.integer ?? false });
  if (issue) throw new ValidationError(operation, [issue]);
  return value;
}

/**
 * Checks an optional count option (shards, concurrency, sizes): `undefined`
 * passes; anything else must be a whole number within `[min, max]` (by
 * default `[0, Number.MAX_SAFE_INTEGER]`), or a `ValidationError` naming it is
 * thrown. Returns the value.
 */
export function checkCount<T extends number | undefined>(operation: string, name: string, value: T, bounds: NumberBounds = {}): T {
  if (value === undefined) return value;
  const issue = numberIssue(name, value, { min: bounds.min ?? 0, max: bounds.max ?? Number.MAX_SAFE_INTEGER, integer: bounds.integer ?? true });
  if (issue) throw new ValidationError(operation, [issue]);
  return value;
}

/**
 * A number that came from the network or from Redis, made safe to use: a
 * finite number is clamped into `[min, max]`; anything else (not a number, a
 * numeric string that is not plain decimal, NaN, an infinity) gives `fallback`.
 * Numeric strings are read only when they are plain decimals (`"1e1"` and
 * `"0x10"` are not numbers here).
 */
export function clampNumber(value: unknown, min: number, max: number, fallback: number): number {
  let number: number;
  if (typeof value === 'number') number = value;
  else if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)) number = Number(value);
  else return fallback;
  if (!Number.isFinite(number)) return fallback;
  return Math.min(max, Math.max(min, number));
}

/**
 * A whole number that came from the network or from Redis, within `[min, max]`, or `undefined`: a value past a bound
 * reads as missing, not clamped onto the bound (which would show it as real). Numeric strings are read only when they
 * are plain decimals, as by {@link clampNumber}.
 */
export function wholeWithin(value: unknown, min: number, max: number): number | undefined {
  const n = clampNumber(value, Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY, Number.NaN);
  return Number.isInteger(n) && n >= min && n <= max ? n : undefined;
}

/**
 * Why a string a caller's function returned at run time (a key, a name) is out of its bounds, or `undefined` when it is a
 * string of 1 to `maxLength` characters. For the caller to report; nothing is thrown, so what the function was asked
 * about is not lost.
 */
export function textProblem(value: unknown, maxLength: number): string | undefined {
  if (typeof value !== 'string') return `must be a string (got ${value === null ? 'null' : typeof value})`;
  if (value.length === 0 || value.length > maxLength) return `must be 1 to ${maxLength} characters (got ${value.length})`;
  return undefined;
}

/**
 * Refuses keys of an options object that the constructor does not know: a
 * `ValidationError` naming each unknown key, with its new name where it was
 * renamed (`renamed`: old name to a hint such as `'clock'`). `undefined` or a
 * non-object `options` passes (the caller's own type check reports those).
 */
export function refuseUnknownOptions(operation: string, options: unknown, known: readonly string[], renamed: Readonly<Record<string, string>> = {}): void {
  if (options === null || typeof options !== 'object') return;
  const issues: ValidationIssue[] = [];
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const now = Object.hasOwn(renamed, key) ? renamed[key] : undefined;
    issues.push({ path: key, message: now === undefined ? `is not an option of ${operation}` : `was renamed or removed: use ${now}` });
  }
  if (issues.length > 0) throw new ValidationError(operation, issues);
}

/**
 * The names of an options type, from an object that must list every one of them (`true` each): written next to the
 * type, so the compiler refuses the list when an option is added to the type and not here, or listed and not in the
 * type. What {@link refuseUnknownOptions} takes as `known`.
 *
 * @example
 * ```ts
 * const RECEIVER_OPTIONS = optionNames<WebhookReceiverOptions>({ secret: true, clock: true, ... });
 * ```
 */
export function optionNames<T>(names: { readonly [K in keyof Required<T>]: true }): readonly string[] {
  return Object.freeze(Object.keys(names));
}
