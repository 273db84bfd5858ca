/**
 * Gateway transport compression, the rules: which methods there are, which
 * one "the best available" is on this runtime, and how the Gateway URL asks
 * for it (`compress=` in the query, as Discord's does). No `node:zlib` here:
 * the streams that inflate live in `inflate.ts`, loaded with the connection.
 *
 * @module
 */

import { currentRuntime } from '../core/runtime.js';
import { ValidationError } from '../errors/local.js';

/**
 * A Gateway transport compression (Discord's `compress` query parameter):
 * `zstd-stream` (one zstd context per connection, needs `node:zlib`'s zstd,
 * Node 22.15 or later), `zlib-stream` (one zlib context per connection, each
 * message ends in `00 00 ff ff`), or `none`.
 */
export type GatewayCompression = 'zstd-stream' | 'zlib-stream' | 'none';

const METHODS: readonly GatewayCompression[] = ['zstd-stream', 'zlib-stream', 'none'];

/** Whether this runtime's `node:zlib` has zstd decompression (Node 22.15 and later). */
export function zstdAvailable(): boolean {
  // getBuiltinModule, not an import: the rule is read where the options are, which must not load node:zlib.
  const zlib = globalThis.process?.getBuiltinModule?.('node:zlib') as { createZstdDecompress?: unknown } | undefined;
  return typeof zlib?.createZstdDecompress === 'function';
}

/**
 * The compression a connection asks for: `value` checked, or the best
 * available when unset (`zstd-stream` where `node:zlib` has zstd, else
 * `zlib-stream`). Throws a `ValidationError` for an unknown value, or for
 * `zstd-stream` on a runtime without zstd, or `zlib-stream` on Deno, whose
 * `node:zlib` ignores the inflate history it needs (`hasZstd` and `zlibWorks`
 * are for tests).
 */
export function resolveCompression(value: unknown, hasZstd: boolean = zstdAvailable(), zlibWorks: boolean = currentRuntime() !== 'deno'): GatewayCompression {
  if (value === undefined) return hasZstd ? 'zstd-stream' : zlibWorks ? 'zlib-stream' : 'none';
  if (!METHODS.includes(value as GatewayCompression)) {
    const got = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : typeof value;
    throw new ValidationError('gateway', [{ path: 'compression', message: `must be one of ${METHODS.join(', ')} (got ${got})` }]);
  }
  if (value === 'zstd-stream' && !hasZstd) {
    const runtime = globalThis.process?.versions?.node === undefined ? 'this runtime' : `Node ${globalThis.process.versions.node}`;
    throw new ValidationError('gateway', [
      {
        path: 'compression',
        message: `'zstd-stream' needs zstd in node:zlib (Node 22.15 or later), which ${runtime} lacks; use 'zlib-stream', or leave it unset for the best available`,
      },
    ]);
  }
  if (value === 'zlib-stream' && !zlibWorks) {
    const message =
      "'zlib-stream' needs an inflate history (dictionary), which Deno's node:zlib ignores (a message after the first fails); use 'zstd-stream' or 'none', or leave it unset";
    throw new ValidationError('gateway', [{ path: 'compression', message }]);
  }
  return value as GatewayCompression;
}

/** The Gateway URL asking for `compression`: `compress=` set in its query (replacing one it had), or removed for `none`. */
export function compressedUrl(url: string, compression: GatewayCompression): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // An invalid URL is refused where the socket opens, with its own message.
    return url;
  }
  if (compression === 'none') {
    if (!parsed.searchParams.has('compress')) return url;
    parsed.searchParams.delete('compress');
  } else parsed.searchParams.set('compress', compression);
  return parsed.toString();
}
