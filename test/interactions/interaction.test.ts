import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AutocompleteInteraction,
  type ComponentInteraction,
  Client,
  CommandInteraction,
  InteractionAlreadyAcknowledgedError,
  InteractionExpiredError,
  InteractionResponseError,
  UnknownInteraction,
  createInteraction,
  type InteractionPayload,
  type ModalActionRow,
  isCommunityChatError,
} from '../../src/index.js';
import { GatewayServer } from '../../src/testing/gateway-server.js';
import { SECRETS, startLoopbackServer, type LoopbackServer } from '../helpers/index.js';
import { until } from '../helpers/until.js';

/** A real callback endpoint on loopback: records callbacks and answers as told. */
let api: LoopbackServer;
let answer: 'ok' | 'reject' | 'reset' | 'slow' = 'ok';
beforeAll(async () => {
  api = await startLoopbackServer((request, response) => {
    if (answer === 'reject') {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end('{"message":"Invalid form body"}');
    } else if (answer === 'reset') request.socket.destroy();
    else if (answer === 'slow') setTimeout(() => response.writeHead(204).end(), 100);
    else response.writeHead(204).end();
  });
});
afterAll(() => api.close());

function clientFor(): Client {
  return new Client({ baseUrl: api.url, auth: { botToken: SECRETS.botToken }, retries: 0 });
}

const payload = (type: number, extra: Partial<InteractionPayload> = {}): InteractionPayload => ({
  id: `int-${Math.random().toString(36).slice(2)}`,
  type,
  token: 'interaction-secret-token',
  data: { name: 'quiz', options: [{ name: 'topic', type: 3, value: 'sp', focused: true }] },
  ...extra,
});

function interactionFor<T>(client: Client, p: InteractionPayload, now?: () => number): T {
  return createInteraction(p, (id, body) => client.interactions.respond(id, body), now) as T;
}

const callbacks = (id: string) => api.requests.filter((r) => r.url === `/api/v1/interactions/${id}/callback`);

const MODAL_ROW: ModalActionRow = { type: 1, components: [{ type: 4, custom_id: 'name', style: 1, label: 'Name' }] };

