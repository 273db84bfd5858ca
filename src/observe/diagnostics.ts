/**
 * The SDK's `node:diagnostics_channel` channels, their message types, and the
 * process-wide tracer slot that `community-chat-sdk/otel` fills.
 *
 * Every message carries redacted data only: operation, method, redacted path,
 * route template, bucket, attempt, status, error name and type, durations.
 * Never a header value, a body, a token or a cookie. Nothing is built or
 * published when a channel has no subscriber.
 *
 * @module
 */

import { channel } from 'node:diagnostics_channel';
import type { HttpMethod } from '../core/routes.js';

/**
 * The names of the SDK's diagnostics channels. Subscribe with
 * `diagnostics_channel.subscribe(name, listener)`.
 *
 * - `requestStart`: a logical call starts (after input checks, before its first attempt).
 * - `requestRateLimitWait`: the call is about to wait for a rate limit (a bucket, the global limit or a webhook's window).
 * - `requestAttempt`: an attempt ended: its response headers arrived (`status`) or it failed (`errorType`).
 * - `requestEnd`: the call resolved.
 * - `requestError`: the call rejected.
 * - `gatewayConnect`: `gateway.connect()` started, ended or failed, or a reconnect was scheduled.
 * - `gatewayReady`, `gatewayResume`, `gatewayClose`: a shard's session was ready, resumed, or its connection closed.
 * - `streamStep`: a step of an event's trip to a worker (publish, claim, handle, ack, dead letter, duplicate, reclaim).
 * - `gatewaySessionBudget`: the session starts left, after each Identify the budget counted or refused.
 * - `gatewayFleet`: a fleet member's event (a shard acquired, released, fenced or taken over; members changed; serving).
 */
export const DIAGNOSTICS_CHANNELS = {
  /** A logical call starts; carries a {@link RequestStartMessage}. */
  requestStart: 'community-chat-sdk:request:start',
  /** The call is about to wait for a rate limit; carries a {@link RequestRateLimitWaitMessage}. */
  requestRateLimitWait: 'community-chat-sdk:request:rate-limit-wait',
  /** An attempt ended; carries a {@link RequestAttemptMessage}. */
  requestAttempt: 'community-chat-sdk:request:attempt',
  /** The call resolved; carries a {@link RequestEndMessage}. */
  requestEnd: 'community-chat-sdk:request:end',
  /** The call rejected; carries a {@link RequestErrorMessage}. */
  requestError: 'community-chat-sdk:request:error',
  /** `gateway.connect()` started, ended or failed, or a reconnect was scheduled; carries a {@link GatewayConnectMessage}. */
  gatewayConnect: 'community-chat-sdk:gateway:connect',
  /** A shard's session is ready; carries a {@link GatewayReadyMessage}. */
  gatewayReady: 'community-chat-sdk:gateway:ready',
  /** A shard's session resumed; carries a {@link GatewayResumeMessage}. */
  gatewayResume: 'community-chat-sdk:gateway:resume',
  /** A shard's connection closed; carries a {@link GatewayCloseMessage}. */
  gatewayClose: 'community-chat-sdk:gateway:close',
  /** A step of an event's trip through a stream to a worker; carries a {@link StreamStepMessage}. */
  streamStep: 'community-chat-sdk:stream:step',
  /** A fleet member's event, the Gateway's event of the same `type`; carries a {@link GatewayFleetMessage}. */
  gatewayFleet: 'community-chat-sdk:gateway:fleet',
  /** The session starts left; carries a {@link GatewaySessionBudgetMessage}. */
  gatewaySessionBudget: 'community-chat-sdk:gateway:session-budget',
} as const;

/** The daily session start budget, as `GET /gateway/bot` last told it less the Identify sent since. */
export interface GatewaySessionBudgetMessage {
  /** Session starts left. */
  readonly remaining: number;
  /** Session starts a day. */
  readonly total: number;
}

