/**
 * What `gateway.connect()` checks before it opens anything: a bot token,
 * a usable URL and headers, and consistent sharding options.
 *
 * @module
 */

import { currentRuntime, type RuntimeName } from '../core/runtime.js';
import { GatewayError, ValidationError, isSessionStoreError } from '../errors/index.js';
import type { ShardCoordinator } from './coordinator.js';
import { checkGatewayOptions, type GatewayShardingOptions, type ResolvedGatewayOptions } from './options.js';
import { checkShardingOptions } from './shard-plan.js';
import { checkGatewayUrl, upgradeHeaders } from './transport.js';

/** What a Worker is told when it calls `gateway.connect()`. */
export const NO_GATEWAY_ON_WORKERS =
  'the Gateway needs a long-lived WebSocket client, which Cloudflare Workers do not run: receive interactions over HTTP instead, with createWebhookReceiver({ secret, client, router }) and `export default { fetch: (request, env, ctx) => receiver.fetch(request, ctx) }` (see examples/cloudflare-worker)';

/**
 * Throws `GatewayError` on a runtime that cannot hold a Gateway session
 * (Cloudflare's workerd), `ValidationError` / `InsecureTransportError` for
 * options the Gateway cannot connect with.
 */
export function checkConnectOptions(
  options: ResolvedGatewayOptions,
  sharding: GatewayShardingOptions,
  token: string | undefined,
  allowInsecure: boolean,
  runtime: RuntimeName = currentRuntime(),
): void {
  if (runtime === 'workerd') throw new GatewayError(NO_GATEWAY_ON_WORKERS);
  if (token === undefined) {
    throw new ValidationError('gateway.connect', [{ path: 'auth.botToken', message: 'the Gateway identifies with the bot token; the client has none' }]);
  }
  checkGatewayUrl(options.url, allowInsecure);
  upgradeHeaders(options.headers);
  checkGatewayOptions('gateway.connect', { ...options, ...sharding });
  checkShardingOptions(sharding);
}

/**
 * An error the Gateway reports or rejects `connect()` with, named for what failed: the Redis shard coordinator's failures
 * are `SessionStoreError`s (it shares the session stores' Redis plumbing), yet the session stores' own failures never
 * reach `connect()` or an `error` event (they are `storeError` events). So with a coordinator, a `SessionStoreError` here
 * is the coordinator's, and becomes a `GatewayError` naming it (the original as its `cause`), rather than blaming a
 * session store that may not be configured.
 */
export function namedFailure(error: Error, coordinator: ShardCoordinator | undefined): Error {
  if (coordinator === undefined || !isSessionStoreError(error)) return error;
  return new GatewayError(`The shard coordinator failed: ${error.detail}`, undefined, { cause: error });
}
