/**
 * The options of the webhook receiver, their names, and the one place their
 * limits are checked and given their defaults.
 *
 * @module
 */

import { ValidationError } from '../errors/index.js';
import { MAX_TIMER_MS, checkCount, checkDuration, optionNames, refuseUnknownOptions } from '../core/bounds.js';
import type { InteractionCallbackType } from '../core/constants.js';
import type { AnswerOptions } from '../interactions/types.js';
import type { ReplayStore } from './replay-store.js';
import type { WebhookSecretProvider } from './receiver-secrets.js';
import {
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_PENDING_BODIES,
  DEFAULT_TOLERANCE_SECONDS,
  type WebhookScheme,
  type WebhookSecret,
} from './scheme.js';

/** What the receiver needs of a client: `client.interactions.respond` (a `Client` fits). */
export interface InteractionCallbackClient {
  /** The interaction callback manager. */
  readonly interactions: {
    /** `POST /interactions/{interaction_id}/callback`. */
    respond(
      interactionId: string,
      body: { interaction_type: InteractionCallbackType; data: Record<string, unknown> },
      options?: AnswerOptions,
    ): Promise<unknown>;
  };
}

/** Options of {@link createWebhookReceiver}. */
export interface WebhookReceiverOptions {
  /**
   * The webhook's signing secret, or several while rotating, or a function
   * giving the current ones, asked for each delivery: a server can start
   * listening, create its application webhook, then return the secret the
   * service answered, without a restart (while it returns none, deliveries
   * are answered 503 and the service retries). An empty or whitespace secret
   * is refused.
   */
  secret: WebhookSecret | readonly WebhookSecret[] | WebhookSecretProvider;
  /** Answers interactions delivered over HTTP (`client.interactions.respond`). @default none: interactions cannot be answered */
  client?: InteractionCallbackClient | undefined;
  /** Where accepted signatures and delivery ids are remembered. @default a `MemoryReplayStore` (100000 live keys, this process only) */
  replayStore?: ReplayStore | undefined;
  /** How far the signing time may be from now, either way, in milliseconds. @default 300000 (5 minutes) */
  toleranceMs?: number | undefined;
  /**
   * How long a delivery id is remembered, so that a retry is not handled
   * twice, in milliseconds. It must cover the whole span in which a
   * signature is accepted (the tolerance on both sides); a shorter one is
   * refused. @default twice `toleranceMs` (10 minutes), at least 1 s
   */
  dedupeTtlMs?: number | undefined;
  /** Largest body the adapters read; past it they answer 413. At most 67108864 (64 MiB: `MAX_BODY_BYTES_LIMIT`). @default 1048576 (1 MiB) */
  maxBodyBytes?: number | undefined;
  /** How long the adapters wait for a whole body; past it they answer 408 and close the connection (a sender trickling bytes holds no socket). @default 10000 (10 s) */
  bodyTimeoutMs?: number | undefined;
  /**
   * Most bodies the adapters read at once. When all are taken, a new request evicts the body silent the longest among
   * those with no byte for 100 ms or pending for over a second (answered 408, its connection closed), so senders
   * trickling bodies or sending none cannot keep valid deliveries out; when none is, a peer address holding more than a
   * quarter of the places gives up its stalest one; only then is the new request answered 503 at once and its
   * connection closed. Ages are measured on a steady clock, not `clock`. At most 16384 (`MAX_PENDING_BODIES_LIMIT`).
   * @default 256
   */
  maxPendingBodies?: number | undefined;
  /** The signing scheme (header names, signed string, body shape). @default the scheme in docs/assumptions.md */
  scheme?: WebhookScheme | undefined;
  /** The delivery type whose `data` is an interaction. @default 'INTERACTION_CREATE' */
  interactionEventType?: string | undefined;
  /** The clock, epoch milliseconds. @default Date.now */
  clock?: (() => number) | undefined;
}

/** The largest `maxBodyBytes` a receiver accepts (64 MiB): a body is buffered whole before it is verified. */
export const MAX_BODY_BYTES_LIMIT = 64 * 1024 * 1024;

/** The largest `maxPendingBodies` a receiver accepts: each eviction looks at every place. */
export const MAX_PENDING_BODIES_LIMIT = 16_384;

/** The names of every receiver option: any other is refused. */
const RECEIVER_OPTIONS = optionNames<WebhookReceiverOptions>({
  ...{ secret: true, client: true, replayStore: true, toleranceMs: true, dedupeTtlMs: true, maxBodyBytes: true },
  ...{ bodyTimeoutMs: true, maxPendingBodies: true, scheme: true, interactionEventType: true, clock: true },
});

/** Options of earlier shapes, with what replaced them. */
const RENAMED = { now: 'clock', toleranceSeconds: 'toleranceMs (milliseconds: seconds x 1000)', router: 'receiver.use(router)' } as const;

/** The receiver's limits with their defaults. */
interface ReceiverLimits {
  readonly toleranceMs: number;
  readonly dedupeTtlMs: number;
  readonly maxBodyBytes: number;
  readonly bodyTimeoutMs: number;
  readonly maxPendingBodies: number;
}

/**
 * Refuses unknown and renamed options, and limits a receiver cannot honour (durations past 2^31 - 1 ms, counts that are
 * not whole numbers, a `dedupeTtlMs` shorter than the span a signature is accepted in), each named in a
 * `ValidationError`; fills in the defaults.
 */
export function resolveReceiverLimits(options: WebhookReceiverOptions): ReceiverLimits {
  const operation = 'createWebhookReceiver';
  refuseUnknownOptions(operation, options, RECEIVER_OPTIONS, RENAMED);
  // The tolerance counts both ways, and the dedupe TTL covers twice it: at most half a timer's range.
  const toleranceMs = checkDuration(operation, 'toleranceMs', options.toleranceMs, { max: Math.floor(MAX_TIMER_MS / 2) }) ?? DEFAULT_TOLERANCE_SECONDS * 1000;
  const dedupeTtlMs = checkDuration(operation, 'dedupeTtlMs', options.dedupeTtlMs, { min: 1 }) ?? Math.max(toleranceMs * 2, 1000);
  if (dedupeTtlMs < toleranceMs * 2) {
    throw new ValidationError(operation, [
      {
        path: 'dedupeTtlMs',
        message: `must cover the span in which a signature is accepted, twice toleranceMs (${toleranceMs * 2} ms), or a retry could be handled twice`,
      },
    ]);
  }
  return {
    toleranceMs,
    dedupeTtlMs,
    maxBodyBytes: checkCount(operation, 'maxBodyBytes', options.maxBodyBytes, { min: 1, max: MAX_BODY_BYTES_LIMIT }) ?? DEFAULT_MAX_BODY_BYTES,
    bodyTimeoutMs: checkDuration(operation, 'bodyTimeoutMs', options.bodyTimeoutMs, { min: 1 }) ?? DEFAULT_BODY_TIMEOUT_MS,
    maxPendingBodies:
      checkCount(operation, 'maxPendingBodies', options.maxPendingBodies, { min: 1, max: MAX_PENDING_BODIES_LIMIT }) ?? DEFAULT_MAX_PENDING_BODIES,
  };
}