/**
 * A fleet member's event: the Gateway's `shardAcquired`, `shardReleased`, `shardFenced`, `shardTakenOver`, `membersChanged`
 * or `serving` event (its fields as emitted), or one published on the channel only: `leaseRenewed` (a lease step answered,
 * `durationMs` after it was sent) and `answerRefused` (an answer not sent: its shard was fenced here).
 */
export interface GatewayFleetMessage {
  /** The event's name. */
  readonly type: string;
  /** The member id of the process (every event but `answerRefused`). @default undefined */
  readonly member?: string | undefined;
  /** The shard count of the set it is about (every event but `answerRefused`). @default undefined */
  readonly shardCount?: number | undefined;
  /** The shard it is about, for a shard's event. @default undefined */
  readonly shardId?: number | undefined;
  /** `leaseRenewed`: how long the step took; `shardAcquired`: from the acquisition to the session up. @default undefined */
  readonly durationMs?: number | undefined;
  /** `shardAcquired` of a shard taken over from a member that died: from its last renewal to the session up. @default undefined */
  readonly takeoverMs?: number | undefined;
}

/** Fields of every request message. */
export interface RequestDiagnosticsBase {
  /** Identifies the logical call across its messages; unique in the process. */
  readonly callId: number;
  /** Operation id, e.g. `channels.get`, or `request` for `client.request()`. */
  readonly operation: string;
  /** HTTP method. */
  readonly method: HttpMethod;
  /** The path with every secret segment (a webhook token) replaced by `:redacted`; no query string. */
  readonly path: string;
  /** The route template with its prefix, e.g. `/api/v1/channels/{channel_id}`. */
  readonly route: string;
  /** Scheme, host and port of the service, e.g. `https://chat.example.com` (never with credentials). */
  readonly origin: string;
  /** Host name of the service. */
  readonly serverAddress: string;
  /** Port of the service (443 or 80 when the URL gives none). */
  readonly serverPort: number;
}

/** Published on `community-chat-sdk:request:start`. */
export type RequestStartMessage = RequestDiagnosticsBase;

/** Published on `community-chat-sdk:request:rate-limit-wait`, before each rate-limit wait. */
export interface RequestRateLimitWaitMessage extends RequestDiagnosticsBase {
  /** The attempt about to wait, starting at 1. */
  readonly attempt: number;
  /** The rate-limit bucket. */
  readonly bucket: string;
  /** How long the wait will be, milliseconds. */
  readonly delayMs: number;
  /** What is waited for: the route's bucket, the global limit, or the webhook's rolling window. */
  readonly reason: 'bucket' | 'global' | 'webhook';
}

/** Published on `community-chat-sdk:request:attempt` when an attempt ends. */
export interface RequestAttemptMessage extends RequestDiagnosticsBase {
  /** Attempt number, starting at 1. */
  readonly attempt: number;
  /** The rate-limit bucket. */
  readonly bucket: string;
  /** From sending to the response headers (or the failure), milliseconds. */
  readonly durationMs: number;
  /** The response's status, when one arrived. @default undefined (no response) */
  readonly status?: number;
  /** Why no response arrived: `NetworkError`, `TimeoutError`, `AbortError` or `ResponseTooLargeError`. @default undefined (a response arrived) */
  readonly errorType?: string;
}

/** Published on `community-chat-sdk:request:end` when the call resolves. */
export interface RequestEndMessage extends RequestDiagnosticsBase {
  /** The final response's status. */
  readonly status: number;
  /** How many attempts were sent. */
  readonly attempts: number;
  /** From the start of the call, milliseconds. */
  readonly durationMs: number;
}

/** Published on `community-chat-sdk:request:error` when the call rejects. */
export interface RequestErrorMessage extends RequestDiagnosticsBase {
  /** How many attempts were sent (0 when none was). */
  readonly attempts: number;
  /** From the start of the call, milliseconds. */
  readonly durationMs: number;
  /** The status of the error response, if the error is one. @default undefined */
  readonly status?: number;
  /** The error's `name`, e.g. `NotFoundError`, `TimeoutError`, `HookError`. */
  readonly errorName: string;
  /** The OpenTelemetry `error.type`: the status as text for an error response (`"404"`), else the error's name (`_OTHER` for a non-Error). */
  readonly errorType: string;
}

