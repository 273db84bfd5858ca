/**
 * The SDK's diagnostics channels: what a call and a Gateway publish, in what
 * order, and that no message carries a secret.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../../src/index.js';
import { DIAGNOSTICS_CHANNELS } from '../../src/diagnostics.js';
import { observing } from '../../src/observe/call.js';
import { SECRETS, createMswClient, findLeakedSecrets, useMswRecorder } from '../helpers/index.js';

const recorder = useMswRecorder();

type Seen = { channel: string; message: Record<string, unknown> };
let unsubscribers: (() => void)[] = [];

function listen(names: readonly string[] = Object.values(DIAGNOSTICS_CHANNELS)): Seen[] {
  const seen: Seen[] = [];
  for (const name of names) {
    const listener = (message: unknown) => seen.push({ channel: name.replace('community-chat-sdk:', ''), message: message as Record<string, unknown> });
    subscribe(name, listener);
    unsubscribers.push(() => unsubscribe(name, listener));
  }
  return seen;
}

afterEach(() => {
  for (const stop of unsubscribers) stop();
  unsubscribers = [];
});

describe('request diagnostics channels', () => {
  it('publish start, each attempt, the rate-limit wait and end of a retried call, with one call id', async () => {
    let n = 0;
    recorder.respond(() => {
      n++;
      if (n === 1) return { status: 503 };
      if (n === 2) return { status: 429, headers: { 'retry-after': '0.01' } };
      return { json: { id: 'ch1' } };
    });
    const seen = listen();
    await createMswClient({ baseDelayMs: 1, maxDelayMs: 2 }).channels.get('ch1');
    expect(seen.map((s) => [s.channel, s.message.attempt ?? null, s.message.status ?? null])).toEqual([
      ['request:start', null, null],
      ['request:attempt', 1, 503],
      ['request:attempt', 2, 429],
      ['request:rate-limit-wait', 3, null],
      ['request:attempt', 3, 200],
      ['request:end', null, 200],
    ]);
    expect(new Set(seen.map((s) => s.message.callId)).size).toBe(1);
    expect(seen[0]?.message).toMatchObject({
      operation: 'channels.get',
      method: 'GET',
      path: '/api/v1/channels/ch1',
      route: '/api/v1/channels/{channel_id}',
      origin: 'https://chat.test',
      serverAddress: 'chat.test',
      serverPort: 443,
    });
    expect(seen.at(-1)?.message).toMatchObject({ attempts: 3 });
    expect(seen[3]?.message).toMatchObject({ reason: 'bucket' });
    expect(seen[3]?.message.delayMs).toBeGreaterThan(0);
  });

  it('publish error with the error type: the status of an error response, the class name otherwise', async () => {
    recorder.respond(() => ({ status: 404, json: { message: 'nope' } }));
    const seen = listen([DIAGNOSTICS_CHANNELS.requestError, DIAGNOSTICS_CHANNELS.requestEnd]);
    const client = createMswClient();
    await client.channels.get('ch1').catch(() => undefined);
    client.hooks.beforeRequest = () => {
      throw new Error('no');
    };
    await client.channels.get('ch1').catch(() => undefined);
    expect(seen.map((s) => [s.channel, s.message.errorName, s.message.errorType, s.message.status ?? null])).toEqual([
      ['request:error', 'NotFoundError', '404', 404],
      ['request:error', 'HookError', 'HookError', null],
    ]);
  });

  it('never carry a token, a webhook path token, a cookie or a password', async () => {
    recorder.respond(() => ({ status: 500, json: { token: SECRETS.webhookToken }, headers: { 'set-cookie': `refresh_token=${SECRETS.refreshCookie}` } }));
    const seen = listen();
    const client = createMswClient({ retries: 1, baseDelayMs: 1, maxDelayMs: 1 });
    await client.webhooks.execute('wh1', { content: 'hi' }).catch(() => undefined);
    await client.auth.login({ email: 'ada@example.com', password: 'hunter2-secret-pw' }).catch(() => undefined);
    await client.auth.refresh().catch(() => undefined);
    expect(seen.length).toBeGreaterThan(6);
    expect(seen.some((s) => String(s.message.path).includes(':redacted'))).toBe(true);
    expect(findLeakedSecrets(JSON.stringify(seen), ['hunter2-secret-pw'])).toEqual([]);
  });

  it('cost nothing when nobody subscribes: no observer is created', () => {
    const nobody = { events: undefined, log: undefined, hooks: undefined };
    expect(observing(nobody)).toBe(false);
    listen([DIAGNOSTICS_CHANNELS.requestEnd]);
    expect(observing(nobody)).toBe(true);
  });
});

describe('Gateway diagnostics channels', () => {
  it('are wired to client.gateway', async () => {
    const seen = listen([DIAGNOSTICS_CHANNELS.gatewayConnect]);
    // No bot token: connect() rejects at once, and the channel tells.
    await expect(new Client({ baseUrl: 'https://chat.test' }).gateway.connect()).rejects.toThrow(/bot token/);
    expect(seen.map((s) => [s.message.phase, s.message.errorName ?? null])).toEqual([
      ['start', null],
      ['error', 'ValidationError'],
    ]);
  });
});
