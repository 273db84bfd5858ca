/**
 * community-chat-sdk/otel against the real OpenTelemetry SDK: one span per
 * logical call on a real loopback server, rate-limit waits as events, error
 * types, no secret anywhere, wire-level spans as children, interaction
 * handlers inside a span.
 */
import { channel, subscribe, unsubscribe } from 'node:diagnostics_channel';
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client, createInteraction, createInteractionRouter, type InteractionPayload } from '../../src/index.js';
import { DIAGNOSTICS_CHANNELS, type StreamStepMessage } from '../../src/diagnostics.js';
import { RATE_LIMIT_WAIT_EVENT, createOtelTracing, type OtelTracing } from '../../src/otel/index.js';
import { SECRETS, findLeakedSecrets, startLoopbackServer, type LoopbackServer } from '../helpers/index.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager();
let server: LoopbackServer;
let tracing: OtelTracing;
let statuses: number[] = [];

beforeAll(async () => {
  context.setGlobalContextManager(contextManager.enable());
  tracing = createOtelTracing({ tracerProvider: provider });
  server = await startLoopbackServer((request, response) => {
    const status = statuses.shift() ?? 200;
    response.statusCode = status;
    response.setHeader('content-type', 'application/json');
    if (status === 429) response.setHeader('retry-after', '0.02');
    response.end(status < 300 ? JSON.stringify({ id: 'ch1', url: request.url }) : JSON.stringify({ message: 'failed' }));
  });
});

afterEach(() => {
  exporter.reset();
  statuses = [];
});

afterAll(async () => {
  tracing.disable();
  await server.close();
  context.disable();
  await provider.shutdown();
});

function client(): Client {
  return new Client({ baseUrl: server.url, auth: { botToken: SECRETS.botToken, webhookTokens: { wh1: SECRETS.webhookToken } }, baseDelayMs: 1, maxDelayMs: 2 });
}

const sdkSpans = (): ReadableSpan[] => exporter.getFinishedSpans().filter((span) => span.instrumentationScope.name === 'community-chat-sdk');

