/**
 * Publishes a Gateway's session life (connect, ready, resume, reconnect,
 * close) on the SDK's diagnostics channels, from its public events only.
 * Typed structurally, so the request layer does not import the Gateway.
 *
 * @module
 */

import { channels, type GatewayCloseMessage, type GatewayConnectMessage, type GatewayReadyMessage, type GatewayResumeMessage } from './diagnostics.js';

/** What this module needs of a Gateway: its lifecycle events and `connect()`. */
export interface ObservableGateway {
  on(event: 'ready', listener: (event: { shardId: number }) => void): unknown;
  on(event: 'resumed', listener: (event: { shardId: number; replayed: number }) => void): unknown;
  on(event: 'reconnecting', listener: (event: { shardId: number; attempt: number; delayMs: number; resume: boolean }) => void): unknown;
  on(event: 'close', listener: (event: { shardId: number; code: number; willReconnect: boolean }) => void): unknown;
  connect(options?: { signal?: AbortSignal | undefined }): Promise<void>;
}

/**
 * Listens to `gateway`'s lifecycle events and wraps its `connect()`, publishing
 * each on its channel when the channel has subscribers. Only ids, codes,
 * counts and durations are published: never a session id, a token or the
 * close reason text. Returns `gateway`.
 */
export function observeGateway<G extends ObservableGateway>(gateway: G, now: () => number): G {
  gateway.on('ready', (event) => {
    if (channels.gatewayReady.hasSubscribers) channels.gatewayReady.publish({ shardId: event.shardId } satisfies GatewayReadyMessage);
  });
  gateway.on('resumed', (event) => {
    if (channels.gatewayResume.hasSubscribers)
      channels.gatewayResume.publish({ shardId: event.shardId, replayed: event.replayed } satisfies GatewayResumeMessage);
  });
  gateway.on('reconnecting', (event) => {
    if (channels.gatewayConnect.hasSubscribers) {
      channels.gatewayConnect.publish({
        phase: 'reconnect',
        shardId: event.shardId,
        attempt: event.attempt,
        delayMs: event.delayMs,
        resume: event.resume,
      } satisfies GatewayConnectMessage);
    }
  });
  gateway.on('close', (event) => {
    if (channels.gatewayClose.hasSubscribers)
      channels.gatewayClose.publish({ shardId: event.shardId, code: event.code, willReconnect: event.willReconnect } satisfies GatewayCloseMessage);
  });
  const connect = gateway.connect.bind(gateway);
  gateway.connect = (options) => {
    if (!channels.gatewayConnect.hasSubscribers) return connect(options);
    const started = now();
    channels.gatewayConnect.publish({ phase: 'start' } satisfies GatewayConnectMessage);
    return connect(options).then(
      () => {
        channels.gatewayConnect.publish({ phase: 'end', durationMs: now() - started } satisfies GatewayConnectMessage);
      },
      (error: unknown) => {
        channels.gatewayConnect.publish({
          phase: 'error',
          durationMs: now() - started,
          errorName: error instanceof Error ? error.name : typeof error,
        } satisfies GatewayConnectMessage);
        throw error;
      },
    );
  };
  return gateway;
}
