import { describe, expect, it } from 'vitest';
import { ValidationError, countCharacters, type Client, isCommunityChatError } from '../../src/index.js';
import { createMswClient, useMswRecorder } from '../helpers/index.js';

const recorder = useMswRecorder();

interface InvalidCase {
  name: string;
  call: (client: Client) => Promise<unknown>;
  /** Every field path the error must name. */
  paths: string[];
}

const long = (n: number) => 'x'.repeat(n);

const invalid: InvalidCase[] = [
  { name: 'command name too long', call: (c) => c.commands.create('app1', { name: long(33), description: 'd' }), paths: ['name'] },
  { name: 'empty command name', call: (c) => c.commands.create('app1', { name: '', description: 'd' }), paths: ['name'] },
  {
    name: 'command without description, bad dm_permission',
    call: (c) => c.commands.create('app1', { name: 'ok', dm_permission: 'yes' } as never),
    paths: ['description', 'dm_permission'],
  },
  {
    name: 'bad option descriptor',
    call: (c) => c.commands.create('app1', { name: 'ok', description: 'd', options: [{ type: 0, name: '' }] } as never),
    paths: ['options.0.type', 'options.0.name'],
  },
  {
    name: 'duplicate names in a bulk replace',
    call: (c) =>
      c.commands.replace('app1', [
        { name: 'A', description: 'd' },
        { name: 'a', description: 'd' },
      ]),
    paths: ['1.name'],
  },
  { name: 'sync with a bad definition', call: (c) => c.commands.sync('app1', [{ name: long(40), description: 'd' }]), paths: ['0.name'] },
  { name: 'webhook content missing', call: (c) => c.webhooks.execute('wh1', {} as never), paths: ['content'] },
  { name: 'webhook content empty', call: (c) => c.webhooks.execute('wh1', { content: '' }), paths: ['content'] },
  { name: 'webhook content over 2000', call: (c) => c.webhooks.execute('wh1', { content: long(2001) }), paths: ['content'] },
  { name: 'webhook username not a string', call: (c) => c.webhooks.execute('wh1', { content: 'hi', username: 5 } as never), paths: ['username'] },
  { name: 'interaction type not allowed', call: (c) => c.interactions.respond('i1', { interaction_type: 7 } as never), paths: ['interaction_type'] },
  { name: 'type 4 without content', call: (c) => c.interactions.respond('i1', { interaction_type: 4, data: {} }), paths: ['data.content'] },
  { name: 'page zero, per_page fractional', call: (c) => c.applications.listApiLogs('app1', { page: 0, perPage: 1.5 }), paths: ['page', 'perPage'] },
  { name: 'deliveries with page 0 (perPage left to its default)', call: (c) => c.applicationWebhooks.listDeliveries('app1', { page: 0 }), paths: ['page'] },
  { name: 'walking from page 0', call: (c) => c.applications.listApiLogs('app1', { page: 0 })[Symbol.asyncIterator]().next(), paths: ['page'] },
  { name: 'command name with a space', call: (c) => c.commands.create('app1', { name: 'Bad Name', description: 'd' }), paths: ['name'] },
  { name: 'command name with a symbol', call: (c) => c.commands.create('app1', { name: 'ping!', description: 'd' }), paths: ['name'] },
  { name: 'command name with an emoji', call: (c) => c.commands.replace('app1', [{ name: 'quiz😀', description: 'd' }]), paths: ['0.name'] },
  { name: 'login with bad email and empty password', call: (c) => c.auth.login({ email: 'not-an-email', password: '' }), paths: ['email', 'password'] },
  { name: 'empty path parameter', call: (c) => c.channels.get(''), paths: ['channel_id'] },
  { name: 'dot-dot path parameter', call: (c) => c.activities.get('..'), paths: ['activity_id'] },
  { name: 'non-string path parameter', call: (c) => c.channels.get(42 as never), paths: ['channel_id'] },
  { name: 'create guild webhook without channel', call: (c) => c.webhooks.create('g1', { name: 'x' } as never), paths: ['channel_id'] },
  { name: 'attachment without filename', call: (c) => c.channels.uploadAttachment('ch1', { data: 5, filename: '' } as never), paths: ['filename', 'data'] },
  { name: 'request escape hatch with traversal', call: (c) => c.request({ method: 'GET', path: '/channels/../admin' }), paths: ['path'] },
  { name: 'credential not accepted by the route', call: (c) => c.applications.list({ credential: 'bot' }), paths: ['credential'] },
];