describe('answers bound to the callback endpoint', () => {
  it.each([
    ['reply(string)', (i: CommandInteraction) => i.reply('Hello!'), { interaction_type: 4, data: { content: 'Hello!' } }],
    ['reply({ content })', (i: CommandInteraction) => i.reply({ content: 'Hi', flags: 64 }), { interaction_type: 4, data: { content: 'Hi', flags: 64 } }],
    ['defer()', (i: CommandInteraction) => i.defer(), { interaction_type: 5, data: {} }],
    [
      'showModal()',
      (i: CommandInteraction) => i.showModal({ custom_id: 'm', title: 'T', components: [MODAL_ROW] }),
      { interaction_type: 9, data: { custom_id: 'm', title: 'T', components: [MODAL_ROW] } },
    ],
    ['respond(6)', (i: CommandInteraction) => i.respond(6), { interaction_type: 6, data: {} }],
  ])('%s sends one callback with the right interaction_type and bot credentials', async (_name, act, body) => {
    answer = 'ok';
    const interaction = interactionFor<CommandInteraction>(clientFor(), payload(2));
    await act(interaction);
    const [sent, ...rest] = callbacks(interaction.id);
    expect(rest).toHaveLength(0);
    expect(JSON.parse(sent?.body ?? '{}')).toEqual(body);
    expect(sent?.headers['authorization']).toBe(`Bot ${SECRETS.botToken}`);
    expect(interaction.state).toBe('acknowledged');
  });

  it('answers take call options like every other call: an aborted signal sends nothing and returns the interaction to pending', async () => {
    answer = 'ok';
    const client = clientFor();
    const interaction = createInteraction(payload(3, { data: { custom_id: 'b' } }), (id, body, options) => client.interactions.respond(id, body, options));
    const aborted = AbortSignal.abort();
    for (const act of [
      () => (interaction as ComponentInteraction).reply('x', { signal: aborted }),
      () => (interaction as ComponentInteraction).deferUpdate({ signal: aborted }),
      () => (interaction as ComponentInteraction).showModal({ custom_id: 'm', title: 'T', components: [MODAL_ROW] }, { signal: aborted }),
    ]) {
      await expect(act()).rejects.toBeInstanceOf(InteractionResponseError);
      expect(interaction.state).toBe('pending');
    }
    expect(callbacks(interaction.id)).toHaveLength(0);
    await (interaction as ComponentInteraction).deferUpdate({ timeoutMs: 5000 });
    expect(JSON.parse(callbacks(interaction.id)[0]?.body ?? '{}')).toEqual({ interaction_type: 6, data: {} });
  });

  it('each kind has the answers it can give, written once: showModal on commands and components, deferUpdate on components and modal submits', () => {
    const respond = async () => undefined;
    const of = (type: number) => createInteraction(payload(type, { data: { name: 'quiz', custom_id: 'c' } }), respond) as unknown as Record<string, unknown>;
    const has = (type: number) => ['showModal', 'awaitModalSubmit', 'deferUpdate', 'awaitComponent'].filter((name) => typeof of(type)[name] === 'function');
    expect(has(2)).toEqual(['showModal', 'awaitModalSubmit', 'awaitComponent']);
    expect(has(3)).toEqual(['showModal', 'awaitModalSubmit', 'deferUpdate', 'awaitComponent']);
    expect(has(5)).toEqual(['deferUpdate', 'awaitComponent']);
    expect(has(4)).toEqual([]);
    expect(of(2)['showModal']).toBe(of(3)['showModal']);
    expect(of(3)['deferUpdate']).toBe(of(5)['deferUpdate']);
  });

  it('two concurrent replies: exactly one request reaches the server, the other rejects locally naming the earlier type', async () => {
    answer = 'slow';
    const interaction = interactionFor<CommandInteraction>(clientFor(), payload(2));
    const [first, second] = await Promise.allSettled([interaction.reply('one'), interaction.defer()]);
    expect(first.status).toBe('fulfilled');
    expect(second.status).toBe('rejected');
    const error = (second as PromiseRejectedResult).reason as InteractionAlreadyAcknowledgedError;
    expect(error).toBeInstanceOf(InteractionAlreadyAcknowledgedError);
    expect(isCommunityChatError(error, 'InteractionAlreadyAcknowledgedError')).toBe(true);
    expect(error.previousType).toBe(4);
    expect(error.message).toMatch(/already acknowledged with interaction_type 4.*interaction_type 5 was not sent/);
    expect(error.ageMs).toBeGreaterThanOrEqual(0);
    expect(callbacks(interaction.id)).toHaveLength(1);
  });

  it('autocomplete may answer repeatedly', async () => {
    answer = 'ok';
    const interaction = interactionFor<AutocompleteInteraction>(clientFor(), payload(4));
    expect(interaction.focused).toEqual({ name: 'topic', value: 'sp' });
    await interaction.autocomplete([{ name: 'Space', value: 'space' }]);
    await interaction.autocomplete([{ name: 'Spain', value: 'spain' }]);
    await interaction.autocomplete([]);
    expect(callbacks(interaction.id).map((r) => JSON.parse(r.body).interaction_type)).toEqual([8, 8, 8]);
    // Another type after autocomplete results is a second acknowledgement.
    await expect(interaction.respond(4, { content: 'x' })).rejects.toBeInstanceOf(InteractionAlreadyAcknowledgedError);
  });

  it('expires 15 minutes after creation (the earlier of payload time and receipt), rejecting locally with the age', async () => {
    answer = 'ok';
    let clock = Date.now();
    const old = interactionFor<CommandInteraction>(clientFor(), payload(2, { created_at: new Date(clock - 16 * 60_000).toISOString() }), () => clock);
    const error = (await old.reply('late').catch((e: unknown) => e)) as InteractionExpiredError;
    expect(error).toBeInstanceOf(InteractionExpiredError);
    expect(error.ageMs).toBeGreaterThanOrEqual(16 * 60_000);
    expect(error.message).toMatch(/age 16 min 0 s.*expired/);
    expect(callbacks(old.id)).toHaveLength(0);

    const fresh = interactionFor<CommandInteraction>(clientFor(), payload(2), () => clock);
    clock += 15 * 60_000 - 1;
    expect(fresh.expired).toBe(false);
    clock += 1;
    await expect(fresh.reply('too late')).rejects.toBeInstanceOf(InteractionExpiredError);
    expect(callbacks(fresh.id)).toHaveLength(0);
  });

  it('reads the creation time from a snowflake id', () => {
    const created = Date.now() - 60_000;
    const id = ((BigInt(created) - 1_420_070_400_000n) << 22n).toString();
    const interaction = createInteraction({ id, type: 2, token: 't' }, async () => undefined);
    expect(Math.abs(interaction.createdAt - created)).toBeLessThan(2);
    expect(interaction.expiresAt).toBe(interaction.createdAt + 15 * 60_000);
  });

  it('reads the creation time when first asked, against when it was received, not when it is read', () => {
    let clock = 1_700_000_000_000;
    // Created 30 s after it was received (a clock skew): the receipt time wins, as it did when it arrived.
    const ahead = ((BigInt(clock + 30_000) - 1_420_070_400_000n) << 22n).toString();
    const skewed = createInteraction(
      { id: ahead, type: 2, token: 't' },
      async () => undefined,
      () => clock,
    );
    const plain = createInteraction(
      { id: 'not-a-snowflake', type: 2, token: 't' },
      async () => undefined,
      () => clock,
    );
    clock += 10 * 60_000;
    expect(skewed.createdAt).toBe(skewed.receivedAt);
    expect(plain.createdAt).toBe(clock - 10 * 60_000);
    expect(plain.expiresAt).toBe(plain.receivedAt + 15 * 60_000);
    expect(skewed.ageMs).toBe(10 * 60_000);
  });

  it('a server rejection returns the interaction to pending, with the status and age in the error', async () => {
    answer = 'reject';
    const interaction = interactionFor<CommandInteraction>(clientFor(), payload(2));
    const error = (await interaction.reply('x').catch((e: unknown) => e)) as InteractionResponseError;
    expect(error).toBeInstanceOf(InteractionResponseError);
    expect(error.status).toBe(400);
    expect(error.mayHaveBeenDelivered).toBe(false);
    expect(error.message).toMatch(/rejected the answer with 400; the interaction is pending again/);
    expect(interaction.state).toBe('pending');
    answer = 'ok';
    await interaction.reply('second try');
    expect(callbacks(interaction.id)).toHaveLength(2);
  });

  it('a transport failure after sending says the answer may have been delivered, and keeps the interaction acknowledged', async () => {
    answer = 'reset';
    const interaction = interactionFor<CommandInteraction>(clientFor(), payload(2));
    const error = (await interaction.reply('x').catch((e: unknown) => e)) as InteractionResponseError;
    expect(error.mayHaveBeenDelivered).toBe(true);
    expect(error.message).toMatch(/may have been delivered/);
    expect(interaction.state).toBe('acknowledged');
    await expect(interaction.reply('again')).rejects.toBeInstanceOf(InteractionAlreadyAcknowledgedError);
    expect(callbacks(interaction.id)).toHaveLength(1);
    answer = 'ok';
  });

  it('never exposes the interaction token', async () => {
    const { inspect } = await import('node:util');
    const interaction = createInteraction(payload(2), async () => undefined);
    const text = JSON.stringify(interaction) + inspect(interaction) + JSON.stringify(interaction.raw);
    expect(text).not.toContain('interaction-secret-token');
    expect(interaction).toBeInstanceOf(CommandInteraction);
    expect(createInteraction(payload(42), async () => undefined)).toBeInstanceOf(UnknownInteraction);
  });
});

