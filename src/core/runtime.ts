/**
 * Which JavaScript runtime the SDK runs on, told by what each runtime is,
 * not by the Node shims the others carry: Bun and Deno both set
 * `process.versions.node`, and Bun answers `import 'undici'` with a partial
 * shim of its own, so "has process" or "has undici" says nothing.
 *
 * @module
 */

import { EDGE_BUILD } from './edge-build.js';

/** A runtime the SDK tells apart. `other`: none of these (a browser, an edge runtime). */
export type RuntimeName = 'node' | 'bun' | 'deno' | 'workerd' | 'other';

/** The globals the detection reads; `globalThis` unless a test gives its own. */
interface RuntimeGlobals {
  Bun?: { version?: unknown } | undefined;
  Deno?: { version?: { deno?: unknown } } | undefined;
  navigator?: { userAgent?: unknown } | undefined;
  process?: { versions?: { node?: unknown; bun?: unknown } | undefined } | undefined;
}

/**
 * Which runtime `scope` belongs to: Bun and Deno first (both look like Node),
 * each by its version string (a stray `globalThis.Bun = {}` on Node is not
 * Bun), then Cloudflare's workerd (`navigator.userAgent`), then Node.
 */
export function detectRuntime(scope: RuntimeGlobals = globalThis as RuntimeGlobals): RuntimeName {
  if (typeof scope.Bun?.version === 'string' || typeof scope.process?.versions?.bun === 'string') return 'bun';
  if (typeof scope.Deno?.version?.deno === 'string') return 'deno';
  if (scope.navigator?.userAgent === 'Cloudflare-Workers') return 'workerd';
  if (typeof scope.process?.versions?.node === 'string') return 'node';
  return 'other';
}

/** The runtime this process runs on (see {@link detectRuntime}): a few property reads, asked when a client or a Gateway connection is made. */
export function currentRuntime(): RuntimeName {
  return detectRuntime();
}

/** Whether `runtime`'s `undici` is the real one: on Node, and on Deno (which loads it from npm); Bun answers with a partial shim of its own, workerd has none. */
export function undiciRunsOn(runtime: RuntimeName): boolean {
  return runtime === 'node' || runtime === 'deno';
}

/** The REST transport a client uses when none is given: undici's pool on Node, where it is the real undici; `fetch` everywhere else, and always in the edge build. */
export function defaultTransportFor(runtime: RuntimeName, edgeBuild: boolean = EDGE_BUILD): 'undici' | 'fetch' {
  return runtime === 'node' && !edgeBuild ? 'undici' : 'fetch';
}

/** Whether the Gateway can run: not in the edge build (it has no WebSocket client), whatever the runtime, and not on workerd. */
export function gatewayRunsOn(runtime: RuntimeName, edgeBuild: boolean = EDGE_BUILD): boolean {
  return !edgeBuild && runtime !== 'workerd';
}
