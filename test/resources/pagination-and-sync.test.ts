import { describe, expect, it } from 'vitest';
import { Client, MissingCredentialError, isCommunityChatError } from '../../src/index.js';
import { extractPageItems } from '../../src/resources/pagination.js';
import { createMswClient, startLoopbackServer, useMswRecorder } from '../helpers/index.js';

const recorder = useMswRecorder();

describe('pagination', () => {
  it('walks api-logs page by page until a short page', async () => {
    const all = Array.from({ length: 23 }, (_, i) => ({ id: `log${i}` }));
    recorder.respond((request) => {
      const url = new URL(request.url, 'https://x');
      const page = Number(url.searchParams.get('page'));
      const perPage = Number(url.searchParams.get('per_page'));
      return { json: all.slice((page - 1) * perPage, page * perPage) };
    });
    const seen: string[] = [];
    for await (const entry of createMswClient().applications.listApiLogs('app1', { perPage: 10 })) seen.push(entry['id'] as string);
    expect(seen).toEqual(all.map((e) => e.id));
    expect(recorder.requests.map((r) => r.url)).toEqual([
      '/api/v1/applications/app1/api-logs?page=1&per_page=10',
      '/api/v1/applications/app1/api-logs?page=2&per_page=10',
      '/api/v1/applications/app1/api-logs?page=3&per_page=10',
    ]);
  });

  it('stops on an exact multiple with an empty page, on has_more false, and at maxPages', async () => {
    recorder.respond((request) => {
      const page = Number(new URL(request.url, 'https://x').searchParams.get('page'));
      return { json: { deliveries: page <= 2 ? [{ id: page }, { id: page + 10 }] : [], has_more: page < 2 } };
    });
    const client = createMswClient();
    const items = [];
    for await (const delivery of client.applicationWebhooks.listDeliveries('app1', { perPage: 2 })) items.push(delivery);
    expect(items).toHaveLength(4);
    expect(recorder.requests).toHaveLength(2);

    recorder.requests.length = 0;
    const limited = [];
    for await (const delivery of client.applicationWebhooks.listDeliveries('app1', { perPage: 2, page: 1, maxPages: 1 })) limited.push(delivery);
    expect(limited).toHaveLength(2);
    expect(recorder.requests).toHaveLength(1);
  });

  it('one list() is a page when awaited (once, however often) and a walk from that page with for await; nothing is sent before either', async () => {
    recorder.respond((request) => {
      const page = Number(new URL(request.url, 'https://x').searchParams.get('page'));
      return { json: page <= 3 ? [{ id: `d${page}` }] : [] };
    });
    const client = createMswClient();
    const list = client.applicationWebhooks.listDeliveries('app1', { page: 2, perPage: 1 });
    expect(Object.prototype.toString.call(list)).toBe('[object PageList]');
    await Promise.resolve();
    expect(recorder.requests).toHaveLength(0);
    const page = await list;
    expect(page).toMatchObject({ items: [{ id: 'd2' }], page: 2, perPage: 1 });
    expect(await list).toBe(page);
    expect(recorder.requests).toHaveLength(1);
    const walked: unknown[] = [];
    for await (const delivery of list) walked.push(delivery['id']);
    expect(walked).toEqual(['d2', 'd3']);
    expect(recorder.requests.map((r) => new URL(r.url, 'https://x').searchParams.get('page'))).toEqual(['2', '2', '3', '4']);
  });

  it('rejects a bad perPage on the first step, sending nothing', async () => {
    const iterator = createMswClient().applications.listApiLogs('app1', { perPage: 0 })[Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toThrow(/perPage/);
    expect(recorder.requests).toHaveLength(0);
  });

  it('finds items in any common envelope', () => {
    expect(extractPageItems([1])).toEqual([1]);
    expect(extractPageItems({ items: [2] })).toEqual([2]);
    expect(extractPageItems({ total: 1, whatever: [3] })).toEqual([3]);
    expect(extractPageItems('x')).toEqual([]);
  });
});

describe('commands.sync', () => {
  const serverCommands = [
    {
      id: '1',
      application_id: 'app1',
      name: 'quiz',
      description: 'Start a quiz',
      dm_permission: true,
      version: '7',
      options: [{ type: 3, name: 'topic', description: 'Topic', required: false, autocomplete: true }],
    },
  ];

  it('does not replace commands that already match (ignoring ids, case and defaults)', async () => {
    recorder.respond(() => ({ json: serverCommands }));
    const result = await createMswClient().commands.sync('app1', [
      { name: 'Quiz', description: 'Start a quiz', options: [{ type: 3, name: 'topic', description: 'Topic', autocomplete: true }] },
    ]);
    expect(result.changed).toBe(false);
    expect(recorder.requests.map((r) => r.method)).toEqual(['GET']);
  });

  it('with only a bot token, sync rejects with MissingCredentialError naming commands.sync and saying to log in; nothing is sent', async () => {
    const bot = new Client({ baseUrl: 'https://chat.test', auth: { botToken: 'bot-only-token' }, transport: 'fetch' });
    const error = (await bot.commands.sync('app1', [{ name: 'quiz', description: 'Start a quiz' }]).catch((e: unknown) => e)) as MissingCredentialError;
    expect(error).toBeInstanceOf(MissingCredentialError);
    expect(error.operation).toBe('commands.sync');
    expect(error.message).toMatch(/^commands\.sync needs one of these credentials: user;/);
    expect(error.message).toContain('client.auth.login');
    expect(error.message).not.toContain('bot-only-token');
    expect(recorder.requests).toHaveLength(0);
  });

  it.each([
    [
      'a changed description',
      [{ name: 'quiz', description: 'Start a new quiz', options: [{ type: 3, name: 'topic', description: 'Topic', autocomplete: true }] }],
    ],
    ['a removed option flag', [{ name: 'quiz', description: 'Start a quiz', options: [{ type: 3, name: 'topic', description: 'Topic' }] }]],
    [
      'an extra command',
      [
        { name: 'quiz', description: 'Start a quiz', options: [{ type: 3, name: 'topic', description: 'Topic', autocomplete: true }] },
        { name: 'score', description: 'Score' },
      ],
    ],
    [
      'dm_permission turned off',
      [{ name: 'quiz', description: 'Start a quiz', dm_permission: false, options: [{ type: 3, name: 'topic', description: 'Topic', autocomplete: true }] }],
    ],
  ])('replaces them once on %s', async (_label, definitions) => {
    recorder.respond((request) => ({
      json: request.method === 'GET' ? serverCommands : (JSON.parse(request.body) as object[]).map((command, i) => ({ id: `new${i}`, ...command })),
    }));
    const result = await createMswClient().commands.syncForGuild('app1', 'g1', definitions);
    expect(result.changed).toBe(true);
    expect(recorder.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /api/v1/guilds/g1/commands/app1', 'PUT /api/v1/guilds/g1/commands/app1']);
    expect(JSON.parse(recorder.requests[1]?.body ?? '[]')).toHaveLength(definitions.length);
  });
});

describe('pagination against a hostile or capped service, over a real loopback server', () => {
  const items = Array.from({ length: 250 }, (_, i) => ({ id: `d${i}` }));
  async function serve(handler: (page: number, perPage: number) => unknown, delayMs = 0) {
    return startLoopbackServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://x');
      const body = JSON.stringify(handler(Number(url.searchParams.get('page')), Number(url.searchParams.get('per_page'))));
      setTimeout(() => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(body);
      }, delayMs);
    });
  }

  it('follows has_more when the service caps the page size below perPage', async () => {
    const server = await serve((page) => ({ items: items.slice((page - 1) * 100, page * 100), has_more: page * 100 < items.length }));
    const client = new Client({ baseUrl: server.url, auth: { session: { accessToken: 'at', accessTokenExpiresAt: Date.now() + 600_000, cookies: [] } } });
    const seen: string[] = [];
    for await (const delivery of client.applicationWebhooks.listDeliveries('app1', { perPage: 200 })) seen.push(String(delivery['id']));
    expect(seen).toEqual(items.map((item) => item.id));
    await client.close();
    await server.close();
  });

  it('stops with a typed error when the service ignores page and serves the same page again', async () => {
    const server = await serve(() => ({ items: items.slice(0, 50), has_more: true }));
    const client = new Client({ baseUrl: server.url, auth: { session: { accessToken: 'at', accessTokenExpiresAt: Date.now() + 600_000, cookies: [] } } });
    const seen: unknown[] = [];
    const error = await (async () => {
      for await (const delivery of client.applicationWebhooks.listDeliveries('app1', { perPage: 50 })) seen.push(delivery);
    })().catch((e: unknown) => e);
    expect(isCommunityChatError(error, 'UnexpectedResponseError')).toBe(true);
    expect(seen).toHaveLength(50);
    expect(server.requests).toHaveLength(2);
    await client.close();
    await server.close();
  });

  it('applies deadlineMs to the whole walk, not to each page', async () => {
    const server = await serve((page) => ({ items: [{ id: `p${page}` }], has_more: true }), 40);
    const client = new Client({ baseUrl: server.url, auth: { session: { accessToken: 'at', accessTokenExpiresAt: Date.now() + 600_000, cookies: [] } } });
    const error = await (async () => {
      for await (const _ of client.applicationWebhooks.listDeliveries('app1', { perPage: 1, deadlineMs: 300 })) void _;
    })().catch((e: unknown) => e);
    expect(isCommunityChatError(error, 'TimeoutError')).toBe(true);
    expect(server.requests.length).toBeLessThan(50);
    await client.close();
    await server.close();
  });
});