/**
 * Published on `community-chat-sdk:gateway:connect`: one of four messages,
 * told apart by `phase`.
 */
export type GatewayConnectMessage =
  | {
      /** `gateway.connect()` started. */
      readonly phase: 'start';
    }
  | {
      /** `gateway.connect()` resolved. */
      readonly phase: 'end';
      /** From the start of `connect()`, milliseconds. */
      readonly durationMs: number;
    }
  | {
      /** `gateway.connect()` rejected. */
      readonly phase: 'error';
      /** From the start of `connect()`, milliseconds. */
      readonly durationMs: number;
      /** The rejection's `name`, or its `typeof` when it is not an Error. */
      readonly errorName: string;
    }
  | {
      /** A shard's reconnect was scheduled. */
      readonly phase: 'reconnect';
      /** The shard (0 without sharding). */
      readonly shardId: number;
      /** Reconnect attempt since the last READY or RESUMED, starting at 1. */
      readonly attempt: number;
      /** How long until the reconnect, milliseconds. */
      readonly delayMs: number;
      /** Whether the reconnect will try to resume the session (else it identifies anew). */
      readonly resume: boolean;
    };

/** Published on `community-chat-sdk:gateway:ready`. */
export interface GatewayReadyMessage {
  /** The shard (0 without sharding). */
  readonly shardId: number;
}

/** Published on `community-chat-sdk:gateway:resume`. */
export interface GatewayResumeMessage {
  /** The shard (0 without sharding). */
  readonly shardId: number;
  /** How many missed dispatches the service replayed. */
  readonly replayed: number;
}

/** Published on `community-chat-sdk:gateway:close` (the close reason text is left out). */
export interface GatewayCloseMessage {
  /** The shard (0 without sharding). */
  readonly shardId: number;
  /** The close code. */
  readonly code: number;
  /** Whether the Gateway will reconnect. */
  readonly willReconnect: boolean;
}

/**
 * Published on `community-chat-sdk:stream:step`: one step of the trip of Gateway events through a stream to a worker. Carries
 * ids, types and counts only: never a payload or a token.
 */
export interface StreamStepMessage {
  /**
   * `publish`: a shard's batch was stored; `claim`: a worker claimed an interaction; `handle`: a worker's handlers for an
   * event settled; `ack`: it was acknowledged; `deadLetter`: moved to the dead letters; `duplicate`: an interaction already
   * claimed was acknowledged without running; `reclaim`: a worker took over entries another left pending.
   */
  readonly step: 'publish' | 'claim' | 'handle' | 'ack' | 'deadLetter' | 'duplicate' | 'reclaim';
  /** The stream's key. */
  readonly stream: string;
  /** The consumer group (worker steps). @default undefined */
  readonly group?: string | undefined;
  /** The consumer (worker steps). @default undefined */
  readonly consumer?: string | undefined;
  /** The stream entry's id (one-entry steps). @default undefined */
  readonly id?: string | undefined;
  /** The dispatch type. @default undefined */
  readonly type?: string | undefined;
  /** How many entries the step covered. @default 1 */
  readonly count?: number | undefined;
  /** How many times the entry was delivered. @default undefined */
  readonly deliveries?: number | undefined;
  /** Why it went to the dead letters. @default undefined */
  readonly reason?: string | undefined;
  /** How long the step took, milliseconds (publish, handle). @default undefined */
  readonly durationMs?: number | undefined;
  /** Whether the handlers failed (handle). @default undefined */
  readonly failed?: boolean | undefined;
}

/** What a tracer learns of an interaction whose handlers it runs. */
export interface InteractionTraceInfo {
  /** The interaction's id. */
  readonly id: string;
  /** Its kind, e.g. `command`. */
  readonly kind: string;
  /** The command's name, for commands. @default undefined */
  readonly commandName?: string;
}

