/**
 * What `gateway.connect()` checks before it opens anything: a bot token,
 * a usable URL and headers, and consistent sharding options.
 *
 * @module
 */

import { currentRuntime, gatewayRunsOn, type RuntimeName } from '../core/runtime.js';
import { GatewayError, ValidationError } from '../errors/index.js';
import type { ShardCoordinator } from './coordinator.js';
import { checkGatewayOptions, type GatewayShardingOptions, type ResolvedGatewayOptions } from './options.js';
import { checkShardingOptions } from './shard-plan.js';
import { checkGatewayUrl, upgradeHeaders } from './transport.js';

/** What `gateway.connect()` says in the edge build or on workerd: the Gateway is refused before any request, pointing to HTTP interactions. */
export const NO_GATEWAY_ON_WORKERS =
  "the Gateway needs a long-lived WebSocket client, which edge runtimes (workers and edge functions, the SDK's edge build) do not run: receive interactions over HTTP instead, with createWebhookReceiver({ secret, client }) of community-chat-sdk/receiver (receiver.onCommand(...) or receiver.use(router)) and `export default { fetch: (request, env, ctx) => receiver.fetch(request, ctx) }` (see examples/cloudflare-worker)";

/**
 * Throws `GatewayError` where the Gateway cannot run (the edge build, or
 * Cloudflare's workerd), before any request, `ValidationError` / `InsecureTransportError` for
 * options the Gateway cannot connect with.
 */
export function checkConnectOptions(
  options: ResolvedGatewayOptions,
  sharding: GatewayShardingOptions,
  token: string | undefined,
  allowInsecure: boolean,
  runtime: RuntimeName = currentRuntime(),
): void {
  if (!gatewayRunsOn(runtime)) throw new GatewayError(NO_GATEWAY_ON_WORKERS);
  if (token === undefined) {
    throw new ValidationError('gateway.connect', [{ path: 'auth.botToken', message: 'the Gateway identifies with the bot token; the client has none' }]);
  }
  checkGatewayUrl(options.url, allowInsecure);
  upgradeHeaders(options.headers);
  checkGatewayOptions('gateway.connect', { ...options, ...sharding });
  checkShardingOptions(sharding);
}

/**
 * The bot's id as a bot token carries it (Discord's format: the base64 of the bot's id before the first `.`), or
 * `undefined` for a token of another shape (assumption 85).
 */
export function botIdOfToken(token: string | undefined): string | undefined {
  const head = token?.split('.', 1)[0] ?? '';
  if (head === '' || head.length > 32 || !/^[A-Za-z0-9_-]+={0,2}$/.test(head)) return undefined;
  try {
    const id = atob(
      head
        .replace(/-/g, '+')
        .replace(/_/g, '/')
        .replace(/=+$/, '')
        .padEnd(Math.ceil(head.length / 4) * 4, '='),
    );
    return /^[1-9]\d{0,19}$/.test(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Tells a fleet's coordinator which bot this process serves (read from the bot token), so a fleet key shared by two bots
 * by mistake is refused by the coordinator instead of each bot serving part of the shards. A coordinator given `bot`
 * already checks it against this one; a token of another shape records nothing.
 */
export function joinFleet(coordinator: ShardCoordinator, token: string | undefined): void {
  const bot = botIdOfToken(token);
  if (bot !== undefined) coordinator.join?.(bot);
}