describe('community-chat-sdk/otel', () => {
  it('makes ONE client span for a call retried after a 500, with the HTTP semantic-convention attributes', async () => {
    statuses = [500, 200];
    await client().channels.get('ch1');
    expect(server.requests).toHaveLength(2);
    const spans = sdkSpans();
    expect(spans).toHaveLength(1);
    const [span] = spans;
    expect(span?.name).toBe('GET /api/v1/channels/{channel_id}');
    expect(span?.kind).toBe(SpanKind.CLIENT);
    expect(span?.attributes).toMatchObject({
      'http.request.method': 'GET',
      'url.template': '/api/v1/channels/{channel_id}',
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(server.url).port),
      'http.response.status_code': 200,
      'http.request.resend_count': 1,
    });
    expect(span?.attributes['error.type']).toBeUndefined();
    expect(span?.status.code).not.toBe(SpanStatusCode.ERROR);
    server.requests.length = 0;
  });

  it('records a 429 wait as a span event', async () => {
    statuses = [429, 200];
    await client().channels.get('ch1');
    const [span] = sdkSpans();
    const event = span?.events.find((e) => e.name === RATE_LIMIT_WAIT_EVENT);
    expect(event?.attributes?.['community_chat.rate_limit.delay_ms']).toBeGreaterThan(0);
    expect(event?.attributes?.['community_chat.attempt']).toBe(2);
    expect(span?.attributes['http.response.status_code']).toBe(200);
    server.requests.length = 0;
  });

  it('sets error.type and an error status on a failed call', async () => {
    statuses = [404];
    await expect(client().channels.get('ch1')).rejects.toThrow();
    const unreachable = new Client({ baseUrl: 'http://127.0.0.1:1', auth: { botToken: SECRETS.botToken }, retries: 0 });
    await expect(unreachable.channels.get('ch1')).rejects.toThrow();
    const spans = sdkSpans();
    expect(spans.map((s) => [s.attributes['error.type'], s.attributes['http.response.status_code'] ?? null, s.status.code])).toEqual([
      ['404', 404, SpanStatusCode.ERROR],
      ['NetworkError', null, SpanStatusCode.ERROR],
    ]);
    server.requests.length = 0;
  });

  it('puts no secret (bot token, webhook path token, password) in any span attribute, event or name', async () => {
    statuses = [500, 500, 500, 500];
    const c = client();
    await c.webhooks.execute('wh1', { content: 'hi' }).catch(() => undefined);
    await c.auth.login({ email: 'ada@example.com', password: 'hunter2-secret-pw' }, { retries: 0 }).catch(() => undefined);
    const spans = sdkSpans();
    expect(spans).toHaveLength(2);
    expect(server.requests.some((r) => r.url.includes(SECRETS.webhookToken))).toBe(true);
    const text = JSON.stringify(spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status })));
    expect(text).toContain(':redacted');
    expect(findLeakedSecrets(text, ['hunter2-secret-pw'])).toEqual([]);
    server.requests.length = 0;
  });

  it("makes a span started in the transport's context (as instrumentation-undici does) a child of the logical span", async () => {
    statuses = [503, 200];
    const wire = provider.getTracer('fake-undici-instrumentation');
    // undici publishes undici:request:create synchronously where the request is dispatched, as the real instrumentation relies on.
    const onCreate = () => wire.startSpan('wire GET', {}, context.active()).end();
    subscribe('undici:request:create', onCreate);
    try {
      await provider.getTracer('app', '1').startActiveSpan('app work', async (parent) => {
        await client().channels.get('ch1');
        parent.end();
      });
    } finally {
      unsubscribe('undici:request:create', onCreate);
    }
    const finished = exporter.getFinishedSpans();
    const logical = finished.find((s) => s.instrumentationScope.name === 'community-chat-sdk');
    const app = finished.find((s) => s.name === 'app work');
    const wires = finished.filter((s) => s.name === 'wire GET');
    expect(wires).toHaveLength(2);
    for (const span of wires) {
      expect(span.parentSpanContext?.spanId).toBe(logical?.spanContext().spanId);
      expect(span.spanContext().traceId).toBe(logical?.spanContext().traceId);
    }
    expect(logical?.parentSpanContext?.spanId).toBe(app?.spanContext().spanId);
    server.requests.length = 0;
  });

  it('runs interaction handlers inside a span: their calls are its children, a throw marks it failed', async () => {
    const c = client();
    const router = createInteractionRouter();
    let activeInHandler: string | undefined;
    router.onCommand('ping', async () => {
      activeInHandler = trace.getActiveSpan()?.spanContext().spanId;
      await c.channels.get('ch1');
    });
    router.onCommand('boom', () => {
      throw new RangeError('handler failed');
    });
    const payload = (id: string, name: string): InteractionPayload =>
      ({ id, type: 2, token: `interaction-token-${id}-secret`, data: { name } }) as InteractionPayload;
    await router.handle(createInteraction(payload('i-1', 'ping'), () => Promise.resolve()));
    await router.handle(createInteraction(payload('i-2', 'boom'), () => Promise.resolve()));
    const finished = exporter.getFinishedSpans();
    const ping = finished.find((s) => s.name === 'interaction ping');
    const boom = finished.find((s) => s.name === 'interaction boom');
    const call = finished.find((s) => s.instrumentationScope.name === 'community-chat-sdk');
    expect(ping?.spanContext().spanId).toBe(activeInHandler);
    expect(ping?.attributes).toMatchObject({
      'community_chat.interaction.id': 'i-1',
      'community_chat.interaction.kind': 'command',
      'community_chat.interaction.command': 'ping',
    });
    expect(call?.parentSpanContext?.spanId).toBe(ping?.spanContext().spanId);
    expect(ping?.status.code).not.toBe(SpanStatusCode.ERROR);
    expect([boom?.status.code, boom?.attributes['error.type']]).toEqual([SpanStatusCode.ERROR, 'RangeError']);
    expect(JSON.stringify(finished.map((s) => s.attributes))).not.toContain('interaction-token');
    server.requests.length = 0;
  });
});

describe('stream steps as spans', () => {
  it('each step of an event through a stream becomes a span: producer for publish, consumer for the rest, an error for a dead letter', () => {
    const publish = (message: StreamStepMessage) => channel(DIAGNOSTICS_CHANNELS.streamStep).publish(message);
    exporter.reset();
    publish({ step: 'publish', stream: '{events}', count: 3, durationMs: 2 });
    publish({
      step: 'handle',
      stream: '{events}',
      group: 'bots',
      consumer: 'w1',
      id: '1-0',
      type: 'MESSAGE_CREATE',
      deliveries: 1,
      durationMs: 5,
      failed: true,
    });
    publish({
      step: 'deadLetter',
      stream: '{events}',
      group: 'bots',
      consumer: 'w1',
      id: '1-0',
      type: 'MESSAGE_CREATE',
      reason: 'max-deliveries',
      deliveries: 5,
    });
    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => [span.name, span.kind])).toEqual([
      ['publish {events}', SpanKind.PRODUCER],
      ['handle {events}', SpanKind.CONSUMER],
      ['deadLetter {events}', SpanKind.CONSUMER],
    ]);
    expect(spans[0]?.attributes['messaging.batch.message_count']).toBe(3);
    expect(spans[1]?.attributes).toMatchObject({
      'messaging.consumer.group.name': 'bots',
      'messaging.message.id': '1-0',
      'community_chat.dispatch.type': 'MESSAGE_CREATE',
    });
    expect(spans[1]?.status.code).toBe(SpanStatusCode.ERROR);
    expect(spans[2]?.attributes['community_chat.stream.dead_letter_reason']).toBe('max-deliveries');
    expect(spans[2]?.status.code).toBe(SpanStatusCode.ERROR);
  });
});

describe('createOtelTracing options', () => {
  it('refuses an unknown option, naming it', () => {
    expect(() => createOtelTracing({ provider: trace.getTracerProvider() } as never)).toThrow(/provider: is not an option of createOtelTracing/);
  });
});
