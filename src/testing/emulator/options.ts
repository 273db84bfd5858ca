/**
 * The checks on the emulator's options, through `core/bounds.ts`: an unknown
 * option (a typo, or one of an older shape) is refused with a
 * `ValidationError` naming it, and every duration and count is bounded.
 *
 * @module
 */

import { checkCount, checkDuration, refuseUnknownOptions } from '../../core/bounds.js';
import { ValidationError } from '../../errors/local.js';
import type { EmulatorCoreOptions, WindowLimit } from './types.js';

/** The options of `EmulatorCore` (and so of `createEmulator` and `createMswHandlers`). */
const CORE_OPTIONS = [
  'seed',
  'globalRateLimit',
  'webhookRateLimit',
  'routeRateLimit',
  'accessTokenLifetimeMs',
  'baseUrl',
  'gateway',
  'allowExternalDeliveries',
  'deliveries',
  'deliveryTransport',
] as const;

/** The options `createEmulator` adds to the core's. */
export const SERVER_OPTIONS = ['port', 'host', 'allowedHosts', 'heartbeatIntervalMs', 'playground', 'maxBodyBytes'] as const;

/** Most shards the emulator's Gateway recommends or paces (a fleet test needs a few dozen). */
const MAX_EMULATED_SHARDS = 4096;

function checkWindow(operation: string, name: string, limit: WindowLimit | undefined): void {
  if (limit === undefined) return;
  refuseUnknownOptions(`${operation} ${name}`, limit, ['limit', 'windowMs']);
  checkCount(operation, `${name}.limit`, limit.limit, { min: 1 });
  checkDuration(operation, `${name}.windowMs`, limit.windowMs, { min: 1 });
}

/** Checks the core's options (nested ones included); throws `ValidationError` naming the first at fault. */
export function checkCoreOptions(operation: string, options: EmulatorCoreOptions, extra: readonly string[] = []): void {
  refuseUnknownOptions(operation, options, [...CORE_OPTIONS, ...extra]);
  checkCount(operation, 'seed', options.seed, { max: 2 ** 32 - 1 });
  checkWindow(operation, 'globalRateLimit', options.globalRateLimit);
  checkWindow(operation, 'webhookRateLimit', options.webhookRateLimit);
  checkWindow(operation, 'routeRateLimit', options.routeRateLimit);
  checkDuration(operation, 'accessTokenLifetimeMs', options.accessTokenLifetimeMs, { min: 1 });
  checkBaseUrl(operation, options.baseUrl);
  const { gateway, deliveries } = options;
  if (gateway !== undefined) {
    refuseUnknownOptions(`${operation} gateway`, gateway, ['shards', 'maxConcurrency', 'identifyIntervalMs', 'sessionStartLimit', 'resumeWindowMs']);
    checkCount(operation, 'gateway.shards', gateway.shards, { min: 1, max: MAX_EMULATED_SHARDS });
    checkCount(operation, 'gateway.maxConcurrency', gateway.maxConcurrency, { min: 1, max: MAX_EMULATED_SHARDS });
    checkDuration(operation, 'gateway.identifyIntervalMs', gateway.identifyIntervalMs);
    checkCount(operation, 'gateway.sessionStartLimit', gateway.sessionStartLimit);
    checkDuration(operation, 'gateway.resumeWindowMs', gateway.resumeWindowMs);
  }
  if (deliveries !== undefined) {
    refuseUnknownOptions(`${operation} deliveries`, deliveries, ['retryBaseDelayMs', 'retryMaxDelayMs', 'timeoutMs']);
    checkDuration(operation, 'deliveries.retryBaseDelayMs', deliveries.retryBaseDelayMs);
    checkDuration(operation, 'deliveries.retryMaxDelayMs', deliveries.retryMaxDelayMs);
    checkDuration(operation, 'deliveries.timeoutMs', deliveries.timeoutMs, { min: 1 });
  }
}

/** The core's own options out of a larger options object (`createEmulator`'s). */
export function coreOptionsOf(options: EmulatorCoreOptions): EmulatorCoreOptions {
  const picked: Record<string, unknown> = {};
  for (const key of CORE_OPTIONS) if (key in options) picked[key] = options[key];
  return picked as EmulatorCoreOptions;
}

/** A host name a `Host` header can carry: no port, path, wildcard or whitespace. */
const HOST_NAME = /^[^\s:/*[\]]+$/;

/**
 * Checks `allowedHosts`: `undefined` gives `[]`; otherwise an array of
 * non-empty host names (no `:`, `/`, `*` or whitespace, so no port, path or
 * wildcard), returned lowercased. Throws `ValidationError` naming the first
 * at fault.
 */
export function checkHostNames(operation: string, name: string, value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new ValidationError(operation, [{ path: name, message: 'must be an array of host names, e.g. ["emulator"]' }]);
  return value.map((entry: unknown, index) => {
    if (typeof entry !== 'string' || !HOST_NAME.test(entry))
      throw new ValidationError(operation, [
        {
          path: `${name}[${index}]`,
          message: `must be a host name with no port, path, wildcard or whitespace (got ${typeof entry === 'string' ? JSON.stringify(entry.slice(0, 60)) : typeof entry})`,
        },
      ]);
    return entry.toLowerCase();
  });
}

/**
 * Checks `baseUrl`: `undefined` passes; otherwise an absolute `http:` or
 * `https:` URL. Returns it parsed (or `undefined`); throws `ValidationError`.
 */
export function checkBaseUrl(operation: string, value: unknown): URL | undefined {
  if (value === undefined) return undefined;
  const parsed = typeof value === 'string' && URL.canParse(value) ? new URL(value) : undefined;
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
    throw new ValidationError(operation, [{ path: 'baseUrl', message: 'must be an absolute http:// or https:// URL, e.g. "http://emulator:8080"' }]);
  return parsed;
}

/**
 * The `timeoutMs` of a wait (`waitForIdle`, `waitForBot`): an unknown option
 * is refused, a given `timeoutMs` must be from 1 ms to `MAX_TIMER_MS`
 * (`ValidationError` otherwise). Returns it, or `fallback`.
 */
export function checkWaitTimeout(operation: string, options: { readonly timeoutMs?: number | undefined }, known: readonly string[], fallback: number): number {
  refuseUnknownOptions(operation, options, known);
  return checkDuration(operation, 'timeoutMs', options.timeoutMs, { min: 1 }) ?? fallback;
}
