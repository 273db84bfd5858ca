import { describe, expect, it } from 'vitest';
import { operationIds, type Client, type OperationId } from '../../src/index.js';
import { SECRETS, createMswClient, useMswRecorder } from '../helpers/index.js';

type AuthSent = 'bot' | 'user' | 'none' | 'webhook' | 'cookie';

interface OperationCase {
  op: OperationId;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Expected path under /api/v1, with query. */
  url: string;
  auth: AuthSent;
  call: (client: Client) => PromiseLike<unknown>;
  /** Expected JSON body sent, if any. */
  body?: unknown;
  /** Status the fake server answers with. @default 200 */
  status?: number;
  /** JSON the fake server answers with; omitted for 204. */
  reply?: unknown;
  /** Expected resolved value, when it differs from `reply`. */
  expected?: unknown;
}

const obj = (extra: Record<string, unknown> = {}) => ({ id: 'x1', unknown_future_field: { nested: [1, 2] }, ...extra });
const NO_CONTENT = { status: 204 } as const;

const cases: OperationCase[] = [
  // Activities
  { op: 'activities.get', method: 'GET', url: '/activities/act1', auth: 'bot', call: (c) => c.activities.get('act1'), reply: obj() },
  { op: 'activities.delete', method: 'DELETE', url: '/activities/act1', auth: 'bot', call: (c) => c.activities.delete('act1'), ...NO_CONTENT },
  { op: 'activities.join', method: 'POST', url: '/activities/act1/join', auth: 'bot', call: (c) => c.activities.join('act1'), ...NO_CONTENT },
  { op: 'activities.leave', method: 'POST', url: '/activities/act1/leave', auth: 'bot', call: (c) => c.activities.leave('act1'), ...NO_CONTENT },
  {
    op: 'activities.playPause',
    method: 'POST',
    url: '/activities/act1/play-pause',
    auth: 'bot',
    call: (c) => c.activities.playPause('act1', { paused: true }),
    body: { paused: true },
    ...NO_CONTENT,
  },
  {
    op: 'activities.seek',
    method: 'POST',
    url: '/activities/act1/seek',
    auth: 'bot',
    call: (c) => c.activities.seek('act1', { position_ms: 9000 }),
    body: { position_ms: 9000 },
    ...NO_CONTENT,
  },
  {
    op: 'activities.getSnapshot',
    method: 'GET',
    url: '/activities/act1/snapshot',
    auth: 'bot',
    call: (c) => c.activities.getSnapshot('act1'),
    reply: obj({ position_ms: 3 }),
  },
  {
    op: 'activities.updateState',
    method: 'POST',
    url: '/activities/act1/state',
    auth: 'bot',
    call: (c) => c.activities.updateState('act1', { state: { round: 2 } }),
    body: { state: { round: 2 } },
    ...NO_CONTENT,
  },
  { op: 'activities.list', method: 'GET', url: '/channels/ch1/activities', auth: 'bot', call: (c) => c.activities.list('ch1'), reply: [obj()] },
  {
    op: 'activities.create',
    method: 'POST',
    url: '/channels/ch1/activities',
    auth: 'bot',
    call: (c) => c.activities.create('ch1', { kind: 'watch' }),
    body: { kind: 'watch' },
    status: 201,
    reply: obj(),
  },
  { op: 'activities.getActive', method: 'GET', url: '/channels/ch1/activities/active', auth: 'bot', call: (c) => c.activities.getActive('ch1'), reply: obj() },

  // Applications
  { op: 'applications.list', method: 'GET', url: '/applications', auth: 'user', call: (c) => c.applications.list(), reply: [obj()] },
  {
    op: 'applications.create',
    method: 'POST',
    url: '/applications',
    auth: 'user',
    call: (c) => c.applications.create({ name: 'Quiz', extra: 1 }),
    body: { name: 'Quiz', extra: 1 },
    status: 201,
    reply: obj(),
  },
  { op: 'applications.get', method: 'GET', url: '/applications/app1', auth: 'user', call: (c) => c.applications.get('app1'), reply: obj() },
  {
    op: 'applications.update',
    method: 'PATCH',
    url: '/applications/app1',
    auth: 'user',
    call: (c) => c.applications.update('app1', { description: 'd' }),
    body: { description: 'd' },
    reply: obj(),
  },
  { op: 'applications.delete', method: 'DELETE', url: '/applications/app1', auth: 'user', call: (c) => c.applications.delete('app1'), ...NO_CONTENT },
  { op: 'applications.getPublic', method: 'GET', url: '/applications/app1/public', auth: 'none', call: (c) => c.applications.getPublic('app1'), reply: obj() },
  {
    op: 'applications.listApiLogs',
    method: 'GET',
    url: '/applications/app1/api-logs?page=2&per_page=25',
    auth: 'user',
    call: (c) => c.applications.listApiLogs('app1', { page: 2, perPage: 25 }),
    reply: [obj()],
    expected: { items: [obj()], page: 2, perPage: 25, raw: [obj()] },
  },
  {
    op: 'applications.getMetrics',
    method: 'GET',
    url: '/applications/app1/metrics',
    auth: 'user',
    call: (c) => c.applications.getMetrics('app1'),
    reply: obj({ requests: 5 }),
  },

  // Bot
  { op: 'bots.get', method: 'GET', url: '/applications/app1/bot', auth: 'user', call: (c) => c.bots.get('app1'), reply: obj() },
  {
    op: 'bots.update',
    method: 'PATCH',
    url: '/applications/app1/bot',
    auth: 'user',
    call: (c) => c.bots.update('app1', { username: 'quizbot' }),
    body: { username: 'quizbot' },
    reply: obj(),
  },
  {
    op: 'bots.getInviteUrl',
    method: 'GET',
    url: '/applications/app1/bot/invite-url',
    auth: 'user',
    call: (c) => c.bots.getInviteUrl('app1'),
    reply: { url: 'https://chat.test/invite/x' },
  },
  {
    op: 'bots.resetToken',
    method: 'POST',
    url: '/applications/app1/bot/reset-token',
    auth: 'user',
    call: (c) => c.bots.resetToken('app1'),
    reply: { token: 'new-bot-token' },
  },

  // Commands
  {
    op: 'commands.list',
    method: 'GET',
    url: '/applications/app1/commands',
    auth: 'user',
    call: (c) => c.commands.list('app1'),
    reply: [obj({ name: 'quiz' })],
  },
  {
    op: 'commands.create',
    method: 'POST',
    url: '/applications/app1/commands',
    auth: 'user',
    call: (c) => c.commands.create('app1', { name: 'Quiz', description: 'Start a quiz' }),
    body: { name: 'quiz', description: 'Start a quiz', dm_permission: true },
    status: 201,
    reply: obj({ name: 'quiz' }),
  },
  {
    op: 'commands.replace',
    method: 'PUT',
    url: '/applications/app2/commands',
    auth: 'user',
    call: (c) => c.commands.replace('app2', [{ name: 'ping', description: 'p', dm_permission: false }]),
    body: [{ name: 'ping', description: 'p', dm_permission: false }],
    reply: [obj({ name: 'ping' })],
  },
  {
    op: 'commands.delete',
    method: 'DELETE',
    url: '/applications/app1/commands/cmd1',
    auth: 'user',
    call: (c) => c.commands.delete('app1', 'cmd1'),
    ...NO_CONTENT,
  },
  {
    op: 'commands.listInGuild',
    method: 'GET',
    url: '/guilds/g1/commands',
    auth: 'user',
    call: (c) => c.commands.listInGuild('g1'),
    reply: [obj({ name: 'quiz' })],
  },
  {
    op: 'commands.listForGuild',
    method: 'GET',
    url: '/guilds/g1/commands/app1',
    auth: 'user',
    call: (c) => c.commands.listForGuild('app1', 'g1'),
    reply: [obj({ name: 'quiz' })],
  },
  {
    op: 'commands.replaceForGuild',
    method: 'PUT',
    url: '/guilds/g1/commands/app1',
    auth: 'user',
    call: (c) => c.commands.replaceForGuild('app1', 'g1', [{ name: 'quiz', description: 'q' }]),
    body: [{ name: 'quiz', description: 'q', dm_permission: true }],
    reply: [obj({ name: 'quiz' })],
  },

  // Application webhooks
  {
    op: 'applicationWebhooks.listDeliveries',
    method: 'GET',
    url: '/applications/app1/webhook-deliveries?page=1&per_page=10',
    auth: 'user',
    call: (c) => c.applicationWebhooks.listDeliveries('app1', { page: 1, perPage: 10 }),
    reply: { deliveries: [obj()], total: 1 },
    expected: { items: [obj()], page: 1, perPage: 10, raw: { deliveries: [obj()], total: 1 } },
  },
  {
    op: 'applicationWebhooks.list',
    method: 'GET',
    url: '/applications/app1/webhooks',
    auth: 'user',
    call: (c) => c.applicationWebhooks.list('app1'),
    reply: [obj()],
  },
  {
    op: 'applicationWebhooks.create',
    method: 'POST',
    url: '/applications/app1/webhooks',
    auth: 'user',
    call: (c) => c.applicationWebhooks.create('app1', { url: 'https://hooks.test/x', events: ['INTERACTION_CREATE'] }),
    body: { url: 'https://hooks.test/x', events: ['INTERACTION_CREATE'] },
    status: 201,
    reply: obj(),
  },
  {
    op: 'applicationWebhooks.update',
    method: 'PATCH',
    url: '/applications/app1/webhooks/wh9',
    auth: 'user',
    call: (c) => c.applicationWebhooks.update('app1', 'wh9', { active: false }),
    body: { active: false },
    reply: obj(),
  },
  {
    op: 'applicationWebhooks.delete',
    method: 'DELETE',
    url: '/applications/app1/webhooks/wh9',
    auth: 'user',
    call: (c) => c.applicationWebhooks.delete('app1', 'wh9'),
    ...NO_CONTENT,
  },
  {
    op: 'applicationWebhooks.regenerateSecret',
    method: 'POST',
    url: '/applications/app1/webhooks/wh9/regenerate-secret',
    auth: 'user',
    call: (c) => c.applicationWebhooks.regenerateSecret('app1', 'wh9'),
    reply: { secret: 's2' },
  },
  {
    op: 'applicationWebhooks.test',
    method: 'POST',
    url: '/applications/app1/webhooks/wh9/test',
    auth: 'user',
    call: (c) => c.applicationWebhooks.test('app1', 'wh9'),
    status: 202,
    reply: obj({ queued: true }),
  },

  // Auth
  {
    op: 'auth.login',
    method: 'POST',
    url: '/auth/login',
    auth: 'none',
    call: (c) => c.auth.login({ email: 'ada@example.com', password: 'hunter22' }),
    body: { email: 'ada@example.com', password: 'hunter22' },
    reply: { access_token: 'fresh-access', user_id: 'u1' },
    expected: expect.objectContaining({ body: { access_token: '[redacted]', user_id: 'u1' } }),
  },
  {
    op: 'auth.refresh',
    method: 'POST',
    url: '/auth/refresh',
    auth: 'cookie',
    call: (c) => c.auth.refresh(),
    reply: { access_token: 'fresh-2' },
    expected: expect.objectContaining({ body: { access_token: '[redacted]' } }),
  },
  { op: 'auth.logout', method: 'POST', url: '/auth/logout', auth: 'cookie', call: (c) => c.auth.logout(), ...NO_CONTENT },
  {
    op: 'auth.forgotPassword',
    method: 'POST',
    url: '/auth/forgot-password',
    auth: 'none',
    call: (c) => c.auth.forgotPassword({ email: 'ada@example.com' }),
    body: { email: 'ada@example.com' },
    ...NO_CONTENT,
  },
  {
    op: 'auth.resetPassword',
    method: 'POST',
    url: '/auth/reset-password',
    auth: 'none',
    call: (c) => c.auth.resetPassword({ token: 't', password: 'new-pass' }),
    body: { token: 't', password: 'new-pass' },
    ...NO_CONTENT,
  },
  {
    op: 'auth.verifyEmail',
    method: 'POST',
    url: '/auth/verify-email/mail%20token',
    auth: 'none',
    call: (c) => c.auth.verifyEmail('mail token'),
    reply: { verified: true },
  },
  { op: 'users.getMe', method: 'GET', url: '/users/@me', auth: 'bot', call: (c) => c.users.getMe(), reply: obj({ username: 'quizbot' }) },

  // Channels
  { op: 'channels.get', method: 'GET', url: '/channels/ch1', auth: 'bot', call: (c) => c.channels.get('ch1'), reply: obj() },
  {
    op: 'channels.update',
    method: 'PATCH',
    url: '/channels/ch1',
    auth: 'bot',
    call: (c) => c.channels.update('ch1', { topic: 'quizzes' }),
    body: { topic: 'quizzes' },
    reply: obj(),
  },
  { op: 'channels.delete', method: 'DELETE', url: '/channels/ch1', auth: 'bot', call: (c) => c.channels.delete('ch1'), ...NO_CONTENT },
  { op: 'channels.ack', method: 'POST', url: '/channels/ch1/ack', auth: 'bot', call: (c) => c.channels.ack('ch1'), ...NO_CONTENT },
  {
    op: 'channels.uploadAttachment',
    method: 'POST',
    url: '/channels/ch1/attachments',
    auth: 'bot',
    call: (c) => c.channels.uploadAttachment('ch1', { data: 'hello', filename: 'a.txt', contentType: 'text/plain' }),
    reply: obj(),
  },
  {
    op: 'channels.listDriveLinks',
    method: 'GET',
    url: '/channels/ch1/drive-links',
    auth: 'bot',
    call: (c) => c.channels.listDriveLinks('ch1'),
    reply: [obj({ url: 'https://drive.test/1' })],
  },

  // Interactions
  {
    op: 'interactions.respond',
    method: 'POST',
    url: '/interactions/int1/callback',
    auth: 'bot',
    call: (c) => c.interactions.respond('int1', { interaction_type: 4, data: { content: 'Hello!' } }),
    body: { interaction_type: 4, data: { content: 'Hello!' } },
    ...NO_CONTENT,
  },

  // Webhooks
  { op: 'webhooks.list', method: 'GET', url: '/guilds/g1/webhooks', auth: 'user', call: (c) => c.webhooks.list('g1'), reply: [obj()] },
  {
    op: 'webhooks.create',
    method: 'POST',
    url: '/guilds/g1/webhooks',
    auth: 'user',
    call: (c) => c.webhooks.create('g1', { name: 'CI', channel_id: 'ch1' }),
    body: { name: 'CI', channel_id: 'ch1' },
    reply: obj({ token: 't' }),
  },
  { op: 'webhooks.delete', method: 'DELETE', url: '/guilds/g1/webhooks/wh1', auth: 'user', call: (c) => c.webhooks.delete('g1', 'wh1'), ...NO_CONTENT },
  {
    op: 'webhooks.resetToken',
    method: 'POST',
    url: '/guilds/g1/webhooks/wh1/reset-token',
    auth: 'user',
    call: (c) => c.webhooks.resetToken('g1', 'wh1'),
    reply: obj({ token: 't2' }),
  },
  {
    op: 'webhooks.execute',
    method: 'POST',
    url: `/webhooks/wh1/${encodeURIComponent(SECRETS.webhookToken)}`,
    auth: 'webhook',
    call: (c) => c.webhooks.execute('wh1', { content: 'Build passed', username: 'CI' }),
    body: { content: 'Build passed', username: 'CI' },
    ...NO_CONTENT,
  },
  {
    op: 'webhooks.updateWithToken',
    method: 'PATCH',
    url: '/webhooks/wh2/tok2',
    auth: 'webhook',
    call: (c) => c.webhooks.updateWithToken({ id: 'wh2', token: 'tok2' }, { name: 'CD' }),
    body: { name: 'CD' },
    reply: obj(),
  },
  {
    op: 'webhooks.deleteWithToken',
    method: 'DELETE',
    url: `/webhooks/wh1/${encodeURIComponent(SECRETS.webhookToken)}`,
    auth: 'webhook',
    call: (c) => c.webhooks.deleteWithToken('wh1'),
    ...NO_CONTENT,
  },
];