describe('validation before the network', () => {
  it.each(invalid)('$name: rejects with ValidationError and sends nothing', async ({ call, paths }) => {
    const client = createMswClient();
    const error = await call(client).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isCommunityChatError(error, 'ValidationError')).toBe(true);
    expect(error).toBeInstanceOf(ValidationError);
    const issues = (error as ValidationError).issues.map((issue) => issue.path);
    for (const path of paths) expect(issues).toContain(path);
    for (const path of paths) expect((error as Error).message).toContain(path);
    expect(recorder.requests).toHaveLength(0);
  });

  it('accepts the boundaries: 32-character names, 1 and 2000-character content', async () => {
    recorder.respond(() => ({ status: 204 }));
    const client = createMswClient();
    await client.commands.create('app1', { name: 'A'.repeat(32), description: 'd' }).catch(() => undefined);
    await client.webhooks.execute('wh1', { content: 'x' });
    await client.webhooks.execute('wh1', { content: long(2000) });
    expect(recorder.requests).toHaveLength(3);
    expect(JSON.parse(recorder.requests[0]?.body ?? '{}').name).toBe('a'.repeat(32));
  });

  it('counts characters as code points, so 2000 emoji are allowed and 2001 are not', async () => {
    recorder.respond(() => ({ status: 204 }));
    const client = createMswClient();
    const emoji = '😀';
    expect(countCharacters(emoji.repeat(3))).toBe(3);
    await client.webhooks.execute('wh1', { content: emoji.repeat(2000) });
    await expect(client.webhooks.execute('wh1', { content: emoji.repeat(2001) })).rejects.toThrow(/2000 characters \(got 2001\)/);
    expect(recorder.requests).toHaveLength(1);
  });

  it('keeps unknown request fields and fills dm_permission', async () => {
    recorder.respond(() => ({ status: 201, json: { id: '1', name: 'quiz' } }));
    const client = createMswClient();
    await client.commands.create('app1', { name: 'QUIZ', description: 'd', default_member_permissions: '8' });
    expect(JSON.parse(recorder.requests[0]?.body ?? '{}')).toEqual({ name: 'quiz', description: 'd', default_member_permissions: '8', dm_permission: true });
  });

  it('sends data {} for callback types that carry no data', async () => {
    recorder.respond(() => ({ status: 204 }));
    const client = createMswClient();
    await client.interactions.respond('i1', { interaction_type: 5 });
    expect(JSON.parse(recorder.requests[0]?.body ?? '{}')).toEqual({ interaction_type: 5, data: {} });
  });
});

describe('every method settles, never throwing synchronously', () => {
  it('calls every public method of every manager with bad arguments and gets a promise or an async iterator', async () => {
    recorder.respond(() => ({ status: 200, json: {} }));
    const client = createMswClient();
    const managers = [
      'applications',
      'bots',
      'applicationWebhooks',
      'commands',
      'activities',
      'channels',
      'webhooks',
      'interactions',
      'auth',
      'users',
    ] as const;
    let checked = 0;
    for (const name of managers) {
      const manager = client[name] as unknown as Record<string, unknown>;
      for (const method of Object.getOwnPropertyNames(Object.getPrototypeOf(manager))) {
        if (method === 'constructor' || typeof manager[method] !== 'function') continue;
        let result: unknown;
        expect(() => {
          result = (manager[method] as (...args: unknown[]) => unknown).call(manager, 42, null, { signal: 'nope' });
        }, `${name}.${method}`).not.toThrow();
        if (method.startsWith('iterate')) {
          await (result as AsyncGenerator).next().catch(() => undefined);
        } else {
          expect(typeof (result as Promise<unknown>)?.then, `${name}.${method}`).toBe('function');
          await (result as Promise<unknown>).catch(() => undefined);
        }
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(58);
  });
});

describe('what the caller got wrong, and only that', () => {
  it('applies the page defaults (page 1, perPage 50) before validating', async () => {
    const error = (await createMswClient()
      .applicationWebhooks.listDeliveries('app1', { page: 0 })
      .catch((e: unknown) => e)) as ValidationError;
    expect(error.issues.map((issue) => issue.path)).toEqual(['page']);
    expect(error.message).not.toContain('perPage');
    recorder.respond(() => ({ json: { items: [] } }));
    await createMswClient().applicationWebhooks.listDeliveries('app1');
    await createMswClient().applications.listApiLogs('app1', { perPage: 5 });
    for await (const _entry of createMswClient().applications.listApiLogs('app1')) break;
    expect(recorder.requests.map((r) => r.url)).toEqual([
      '/api/v1/applications/app1/webhook-deliveries?page=1&per_page=50',
      '/api/v1/applications/app1/api-logs?page=1&per_page=5',
      '/api/v1/applications/app1/api-logs?page=1&per_page=50',
    ]);
  });

  it('explains a command name with a space in words, once', async () => {
    const error = (await createMswClient()
      .commands.create('app1', { name: 'Bad Name', description: 'd' })
      .catch((e: unknown) => e)) as ValidationError;
    expect(error.issues).toEqual([{ path: 'name', message: 'may hold only letters, digits, "-" and "_", with no spaces or other symbols (got "bad name")' }]);
    const tooLong = (await createMswClient()
      .commands.create('app1', { name: 'a b'.repeat(20), description: 'd' })
      .catch((e: unknown) => e)) as ValidationError;
    expect(tooLong.issues.map((issue) => issue.message)).toEqual(['must be 1 to 32 characters (got 60)']);
  });

  it('accepts letters and digits of any script, "-" and "_"', async () => {
    recorder.respond((request) => ({ status: 201, json: { id: 'c1', ...JSON.parse(request.body) } }));
    const client = createMswClient();
    for (const name of ['quiz', 'Top-10_scores', 'café', 'привет', '日本語', 'x'.repeat(32)]) await client.commands.create('app1', { name, description: 'd' });
    expect(recorder.requests.map((r) => JSON.parse(r.body).name)).toEqual(['quiz', 'top-10_scores', 'café', 'привет', '日本語', 'x'.repeat(32)]);
  });
});
