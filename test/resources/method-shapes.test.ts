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
    ['listForGuild(guildId, appId)', (c) => c.commands.listForGuild('g1', 'app2'), ['GET /guilds/g1/commands/app2']],
    ['create(appId, definition)', (c) => c.commands.create('app2', defs[0]!), ['POST /applications/app2/commands']],
    ['replace(appId, definitions)', (c) => c.commands.replace('app2', defs), ['PUT /applications/app2/commands']],
    ['replaceForGuild(guildId, appId, definitions)', (c) => c.commands.replaceForGuild('g1', 'app2', defs), ['PUT /guilds/g1/commands/app2']],
    ['delete(appId, cmdId)', (c) => c.commands.delete('app2', 'cmd9'), ['DELETE /applications/app2/commands/cmd9']],
    ['sync(appId, definitions)', (c) => c.commands.sync('app2', defs), ['GET /applications/app2/commands', 'PUT /applications/app2/commands']],
    ['syncForGuild(guildId, appId, definitions)', (c) => c.commands.syncForGuild('g1', 'app2', defs), ['GET /guilds/g1/commands/app2', 'PUT /guilds/g1/commands/app2']],
  ])('%s addresses the application given, not the client option', async (_label, call, expected) => {
    commandServer();
    await call(createMswClient({ applicationId: 'app1' }));
    expect(sent()).toEqual(expected);
  });

  it('works on a client without the applicationId option', async () => {
    commandServer();
    const client = createMswClient({ applicationId: undefined });
    await client.commands.create('app3', { name: 'Ping', description: 'p' });
    await client.commands.delete('app3', 'c1');
    expect(sent()).toEqual(['POST /applications/app3/commands', 'DELETE /applications/app3/commands/c1']);
    expect(JSON.parse(recorder.requests[0]?.body ?? '{}')).toEqual({ name: 'ping', description: 'p', dm_permission: true });
  });

  it('passes call options (the last argument) through every new form', async () => {
    commandServer();
    const headers = { 'x-audit-log-reason': 'shapes' };
    const client = createMswClient();
    await client.commands.list('app2', { headers });
    await client.commands.listForGuild('g1', 'app2', { headers });
    await client.commands.create('app2', defs[0]!, { headers });
    await client.commands.replace('app2', defs, { headers });
    await client.commands.replaceForGuild('g1', 'app2', defs, { headers });
    await client.commands.delete('app2', 'c1', { headers });
    await client.commands.sync('app2', defs, { headers });
    await client.commands.syncForGuild('g1', 'app2', defs, { headers });
    expect(recorder.requests).toHaveLength(10);
    expect(recorder.requests.every((r) => r.headers['x-audit-log-reason'] === 'shapes')).toBe(true);
    const aborted = AbortSignal.abort();
    await expect(client.commands.delete('app2', 'c1', { signal: aborted })).rejects.toBeInstanceOf(AbortError);
    expect(recorder.requests).toHaveLength(10);
  });
});

describe('commands: the deprecated forms keep working', () => {
  it.each<[string, (c: Client) => Promise<unknown>, string[]]>([
    ['list()', (c) => c.commands.list(), ['GET /applications/app1/commands']],
    ['list({ applicationId })', (c) => c.commands.list({ applicationId: 'app2' }), ['GET /applications/app2/commands']],
    ['list({ guildId })', (c) => c.commands.list({ guildId: 'g1' }), ['GET /guilds/g1/commands/app1']],
    ['create(definition)', (c) => c.commands.create(defs[0]!), ['POST /applications/app1/commands']],
    ['create(definition, { applicationId })', (c) => c.commands.create(defs[0]!, { applicationId: 'app2' }), ['POST /applications/app2/commands']],
    ['replace(definitions, { applicationId })', (c) => c.commands.replace(defs, { applicationId: 'app2' }), ['PUT /applications/app2/commands']],
    ['replace(definitions, { guildId })', (c) => c.commands.replace(defs, { guildId: 'g1' }), ['PUT /guilds/g1/commands/app1']],
    ['delete(cmdId)', (c) => c.commands.delete('cmd1'), ['DELETE /applications/app1/commands/cmd1']],
    ['delete(cmdId, { applicationId })', (c) => c.commands.delete('cmd1', { applicationId: 'app2' }), ['DELETE /applications/app2/commands/cmd1']],
    ['sync(definitions, { guildId })', (c) => c.commands.sync(defs, { guildId: 'g1' }), ['GET /guilds/g1/commands/app1', 'PUT /guilds/g1/commands/app1']],
  ])('%s', async (_label, call, expected) => {
    commandServer();
    await call(createMswClient({ applicationId: 'app1' }));
    expect(sent()).toEqual(expected);
  });

  it('still says where the application id goes when neither form gives it', async () => {
    const client = createMswClient({ applicationId: undefined });
    await expect(client.commands.delete('cmd1')).rejects.toThrow(/applicationId: is required: pass it as the first argument/);
    expect(recorder.requests).toHaveLength(0);
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
