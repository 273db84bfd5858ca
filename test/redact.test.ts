import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { WebhookClient, isApiError, type ApiError } from '../src/index.js';
import { redactHeaders, redactValue, scrubText } from '../src/redact.js';
import { MSW_BASE_URL, SECRETS, createMswClient, useMswRecorder, findLeakedSecrets } from './helpers/index.js';

const recorder = useMswRecorder();

function everyView(value: unknown): string {
  const error = value as Error;
  return [String(value), inspect(value, { depth: 10, showHidden: true }), JSON.stringify(value), error?.message, error?.stack].join('\n');
}

describe('secrets never leak', () => {
  it('keeps webhook path tokens out of errors, even when the server echoes them', async () => {
    recorder.respond((request) => ({ status: 404, json: { message: `No webhook at ${request.url}`, token: SECRETS.webhookToken } }));
    const client = createMswClient();
    const error = (await client.webhooks.execute('wh1', { content: 'hi' }).catch((e: unknown) => e)) as ApiError;
    expect(isApiError(error)).toBe(true);
    expect(error.path).toBe('/api/v1/webhooks/wh1/:redacted');
    expect(findLeakedSecrets(everyView(error))).toEqual([]);
    expect(error.message).toContain('[redacted]');
  });

  it('keeps the bot token and access token out of errors, even when echoed in headers or body', async () => {
    recorder.respond((request) => ({
      status: 500,
      json: { message: `bad header ${request.headers['authorization']}`, access_token: SECRETS.accessToken },
      headers: { 'set-cookie': `refresh_token=${SECRETS.refreshCookie}`, 'x-echo': 'ok' },
    }));
    const client = createMswClient({ retries: 0 });
    const botError = await client.channels.get('ch1').catch((e: unknown) => e);
    const userError = await client.applications.list().catch((e: unknown) => e);
    expect(findLeakedSecrets(everyView(botError))).toEqual([]);
    expect(findLeakedSecrets(everyView(userError))).toEqual([]);
    expect((botError as ApiError).headers['x-echo']).toBe('ok');
  });

  it('keeps the verify-email token out of error paths', async () => {
    const mailToken = 'verify-mail-token-9981';
    recorder.respond(() => ({ status: 400, json: { message: 'expired' } }));
    const error = (await createMswClient().auth.verifyEmail(mailToken).catch((e: unknown) => e)) as ApiError;
    expect(error.path).toBe('/api/v1/auth/verify-email/:redacted');
    expect(everyView(error)).not.toContain(mailToken);
  });

  it('redacts the client, its session, webhook tokens and managers in inspect and JSON', () => {
    const client = createMswClient();
    for (const view of [everyView(client), everyView(client.session), everyView(client.webhookTokens), everyView(client.channels), everyView(client.auth)]) {
      expect(findLeakedSecrets(view)).toEqual([]);
    }
    expect(JSON.stringify(client)).toContain('[redacted]');
  });

  it('redacts a webhook URL client', () => {
    const hook = new WebhookClient(`${MSW_BASE_URL}/api/v1/webhooks/wh1/${SECRETS.webhookToken}`);
    expect(findLeakedSecrets(everyView(hook))).toEqual([]);
    expect(inspect(hook)).toContain('wh1');
  });

  it('redacts the login password and returned tokens from login failures and results', async () => {
    const password = 'correct-horse-battery';
    recorder.respond((request) => ({ status: 400, json: { message: 'bad login', echo: JSON.parse(request.body) } }));
    const client = createMswClient();
    const error = await client.auth.login({ email: 'a@b.test', password }).catch((e: unknown) => e);
    expect(everyView(error)).not.toContain(password);

    recorder.respond(() => ({ status: 200, json: { access_token: 'tok-login-1234', refresh_token: 'rt-9876' } }));
    const result = await client.auth.login({ email: 'a@b.test', password });
    expect(everyView(result)).not.toContain('tok-login-1234');
    expect(everyView(result)).not.toContain('rt-9876');
  });

  it('redaction helpers', () => {
    expect(redactValue({ token: 'abc', nested: { client_secret: 's', keep: 'v' }, list: [{ password: 'p' }] })).toEqual({
      token: '[redacted]',
      nested: { client_secret: '[redacted]', keep: 'v' },
      list: [{ password: '[redacted]' }],
    });
    expect(scrubText('a secret-value b secret%2Fv', ['secret-value', 'secret/v'])).toBe('a [redacted] b [redacted]');
    expect(redactHeaders({ Authorization: 'Bot x', 'Set-Cookie': ['a=b'], 'X-A': ['1', '2'] })).toEqual({ authorization: '[redacted]', 'set-cookie': '[redacted]', 'x-a': '1, 2' });
  });
});