const recorder = useMswRecorder();

describe('every contract operation', () => {
  it('has exactly one case per operation id in the route table', () => {
    expect(cases.map((c) => c.op).sort()).toEqual([...operationIds].sort());
    expect(operationIds).toHaveLength(58);
  });

  it.each(cases)('$op sends $method $url with $auth credentials', async (testCase) => {
    recorder.respond(() => (testCase.status === 204 ? { status: 204 } : { status: testCase.status ?? 200, json: testCase.reply }));
    const client = createMswClient();
    const result = await testCase.call(client);

    expect(recorder.requests).toHaveLength(1);
    const [sent] = recorder.requests;
    expect(sent?.method).toBe(testCase.method);
    expect(sent?.url).toBe(`/api/v1${testCase.url}`);

    const authorization = sent?.headers['authorization'];
    const cookie = sent?.headers['cookie'];
    switch (testCase.auth) {
      case 'bot':
        expect(authorization).toBe(`Bot ${SECRETS.botToken}`);
        break;
      case 'user':
        expect(authorization).toBe(`Bearer ${SECRETS.accessToken}`);
        break;
      case 'cookie':
        expect(authorization).toBeUndefined();
        expect(cookie).toBe(`refresh_token=${SECRETS.refreshCookie}`);
        break;
      case 'none':
      case 'webhook':
        expect(authorization).toBeUndefined();
        expect(cookie).toBeUndefined();
        break;
    }

    if (testCase.body !== undefined) {
      expect(sent?.headers['content-type']).toBe('application/json');
      expect(JSON.parse(sent?.body ?? '')).toEqual(testCase.body);
    } else if (testCase.op === 'channels.uploadAttachment') {
      expect(sent?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
      expect(sent?.body).toContain('name="file"; filename="a.txt"');
      expect(sent?.body).toContain('hello');
    } else {
      expect(sent?.body).toBe('');
    }

    if (testCase.status === 204) expect(result).toBeUndefined();
    else expect(result).toEqual(testCase.expected ?? testCase.reply);
  });
});
