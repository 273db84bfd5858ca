import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, WebhookClient, type ApiError, isCommunityChatError } from '../../src/index.js';
import { redactHeaders, redactValue, scrubText, secretValuesIn } from '../../src/core/redact.js';
import { MSW_BASE_URL, SECRETS, createMswClient, useMswRecorder, findLeakedSecrets, startLoopbackServer, type LoopbackServer } from '../helpers/index.js';

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
    expect(isCommunityChatError(error, 'ApiError')).toBe(true);
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
    // Only headers that help debugging are kept.
    expect((botError as ApiError).headers['x-echo']).toBeUndefined();
  });

  it('keeps the verify-email token out of error paths', async () => {
    const mailToken = 'verify-mail-token-9981';
    recorder.respond(() => ({ status: 400, json: { message: 'expired' } }));
    const error = (await createMswClient()
      .auth.verifyEmail(mailToken)
      .catch((e: unknown) => e)) as ApiError;
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
    expect(redactHeaders({ Authorization: 'Bot x', 'Set-Cookie': ['a=b'], 'X-Request-Id': ['1', '2'], 'X-A': 'dropped' })).toEqual({
      authorization: '[redacted]',
      'set-cookie': '[redacted]',
      'x-request-id': '1, 2',
    });
    expect(redactHeaders({ 'content-type': 'text/plain; token=s3cr3t-value' }, ['s3cr3t-value'])).toEqual({ 'content-type': 'text/plain; token=[redacted]' });
    expect(redactValue({ input: 'abc', other: 'xabcx' }, ['abc'])).toEqual({ input: '[redacted]', other: 'xabcx' });
    expect(secretValuesIn({ email: 'a@b', password: 'pw', nested: [{ reset_token: 'rt' }], new_password: '' })).toEqual(['pw', 'rt']);
  });
});

describe('secrets the server echoes back, over a real loopback server', () => {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await startLoopbackServer();
  });
  afterAll(() => server.close());
  const views = (error: unknown) => [inspect(error, { depth: 10, showHidden: true }), JSON.stringify(error), String(error), (error as Error).stack].join('\n');

  it.each([
    ['auth.login', 'pw7', (client: Client, secret: string) => client.auth.login({ email: 'a@b.test', password: secret })],
    ['auth.resetPassword', 'reset-token-Hq42', (client: Client, secret: string) => client.auth.resetPassword({ token: secret, password: 'new-password-Ux81' })],
  ] as const)('%s: a FastAPI-style 422 echoing the body in `input` keeps no secret the call sent', async (_operation, secret, call) => {
    server.setHandler((_request, response, body) => {
      const sent = JSON.parse(body) as Record<string, string>;
      const detail = Object.entries(sent).map(([field, input]) => ({ loc: ['body', field], msg: 'rejected', input }));
      response.writeHead(422, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ detail, echo: `you sent ${body}` }));
    });
    const client = new Client({ baseUrl: server.url });
    const error = await call(client, secret).catch((e: unknown) => e);
    expect(isCommunityChatError(error, 'ApiError')).toBe(true);
    const text = views(error);
    expect(text).not.toContain(secret);
    expect(text).not.toContain('new-password-Ux81');
    expect(JSON.stringify((error as ApiError).body)).toContain('[redacted]');
    await client.close();
  });

  it('auth.refresh: an error echoing the refresh cookie (in the body and a header) keeps no cookie value', async () => {
    const cookie = 'refresh-cookie-Qv73-secret.value';
    server.setHandler((request, response) => {
      if (request.url?.endsWith('/auth/login')) {
        response.writeHead(200, { 'content-type': 'application/json', 'set-cookie': `refresh_token=${cookie}; Path=/api/v1/auth; HttpOnly` });
        return response.end(JSON.stringify({ access_token: 'access-token-Lp40-value', token_type: 'Bearer', expires_in: 900 }));
      }
      const echoed = String(request.headers.cookie);
      response.writeHead(400, { 'content-type': 'application/json', 'x-request-id': `req-9 ${echoed}` });
      response.end(
        JSON.stringify({
          message: `bad refresh for ${echoed}`,
          detail: [{ loc: ['cookie', 'refresh_token'], input: cookie }],
          raw: encodeURIComponent(echoed),
        }),
      );
    });
    const client = new Client({ baseUrl: server.url });
    await client.auth.login({ email: 'a@example.com', password: 'password-Zx12' });
    const error = await client.auth.refresh().catch((e: unknown) => e);
    expect(isCommunityChatError(error, 'ApiError')).toBe(true);
    const text = views(error);
    expect(text).not.toContain(cookie);
    expect(text).not.toContain(encodeURIComponent(cookie));
    expect(text).not.toContain('access-token-Lp40-value');
    expect(text).toContain('[redacted]');
    await client.close();
  });

  it('drops Location and WWW-Authenticate, and scrubs the credential from any header it keeps', async () => {
    server.setHandler((request, response) => {
      response.writeHead(401, {
        'content-type': 'application/json',
        location: `https://chat.example/api/v1/webhooks/wh1/${SECRETS.webhookToken}`,
        'www-authenticate': `Bot realm="${request.headers.authorization}"`,
        'x-request-id': `req-1 ${request.headers.authorization}`,
        'x-custom-echo': String(request.headers.authorization),
      });
      response.end('{}');
    });
    const client = new Client({ baseUrl: server.url, auth: { botToken: SECRETS.botToken, webhookTokens: { wh1: SECRETS.webhookToken } } });
    const botError = (await client.channels.get('ch1').catch((e: unknown) => e)) as ApiError;
    const hookError = (await client.webhooks.execute('wh1', { content: 'x' }).catch((e: unknown) => e)) as ApiError;
    for (const error of [botError, hookError]) {
      expect(findLeakedSecrets(views(error))).toEqual([]);
      expect(Object.keys(error.headers).sort()).toEqual(['content-type', 'date', 'x-request-id']);
    }
    expect(botError.headers['x-request-id']).toBe('req-1 Bot [redacted]');
    await client.close();
  });

  it('scrubs a password the server echoes escaped: inside a JSON string, or HTML-escaped', async () => {
    const password = 'pa"ss&<word>-9931';
    const variants = [
      JSON.stringify(password).slice(1, -1),
      password.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'),
    ];
    server.setHandler((_request, response, body) => {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ message: `rejected ${variants[1]}`, raw: body, escaped: `"${variants[0]}"` }));
    });
    const client = new Client({ baseUrl: server.url });
    const error = await client.auth.login({ email: 'a@b.test', password }).catch((e: unknown) => e);
    const text = views(error);
    for (const form of [password, ...variants]) expect(text).not.toContain(form);
    await client.close();
  });
});