/**
 * Runs SDK work inside a tracing context: installed process-wide by
 * `createOtelTracing()` of `community-chat-sdk/otel`, through an internal hook
 * that is not part of the public API. Diagnostics channels carry data but
 * cannot make a function run inside an OpenTelemetry context, which the
 * wire-level spans of `@opentelemetry/instrumentation-undici` need to find
 * their parent.
 */
export interface SdkTracer {
  /** Runs one attempt's transport call inside the context of logical call `callId`. */
  runAttempt<T>(callId: number, send: () => T): T;
  /** Runs an interaction's handlers inside a span; `failed` is called for each handler that threw or rejected. */
  runInteraction<T>(info: InteractionTraceInfo, run: (failed: (error: unknown) => void) => T): T;
}

/** One slot per process, under a global symbol, so that an ESM and a CJS copy of the package share the tracer and the call ids. */
interface DiagnosticsState {
  tracer: SdkTracer | undefined;
  nextCallId: number;
}
const STATE_KEY = Symbol.for('community-chat-sdk.diagnostics');
const state: DiagnosticsState = ((globalThis as Record<symbol, unknown>)[STATE_KEY] as DiagnosticsState | undefined) ?? { tracer: undefined, nextCallId: 1 };
(globalThis as Record<symbol, unknown>)[STATE_KEY] = state;

/** Installs `tracer` for every client of the process; returns a function that removes it (if it is still the one installed). */
export function installSdkTracer(tracer: SdkTracer): () => void {
  state.tracer = tracer;
  return () => {
    if (state.tracer === tracer) state.tracer = undefined;
  };
}

/** The installed tracer, if any. */
export function sdkTracer(): SdkTracer | undefined {
  return state.tracer;
}

/** A new call id. */
export function nextCallId(): number {
  return state.nextCallId++;
}

/** The channels, created once. */
export const channels = {
  requestStart: channel(DIAGNOSTICS_CHANNELS.requestStart),
  requestRateLimitWait: channel(DIAGNOSTICS_CHANNELS.requestRateLimitWait),
  requestAttempt: channel(DIAGNOSTICS_CHANNELS.requestAttempt),
  requestEnd: channel(DIAGNOSTICS_CHANNELS.requestEnd),
  requestError: channel(DIAGNOSTICS_CHANNELS.requestError),
  gatewayConnect: channel(DIAGNOSTICS_CHANNELS.gatewayConnect),
  gatewayReady: channel(DIAGNOSTICS_CHANNELS.gatewayReady),
  gatewayResume: channel(DIAGNOSTICS_CHANNELS.gatewayResume),
  gatewayClose: channel(DIAGNOSTICS_CHANNELS.gatewayClose),
  streamStep: channel(DIAGNOSTICS_CHANNELS.streamStep),
  gatewayFleet: channel(DIAGNOSTICS_CHANNELS.gatewayFleet),
  gatewaySessionBudget: channel(DIAGNOSTICS_CHANNELS.gatewaySessionBudget),
} as const;

/** Publishes a stream step, built only when someone subscribes. */
export function publishStreamStep(build: () => StreamStepMessage): void {
  if (channels.streamStep.hasSubscribers) channels.streamStep.publish(build());
}

/** Whether any request channel has a subscriber. */
export function requestChannelsActive(): boolean {
  return (
    channels.requestStart.hasSubscribers ||
    channels.requestEnd.hasSubscribers ||
    channels.requestError.hasSubscribers ||
    channels.requestAttempt.hasSubscribers ||
    channels.requestRateLimitWait.hasSubscribers
  );
}

/** The OpenTelemetry `error.type` of an error: an error response's status, else the error's name. */
export function errorTypeOf(error: unknown): string {
  if (error instanceof Error) {
    const status = (error as { status?: unknown }).status;
    return typeof status === 'number' && error.name !== 'UnexpectedResponseError' ? String(status) : error.name;
  }
  return '_OTHER';
}
