/**
 * A Gateway's session life (connect, ready, resume, reconnect, close) on the
 * SDK's diagnostics channels. The Gateway calls these itself, so one built
 * outside the Client is observed too. Typed structurally, so this layer does
 * not import the Gateway. Nothing is built when no channel has subscribers.
 *
 * @module
 */

import { channels, type GatewayCloseMessage, type GatewayConnectMessage, type GatewayReadyMessage, type GatewayResumeMessage } from './diagnostics.js';

/** What this module reads of a Gateway's connection events: names, ids, codes and counts (never a session id, token or reason text). */
type GatewayLifecycleReport =
  | { event: 'ready' }
  | { event: 'resumed'; payload: { replayed: number } }
  | { event: 'reconnecting'; payload: { attempt: number; delayMs: number; resume: boolean } }
  | { event: 'close'; payload: { code: number; willReconnect: boolean } }
  | { event: 'debug' | 'error' };

/** Publishes one connection event of shard `shardId` on its channel, when the channel has subscribers. */
export function publishGatewayReport(report: GatewayLifecycleReport, shardId: number): void {
  switch (report.event) {
    case 'ready':
      if (channels.gatewayReady.hasSubscribers) channels.gatewayReady.publish({ shardId } satisfies GatewayReadyMessage);
      return;
    case 'resumed':
      if (channels.gatewayResume.hasSubscribers) channels.gatewayResume.publish({ shardId, replayed: report.payload.replayed } satisfies GatewayResumeMessage);
      return;
    case 'reconnecting': {
      if (!channels.gatewayConnect.hasSubscribers) return;
      const { attempt, delayMs, resume } = report.payload;
      channels.gatewayConnect.publish({ phase: 'reconnect', shardId, attempt, delayMs, resume } satisfies GatewayConnectMessage);
      return;
    }
    case 'close':
      if (channels.gatewayClose.hasSubscribers)
        channels.gatewayClose.publish({ shardId, code: report.payload.code, willReconnect: report.payload.willReconnect } satisfies GatewayCloseMessage);
      return;
    default:
  }
}

/** Runs a Gateway's `connect()`, publishing its start and its end or error (with the error's class name only) when the channel has subscribers. */
export function observeGatewayConnect(connect: () => Promise<void>, now: () => number): Promise<void> {
  if (!channels.gatewayConnect.hasSubscribers) return connect();
  const started = now();
  channels.gatewayConnect.publish({ phase: 'start' } satisfies GatewayConnectMessage);
  return connect().then(
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
}
