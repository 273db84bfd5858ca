/**
 * What `gateway.connect()` checks before it opens anything: a bot token,
 * a usable URL and headers, and consistent sharding options.
 *
 * @module
 */

import { ValidationError } from '../errors/index.js';
import type { GatewayShardingOptions, ResolvedGatewayOptions } from './options.js';
import { checkShardingOptions } from './shard-plan.js';
import { checkGatewayUrl, upgradeHeaders } from './transport.js';

/** Throws `ValidationError` / `InsecureTransportError` for options the Gateway cannot connect with. */
export function checkConnectOptions(
  options: ResolvedGatewayOptions,
  sharding: GatewayShardingOptions,
  token: string | undefined,
  allowInsecure: boolean,
): void {
  if (token === undefined) {
    throw new ValidationError('gateway.connect', [{ path: 'auth.botToken', message: 'the Gateway identifies with the bot token; the client has none' }]);
  }
  checkGatewayUrl(options.url, allowInsecure);
  upgradeHeaders(options.headers);
  if (!Number.isInteger(options.maxIdentifyFailures) || options.maxIdentifyFailures < 1) {
    throw new ValidationError('gateway.connect', [{ path: 'gateway.maxIdentifyFailures', message: 'must be a whole number of at least 1' }]);
  }
  checkShardingOptions(sharding);
}
