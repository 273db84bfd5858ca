/**
 * Application-webhook deliveries, for real: the emulator POSTs each event,
 * signed with the webhook's current secret by the SDK's own signer, to the
 * webhook's URL, and retries a failed attempt (non-2xx, refused, timed out)
 * with backoff, three attempts in all under the same delivery id. Retries run
 * on real time, never on the emulator clock. Only loopback URLs are contacted
 * unless `allowExternalDeliveries` is on.
 *
 * @module
 */

import { request } from 'undici';
import { backoffDelay } from '../../core/backoff.js';
import { GatewayDispatch } from '../../gateway/protocol.js';
import { isLoopbackHost } from '../../core/loopback.js';
import { signWebhookDelivery } from '../../receive/sign.js';
import type { Application, ApplicationWebhook, EmulatorState } from './state.js';
import { isClosed, schedule, track } from './timers.js';
import type { DeliveryTransport, WebhookDeliveryRecord } from './types.js';

/** Attempts per delivery, the first included. */
const DELIVERY_ATTEMPTS = 3;

/** The event type of `POST /applications/{app_id}/webhooks/{webhook_id}/test`. */
export const TEST_EVENT = 'TEST';

/** The built-in transport: one undici POST per attempt, on a connection closed afterwards (MSW does not intercept it). */
const undiciTransport: DeliveryTransport = async ({ url, headers, body, signal }) => {
  const response = await request(url, { method: 'POST', headers, body, signal, reset: true });
  await response.body.dump();
  return { status: response.statusCode };
};

/** Why the built-in transport may not contact `url`, or `undefined` when it may. */
function refusal(state: EmulatorState, url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `refused: ${JSON.stringify(url)} is not a URL`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `refused: ${parsed.protocol} is not http(s)`;
  if (state.options.deliveryTransport === undefined && state.options.allowExternalDeliveries !== true && !isLoopbackHost(parsed.hostname)) {
    return `refused: ${parsed.hostname} is not a loopback address; the emulator delivers only to loopback unless createEmulator({ allowExternalDeliveries: true })`;
  }
  return undefined;
}

/** Creates a delivery of `event` to one webhook, lists it at once (`queued`), and starts its first attempt. */
export function sendDelivery(state: EmulatorState, app: Application, hook: ApplicationWebhook, event: string, data: unknown): WebhookDeliveryRecord {
  const record: WebhookDeliveryRecord = {
    id: state.id(),
    webhook_id: hook.id,
    event,
    status: 'queued',
    attempts: 0,
    duration_ms: null,
    created_at: new Date(state.now()).toISOString(),
    response_status: null,
    error: null,
  };
  app.deliveries.unshift(record);
  const body = JSON.stringify({ id: record.id, type: event, created_at: record.created_at, data });
  schedule(state, 0, () => void attempt(state, app, hook, record, body, undefined));
  state.notify({ kind: 'change' });
  return record;
}

/** The application's active webhooks subscribed to `event`. */
function subscribersOf(app: Application, event: string): ApplicationWebhook[] {
  return [...app.webhooks.values()].filter((hook) => hook.active && hook.events.includes(event));
}

/**
 * Sends an INTERACTION_CREATE: to the application's webhooks subscribed to it
 * when there are any (as Discord stops Gateway interactions once an
 * interactions endpoint is set), else over the Gateway to the bot.
 */
export function sendInteraction(
  state: EmulatorState,
  app: Application,
  payload: Record<string, unknown>,
): { delivered: number; reached: number; via: 'gateway' | 'webhook'; deliveryIds: string[] } {
  const hooks = subscribersOf(app, GatewayDispatch.InteractionCreate);
  if (hooks.length === 0) {
    // Reached: sessions that got it now or will on resume; none means nobody can ever answer it.
    const reached = state.gateway?.sessionsFor(app.bot.token, payload) ?? 0;
    return {
      delivered: state.gateway?.dispatchToToken(app.bot.token, GatewayDispatch.InteractionCreate, payload) ?? 0,
      reached,
      via: 'gateway',
      deliveryIds: [],
    };
  }
  const deliveryIds = hooks.map((hook) => sendDelivery(state, app, hook, GatewayDispatch.InteractionCreate, payload).id);
  return { delivered: deliveryIds.length, reached: deliveryIds.length, via: 'webhook', deliveryIds };
}

function finish(state: EmulatorState, record: WebhookDeliveryRecord, status: WebhookDeliveryRecord['status'], error: string | null): void {
  record.status = status;
  record.error = error;
  state.notify({ kind: 'change' });
}

/**
 * One attempt. `previousTimestamp` is the signing time of the attempt before: each attempt is signed
 * at least a second later, so no two attempts of a delivery are byte-identical (a receiver refuses the
 * same signed request twice as a replay, but answers a retry with a new signature as a duplicate).
 */
async function attempt(
  state: EmulatorState,
  app: Application,
  hook: ApplicationWebhook,
  record: WebhookDeliveryRecord,
  body: string,
  previousTimestamp: number | undefined,
): Promise<void> {
  if (app.webhooks.get(hook.id) !== hook) return finish(state, record, 'failed', 'the webhook was deleted');
  const refused = refusal(state, hook.url);
  if (refused !== undefined) return finish(state, record, 'failed', refused);
  const timing = state.options.deliveries ?? {};
  const timeoutMs = timing.timeoutMs ?? 5000;
  // Signed now, with the secret in force now: after regenerate-secret, only the new one verifies.
  const timestamp = Math.max(Math.floor(state.now() / 1000), (previousTimestamp ?? -Infinity) + 1);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'community-chat-emulator',
    ...signWebhookDelivery({ body, secret: hook.secret, deliveryId: record.id, eventType: record.event, timestamp }),
  };
  const tracked = track(state);
  const timer = setTimeout(() => tracked.abort(), timeoutMs);
  record.attempts += 1;
  const started = performance.now();
  let status: number | undefined;
  let failure: string | undefined;
  try {
    status = (await (state.options.deliveryTransport ?? undiciTransport)({ url: hook.url, headers, body, signal: tracked.signal })).status;
  } catch (error) {
    failure =
      tracked.signal.aborted && !isClosed(state)
        ? `timed out after ${timeoutMs} ms`
        : error instanceof Error
          ? `${error.name}: ${error.message}`
          : String(error);
  } finally {
    clearTimeout(timer);
    tracked.done();
  }
  if (isClosed(state)) return;
  record.duration_ms = Math.round(performance.now() - started);
  record.response_status = status ?? null;
  if (status !== undefined && status >= 200 && status < 300) return finish(state, record, 'succeeded', null);
  const error = failure ?? `the receiver answered ${String(status)}`;
  if (record.attempts >= DELIVERY_ATTEMPTS) return finish(state, record, 'failed', error);
  finish(state, record, 'retrying', error);
  const delay = backoffDelay({ baseDelayMs: timing.retryBaseDelayMs ?? 1000, maxDelayMs: timing.retryMaxDelayMs ?? 10_000 }, record.attempts);
  schedule(state, delay, () => void attempt(state, app, hook, record, body, timestamp));
}
