/**
 * Request hooks: what they see (redacted, frozen, no credentials), what they
 * may add, what a throwing hook does to its call and to the others.
 */
import { describe, expect, it } from 'vitest';
import { HookError, NotFoundError, isCommunityChatError } from '../../src/index.js';
import type { AfterResponseView, BeforeRequestView, RequestErrorView } from '../../src/diagnostics.js';
import { observing } from '../../src/observe/call.js';
import { SECRETS, createMswClient, findLeakedSecrets, useMswRecorder } from '../helpers/index.js';

const recorder = useMswRecorder();

describe('request hooks', () => {
  it('beforeRequest adds headers by returning them or setting them on the view, and sees neither credentials nor path tokens', async () => {
    const views: BeforeRequestView[] = [];
    const client = createMswClient({
      hooks: {
        beforeRequest: (view) => {
          views.push(view);
          view.headers['x-mutated'] = 'yes';
          return { headers: { 'X-Returned': `attempt-${view.attempt}` } };
        },
      },
    });
    recorder.respond(() => ({ json: { id: 'ch1' } }));
    await client.channels.get('ch1');
    await client.webhooks.execute('wh1', { content: 'hi' });
    expect(recorder.requests[0]?.headers['x-mutated']).toBe('yes');
    expect(recorder.requests[0]?.headers['x-returned']).toBe('attempt-1');
    // The credential is still the client's.
    expect(recorder.requests[0]?.headers.authorization).toBe(`Bot ${SECRETS.botToken}`);
    expect(views[0]).toMatchObject({
      operation: 'channels.get',
      method: 'GET',
      path: '/api/v1/channels/ch1',
      route: '/api/v1/channels/{channel_id}',
      attempt: 1,
    });
    expect(Object.isFrozen(views[0])).toBe(true);
    expect(Object.keys(views[0]?.headers ?? {})).not.toContain('authorization');
    expect(views[1]?.path).toContain(':redacted');
    expect(views[1]?.route).toContain('{webhook_token}');
    expect(findLeakedSecrets(JSON.stringify(views))).toEqual([]);
  });

  it.each([
    ['returned authorization', (): { headers: Record<string, string> } => ({ headers: { Authorization: 'Bot stolen-by-hook' } })],
    ['cookie set on the view', (view: BeforeRequestView): void => void (view.headers.cookie = 'refresh_token=stolen-by-hook')],
    ['proxy-authorization', (): { headers: Record<string, string> } => ({ headers: { 'proxy-authorization': 'Basic stolen-by-hook' } })],
  ])('refuses a credential header from beforeRequest (%s): HookError, nothing sent, value never shown', async (_label, hook) => {
    const client = createMswClient({ hooks: { beforeRequest: hook } });
    const error = await client.channels.get('ch1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HookError);
    expect(isCommunityChatError(error, 'HookError')).toBe(true);
    expect((error as HookError).hook).toBe('beforeRequest');
    expect((error as HookError).mayHaveReachedServer).toBe(false);
    expect(recorder.requests).toHaveLength(0);
    const text = `${String(error)} ${JSON.stringify(error)} ${String((error as Error).cause)}`;
    expect(text).not.toContain('stolen-by-hook');
    expect(text).toMatch(/credential header/);
  });

  it('a throwing or rejecting beforeRequest rejects only its call, and releases its rate-limit place so queued calls go on', async () => {
    recorder.respond(() => ({
      json: { id: 'ch1' },
      headers: { 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '1', 'x-ratelimit-reset-after': '0.05', 'x-ratelimit-bucket': 'b1' },
    }));
    let calls = 0;
    const client = createMswClient({
      deadlineMs: 5_000,
      hooks: {
        beforeRequest: async () => {
          calls++;
          if (calls === 1) throw new Error('sync boom');
          if (calls === 2) return Promise.reject(new Error('async boom'));
          return undefined;
        },
      },
    });
    // The first call discovers the bucket: the others queue behind it, and would wait for ever if its place were kept.
    const results = await Promise.allSettled([client.channels.get('ch1'), client.channels.get('ch1'), client.channels.get('ch1'), client.channels.get('ch1')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled', 'fulfilled']);
    const reasons = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as HookError] : []));
    expect(reasons.map((e) => [e.name, (e.cause as Error).message])).toEqual([
      ['HookError', 'sync boom'],
      ['HookError', 'async boom'],
    ]);
    expect(recorder.requests).toHaveLength(2);
  });

  it('afterResponse sees every response (status, debugging headers; no cookie), and one that throws rejects the call with HookError', async () => {
    let n = 0;
    recorder.respond(() => {
      n++;
      return n === 1
        ? { status: 503, headers: { 'x-request-id': 'req-1' } }
        : {
            json: { id: 'ch1' },
            headers: {
              'set-cookie': `refresh_token=${SECRETS.refreshCookie}`,
              'x-request-id': 'req-2',
              location: `https://x/webhooks/wh1/${SECRETS.webhookToken}`,
            },
          };
    });
    const seen: AfterResponseView[] = [];
    const client = createMswClient({ baseDelayMs: 1, maxDelayMs: 1, hooks: { afterResponse: (view) => void seen.push(view) } });
    await client.channels.get('ch1');
    expect(seen.map((v) => [v.status, v.attempt, v.headers['x-request-id']])).toEqual([
      [503, 1, 'req-1'],
      [200, 2, 'req-2'],
    ]);
    expect(Object.isFrozen(seen[1]?.headers)).toBe(true);
    expect(seen[1]?.headers['set-cookie']).toBeUndefined();
    expect(findLeakedSecrets(JSON.stringify(seen))).toEqual([]);

    client.hooks.afterResponse = () => {
      throw new Error('observer failed');
    };
    const error = (await client.channels.get('ch1').catch((e: unknown) => e)) as HookError;
    expect(error).toBeInstanceOf(HookError);
    expect([error.hook, error.mayHaveReachedServer]).toEqual(['afterResponse', true]);
    // The connection and the bucket are free again: the next call goes through.
    client.hooks.afterResponse = undefined;
    await expect(client.channels.get('ch1')).resolves.toMatchObject({ id: 'ch1' });
  });

  it('onError sees the typed error once; one that throws turns the rejection into HookError holding the original', async () => {
    recorder.respond(() => ({ status: 404, json: { message: `no such channel; token ${SECRETS.botToken}` } }));
    const seen: RequestErrorView[] = [];
    const client = createMswClient({ hooks: { onError: (view) => void seen.push(view) } });
    await expect(client.channels.get('ch1')).rejects.toBeInstanceOf(NotFoundError);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ operation: 'channels.get', errorName: 'NotFoundError', status: 404, attempt: 1 });
    expect(Object.isFrozen(seen[0])).toBe(true);
    expect(findLeakedSecrets(JSON.stringify(seen) + String((seen[0]?.error as Error | undefined)?.message))).toEqual([]);

    client.hooks.onError = async () => Promise.reject(new Error('reporter down'));
    const error = (await client.channels.get('ch1').catch((e: unknown) => e)) as HookError;
    expect(error.hook).toBe('onError');
    expect(error.callError).toBeInstanceOf(NotFoundError);
  });

  it('hooks set later on client.hooks apply to the next call; an empty hooks object watches nothing', async () => {
    recorder.respond(() => ({ json: { id: 'ch1' } }));
    const client = createMswClient();
    expect(client.hooks).toEqual({});
    await client.channels.get('ch1');
    client.hooks.beforeRequest = () => ({ headers: { 'x-late': '1' } });
    await client.channels.get('ch1');
    expect(recorder.requests.map((r) => r.headers['x-late'])).toEqual([undefined, '1']);
    const nobody = { events: undefined, log: undefined };
    expect(observing({ ...nobody, hooks: {} })).toBe(false);
    expect(observing({ ...nobody, hooks: undefined })).toBe(false);
    expect(observing({ ...nobody, hooks: { onError: () => undefined } })).toBe(true);
  });

  it('never shows a password, bot token or webhook token to any hook', async () => {
    recorder.respond(() => ({ status: 500, json: { password: 'hunter2-secret-pw', token: SECRETS.webhookToken } }));
    const seen: unknown[] = [];
    const client = createMswClient({
      retries: 0,
      hooks: {
        beforeRequest: (v) => void seen.push({ ...v }),
        afterResponse: (v) => void seen.push(v),
        onError: (v) => void seen.push({ ...v, message: (v.error as Error).message }),
      },
    });
    await client.auth.login({ email: 'ada@example.com', password: 'hunter2-secret-pw' }).catch(() => undefined);
    await client.webhooks.execute('wh1', { content: 'hi' }).catch(() => undefined);
    expect(seen.length).toBeGreaterThanOrEqual(6);
    expect(findLeakedSecrets(JSON.stringify(seen), ['hunter2-secret-pw'])).toEqual([]);
  });
});