describe('reply() through the Gateway, end to end over real sockets', () => {
  it('a command handler replies through the callback endpoint', async () => {
    answer = 'ok';
    const server = new GatewayServer({ heartbeatIntervalMs: 1000 });
    await server.listening();
    const client = new Client({ baseUrl: api.url, auth: { botToken: SECRETS.botToken }, gateway: { url: server.url } });
    try {
      client.gateway.onCommand('quiz', (interaction) => interaction.reply(`Quiz about ${String(interaction.options['topic'])}`));
      await client.gateway.connect();
      server.dispatch('INTERACTION_CREATE', { ...payload(2), id: 'e2e-1' });
      await until(() => callbacks('e2e-1').length > 0, { timeoutMs: 3000, what: 'the callback of e2e-1 at the API server' });
      expect(JSON.parse(callbacks('e2e-1')[0]?.body ?? '{}')).toEqual({ interaction_type: 4, data: { content: 'Quiz about sp' } });
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe('the message of a component interaction', () => {
  const noop = async () => undefined;
  it('types the fields a bot reads (a string id, content, flags), leaves out one of the wrong type, keeps the rest', () => {
    const built = createInteraction(
      payload(3, { data: { custom_id: 'b' }, message: { id: 'm1', content: 'Pick', flags: 64, components: [], pinned: false } }),
      noop,
    ) as ComponentInteraction;
    // Typed: these compile as string / number without a cast.
    const id: string | undefined = built.message?.id;
    const flags: number | undefined = built.message?.flags;
    expect({ id, flags, content: built.message?.content, pinned: built.message?.['pinned'] }).toEqual({ id: 'm1', flags: 64, content: 'Pick', pinned: false });
    const odd = createInteraction(payload(3, { data: { custom_id: 'b' }, message: { id: 5, content: 'x' } }), noop) as ComponentInteraction;
    expect(odd.message).toEqual({ content: 'x' });
    expect((createInteraction(payload(3, { data: { custom_id: 'b' }, message: 'no' }), noop) as ComponentInteraction).message).toBeUndefined();
  });
});

describe('a command’s sub-command path', () => {
  const noop = async () => undefined;
  const command = (options: unknown) => createInteraction(payload(2, { data: { name: 'admin', options } }), noop) as CommandInteraction;

  it('is empty and frozen when the options name none (one array shared by such commands), and its own path otherwise', () => {
    const [first, second] = [command([{ name: 'topic', type: 3, value: 'sp' }]), command(undefined)];
    for (const interaction of [first, second]) {
      expect(interaction.subcommand, interaction.id).toEqual([]);
      expect(Object.isFrozen(interaction.subcommand), interaction.id).toBe(true);
    }
    // Shared, so it cannot be changed through one interaction.
    expect(() => (first.subcommand as string[]).push('x')).toThrow(TypeError);
    expect(second.subcommand).toEqual([]);
    const nested = command([{ name: 'ban', type: 2, options: [{ name: 'user', type: 1, options: [{ name: 'reason', type: 3, value: 'spam' }] }] }]);
    expect([nested.subcommand, nested.options]).toEqual([['ban', 'user'], { reason: 'spam' }]);
    // Each path is its own array: another command's path is not changed by this one's.
    const other = command([{ name: 'kick', type: 1, options: [] }]);
    expect([other.subcommand, nested.subcommand]).toEqual([['kick'], ['ban', 'user']]);
  });
});
