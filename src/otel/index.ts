/**
 * `community-chat-sdk/otel`: OpenTelemetry spans for the SDK, built from its
 * `node:diagnostics_channel` channels. Needs `@opentelemetry/api` (an
 * optional peer dependency); the main entry never loads it.
 *
 * One CLIENT span per logical call (retries and rate-limit waits included),
 * following the HTTP client semantic conventions; each attempt runs in that
 * span's context, so the wire-level spans of
 * `@opentelemetry/instrumentation-undici` become its children. Interaction
 * handlers run inside a span of their own.
 *
 * @example
 * ```ts
 * import { createOtelTracing } from 'community-chat-sdk/otel';
 * const tracing = createOtelTracing(); // uses the global tracer provider
 * // ... later: tracing.disable();
 * ```
 *
 * @packageDocumentation
 */

import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { SpanKind, SpanStatusCode, context, trace, type Attributes, type Span, type Tracer, type TracerProvider } from '@opentelemetry/api';
import {
  DIAGNOSTICS_CHANNELS,
  installSdkTracer,
  type InteractionTraceInfo,
  type RequestEndMessage,
  type RequestErrorMessage,
  type RequestRateLimitWaitMessage,
  type RequestStartMessage,
  type StreamStepMessage,
  type SdkTracer,
} from '../observe/diagnostics.js';
import { SDK_VERSION } from '../core/version.js';
import { optionNames, refuseUnknownOptions } from '../core/bounds.js';

// The channels and their message types are exported once, from the main entry.
export type { InteractionTraceInfo, SdkTracer } from '../observe/diagnostics.js';

/** Options of {@link createOtelTracing}. */
export interface OtelTracingOptions {
  /** Where the tracer comes from. @default the global tracer provider (`trace.getTracerProvider()`) */
  tracerProvider?: TracerProvider | undefined;
}

/** The running integration. */
export interface OtelTracing {
  /** Stops creating spans: unsubscribes from the channels and removes the tracer. Spans still open are ended. */
  disable(): void;
}

/** The instrumentation scope name of the spans. */
export const TRACER_NAME = 'community-chat-sdk';

/** The span name of an event recorded for each rate-limit wait. */
export const RATE_LIMIT_WAIT_EVENT = 'community_chat.rate_limit_wait';

/**
 * Starts creating spans for every client of the process: subscribes to the
 * SDK's request channels and installs the tracer that runs each attempt and
 * each interaction's handlers in their span's context. Call it once, after
 * registering your tracer provider and context manager.
 */
