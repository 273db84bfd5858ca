import { describe, expect, it } from 'vitest';
import { AbortError, type Client } from '../../src/index.js';
import { createMswClient, useMswRecorder } from '../helpers/index.js';

const recorder = useMswRecorder();

const defs = [{ name: 'quiz', description: 'q' }];
const withIds = (body: string) => (JSON.parse(body) as object[]).map((command, i) => ({ id: `c${i}`, ...command }));

/** Answers GET with one command, PUT with the body given ids, POST with one command, DELETE with 204. */
function commandServer(): void {
  recorder.respond((request) => {
    if (request.method === 'DELETE') return { status: 204 };
    if (request.method === 'PUT') return { json: withIds(request.body) };
    if (request.method === 'POST') return { status: 201, json: { id: 'c1', ...JSON.parse(request.body) } };
    return { json: [{ id: 'c0', name: 'other', description: 'o' }] };
  });
}

const sent = () => recorder.requests.map((r) => `${r.method} ${r.url.replace('/api/v1', '')}`);

describe('commands: the application id first, call options last', () => {
  it.each<[string, (c: Client) => Promise<unknown>, string[]]>([
    ['list(appId)', (c) => c.commands.list('app2'), ['GET /applications/app2/commands']],
    ['listForGuild(appId, guildId)', (c) => c.commands.listForGuild('app2', 'g1'), ['GET /guilds/g1/commands/app2']],
    ['create(appId, definition)', (c) => c.commands.create('app2', defs[0]!), ['POST /applications/app2/commands']],
    ['replace(appId, definitions)', (c) => c.commands.replace('app2', defs), ['PUT /applications/app2/commands']],
    ['replaceForGuild(appId, guildId, definitions)', (c) => c.commands.replaceForGuild('app2', 'g1', defs), ['PUT /guilds/g1/commands/app2']],
    ['delete(appId, cmdId)', (c) => c.commands.delete('app2', 'cmd9'), ['DELETE /applications/app2/commands/cmd9']],
    ['sync(appId, definitions)', (c) => c.commands.sync('app2', defs), ['GET /applications/app2/commands', 'PUT /applications/app2/commands']],
    [
      'syncForGuild(appId, guildId, definitions)',
      (c) => c.commands.syncForGuild('app2', 'g1', defs),
      ['GET /guilds/g1/commands/app2', 'PUT /guilds/g1/commands/app2'],
    ],
  ])('%s addresses the application and community given', async (_label, call, expected) => {
    commandServer();
    await call(createMswClient());
    expect(sent()).toEqual(expected);
  });

  it('sends the definition validated and normalised', async () => {
    commandServer();
    const client = createMswClient();
    await client.commands.create('app3', { name: 'Ping', description: 'p' });
    expect(sent()).toEqual(['POST /applications/app3/commands']);
    expect(JSON.parse(recorder.requests[0]?.body ?? '{}')).toEqual({ name: 'ping', description: 'p', dm_permission: true });
  });

  it('passes call options (the last argument) through every new form', async () => {
    commandServer();
    const headers = { 'x-audit-log-reason': 'shapes' };
    const client = createMswClient();
    await client.commands.list('app2', { headers });
    await client.commands.listForGuild('app2', 'g1', { headers });
    await client.commands.create('app2', defs[0]!, { headers });
    await client.commands.replace('app2', defs, { headers });
    await client.commands.replaceForGuild('app2', 'g1', defs, { headers });
    await client.commands.delete('app2', 'c1', { headers });
    await client.commands.sync('app2', defs, { headers });
    await client.commands.syncForGuild('app2', 'g1', defs, { headers });
    expect(recorder.requests).toHaveLength(10);
    expect(recorder.requests.every((r) => r.headers['x-audit-log-reason'] === 'shapes')).toBe(true);
    const aborted = AbortSignal.abort();
    await expect(client.commands.delete('app2', 'c1', { signal: aborted })).rejects.toBeInstanceOf(AbortError);
    expect(recorder.requests).toHaveLength(10);
  });
});

describe('auth.refresh takes call options too', () => {
  it('sends the headers of the refresh it starts, and stops waiting on its signal', async () => {
    recorder.respond(() => ({ json: { access_token: 'fresh' } }));
    const client = createMswClient();
    await client.auth.refresh({ headers: { 'x-audit-log-reason': 'manual' } });
    expect(recorder.requests.map((r) => [r.url, r.headers['x-audit-log-reason']])).toEqual([['/api/v1/auth/refresh', 'manual']]);
    await expect(client.auth.refresh({ signal: AbortSignal.abort() })).rejects.toBeInstanceOf(AbortError);
    expect(recorder.requests).toHaveLength(1);
    // Options go to the request that starts, and only that one.
    await client.auth.refresh();
    expect(recorder.requests[1]?.headers['x-audit-log-reason']).toBeUndefined();
  });

  it('rejects a waiting caller on abort while the shared refresh goes on for the others', async () => {
    let release: () => void = () => undefined;
    recorder.respond(() => new Promise((resolve) => (release = () => resolve({ json: { access_token: 'fresh' } }))));
    const client = createMswClient();
    const first = client.auth.refresh();
    const controller = new AbortController();
    const second = client.auth.refresh({ signal: controller.signal });
    await expect.poll(() => recorder.requests.length).toBe(1);
    controller.abort();
    await expect(second).rejects.toBeInstanceOf(AbortError);
    release();
    await expect(first).resolves.toMatchObject({ body: { access_token: '[redacted]' } });
    expect(recorder.requests).toHaveLength(1);
  });
});