export function createOtelTracing(options: OtelTracingOptions = {}): OtelTracing {
  refuseUnknownOptions('createOtelTracing', options, optionNames<OtelTracingOptions>({ tracerProvider: true }));
  const tracer: Tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(TRACER_NAME, SDK_VERSION);
  const spans = new Map<number, Span>();

  const onStart = (message: unknown) => {
    const start = message as RequestStartMessage;
    const template = start.route;
    const attributes: Attributes = {
      'http.request.method': start.method,
      'url.template': template,
      'url.full': start.origin + start.path,
      'server.address': start.serverAddress,
      'server.port': start.serverPort,
      'community_chat.operation': start.operation,
    };
    spans.set(start.callId, tracer.startSpan(`${start.method} ${template}`, { kind: SpanKind.CLIENT, attributes }, context.active()));
  };
  const onWait = (message: unknown) => {
    const wait = message as RequestRateLimitWaitMessage;
    spans.get(wait.callId)?.addEvent(RATE_LIMIT_WAIT_EVENT, {
      'community_chat.rate_limit.delay_ms': wait.delayMs,
      'community_chat.rate_limit.reason': wait.reason,
      'community_chat.rate_limit.bucket': wait.bucket,
      'community_chat.attempt': wait.attempt,
    });
  };
  const finish = (message: RequestEndMessage | RequestErrorMessage, status: number | undefined) => {
    const span = spans.get(message.callId);
    if (span === undefined) return;
    spans.delete(message.callId);
    if (status !== undefined) span.setAttribute('http.response.status_code', status);
    if (message.attempts > 1) span.setAttribute('http.request.resend_count', message.attempts - 1);
    return span;
  };
  const onEnd = (message: unknown) => {
    const end = message as RequestEndMessage;
    finish(end, end.status)?.end();
  };
  const onError = (message: unknown) => {
    const failure = message as RequestErrorMessage;
    const span = finish(failure, failure.status);
    if (span === undefined) return;
    span.setAttribute('error.type', failure.errorType);
    // The status text is the error's name only: messages may carry user data.
    span.setStatus({ code: SpanStatusCode.ERROR, message: failure.errorName });
    span.end();
  };

  const sdk: SdkTracer = {
    runAttempt<T>(callId: number, send: () => T): T {
      const span = spans.get(callId);
      return span === undefined ? send() : context.with(trace.setSpan(context.active(), span), send);
    },
    runInteraction<T>(info: InteractionTraceInfo, run: (failed: (error: unknown) => void) => T): T {
      const attributes: Attributes = { 'community_chat.interaction.id': info.id, 'community_chat.interaction.kind': info.kind };
      if (info.commandName !== undefined) attributes['community_chat.interaction.command'] = info.commandName;
      const span = tracer.startSpan(`interaction ${info.commandName ?? info.kind}`, { kind: SpanKind.CONSUMER, attributes }, context.active());
      const failed = (error: unknown) => {
        span.setAttribute('error.type', error instanceof Error ? error.name : '_OTHER');
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'an interaction handler threw' });
      };
      const result = context.with(trace.setSpan(context.active(), span), () => run(failed));
      if (result instanceof Promise) void result.finally(() => span.end()).catch(() => undefined);
      else span.end();
      return result;
    },
  };

  // A step of an event's trip through a stream (publish, claim, handle, ack, dead letter...): one span each, timed when the step says how long it took.
  const onStreamStep = (message: unknown) => {
    const step = message as StreamStepMessage;
    const attributes: Attributes = { 'messaging.system': 'redis', 'messaging.destination.name': step.stream, 'messaging.operation.name': step.step };
    if (step.group !== undefined) attributes['messaging.consumer.group.name'] = step.group;
    if (step.id !== undefined) attributes['messaging.message.id'] = step.id;
    if (step.type !== undefined) attributes['community_chat.dispatch.type'] = step.type;
    if (step.count !== undefined) attributes['messaging.batch.message_count'] = step.count;
    if (step.deliveries !== undefined) attributes['community_chat.stream.deliveries'] = step.deliveries;
    if (step.reason !== undefined) attributes['community_chat.stream.dead_letter_reason'] = step.reason;
    const now = Date.now();
    const kind = step.step === 'publish' ? SpanKind.PRODUCER : SpanKind.CONSUMER;
    const span = tracer.startSpan(`${step.step} ${step.stream}`, { kind, attributes, startTime: now - (step.durationMs ?? 0) }, context.active());
    if (step.failed === true || step.step === 'deadLetter')
      span.setStatus({ code: SpanStatusCode.ERROR, message: step.step === 'deadLetter' ? 'dead-lettered' : 'a handler failed' });
    span.end(now);
  };

  const subscriptions: [string, (message: unknown) => void][] = [
    [DIAGNOSTICS_CHANNELS.streamStep, onStreamStep],
    [DIAGNOSTICS_CHANNELS.requestStart, onStart],
    [DIAGNOSTICS_CHANNELS.requestRateLimitWait, onWait],
    [DIAGNOSTICS_CHANNELS.requestEnd, onEnd],
    [DIAGNOSTICS_CHANNELS.requestError, onError],
  ];
  for (const [name, listener] of subscriptions) subscribe(name, listener);
  const uninstall = installSdkTracer(sdk);
  return {
    disable() {
      for (const [name, listener] of subscriptions) unsubscribe(name, listener);
      uninstall();
      for (const span of spans.values()) span.end();
      spans.clear();
    },
  };
}

export {
  createOtelMetrics,
  METER_NAME,
  type OtelMetrics,
  type OtelMetricsOptions,
  type ObservedGateway,
  type ObservedStream,
  type ObservedShard,
  type ObservedBacklog,
  type ObservedGroup,
} from './metrics.js';
