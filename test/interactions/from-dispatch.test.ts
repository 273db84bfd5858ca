import { describe, expect, it } from 'vitest';
import { interactionFromDispatch } from '../../src/interactions/from-dispatch.js';
import { ValidationError } from '../../src/index.js';

const respond = async () => undefined;
const now = () => 1_700_000_000_000;

describe('interactionFromDispatch', () => {
  it('builds the typed interaction of each kind', () => {
    const kinds = [1, 2, 3, 4, 5, 42].map((type) => {
      const built = interactionFromDispatch({ id: `i${type}`, type, token: 'tok-abcdef', data: { name: 'quiz', custom_id: 'b1' } }, respond, now);
      return built.ok ? built.interaction.kind : built.error.message;
    });
    expect(kinds).toEqual(['ping', 'command', 'component', 'autocomplete', 'modalSubmit', 'unknown']);
  });

  it('keeps unknown fields and reports a payload that fails the schema as a ValidationError', () => {
    const built = interactionFromDispatch({ id: 'x', type: 2, token: 'tok-abcdef', brand_new: { a: 1 } }, respond, now);
    expect(built.ok && built.interaction.raw['brand_new']).toEqual({ a: 1 });
    const missing = interactionFromDispatch({ id: 'x', type: 2 }, respond, now);
    expect(missing.ok).toBe(false);
    expect(!missing.ok && missing.error).toBeInstanceOf(ValidationError);
    expect(!missing.ok && missing.error.message).toBe('Invalid input for INTERACTION_CREATE: token: expected a non-empty string, received nothing');
    expect(!missing.ok && (missing.error as ValidationError).issues).toEqual([{ path: 'token', message: 'expected a non-empty string, received nothing' }]);
  });
});

describe('payloads that pass a loose schema but break the builder (point 2)', () => {
  const hostile: [string, Record<string, unknown>][] = [
    ['a command whose name is an object', { type: 2, data: { name: { toString: 1 } } }],
    ['a modal whose row components is a number', { type: 5, data: { custom_id: 'f', components: [{ components: 5 }] } }],
    [
      'a modal input whose value is an object',
      { type: 5, data: { custom_id: 'f', components: [{ components: [{ custom_id: 'a', value: { toString: null } }] }] } },
    ],
    ['a select whose values hold an object', { type: 3, data: { custom_id: 's', values: [{ toString: null }] } }],
    ['a command whose sub-command name is an object', { type: 2, data: { name: 'q', options: [{ type: 1, name: { toString: null }, options: [] }] } }],
  ];
  for (const [name, payload] of hostile) {
    it(`${name}: a ValidationError, never a throw`, () => {
      const built = interactionFromDispatch({ id: 'h1', token: 'tok-abcdef', ...payload }, respond, now);
      expect(built.ok).toBe(false);
      expect(!built.ok && built.error).toBeInstanceOf(ValidationError);
    });
  }

  it('still allows unknown extra fields at every level', () => {
    const built = interactionFromDispatch(
      {
        id: 'e1',
        type: 5,
        token: 'tok-abcdef',
        extra: 1,
        data: { custom_id: 'f', extra: 2, components: [{ type: 1, extra: 3, components: [{ custom_id: 'a', value: 'v', extra: 4 }] }] },
      },
      respond,
      now,
    );
    expect(built.ok && built.interaction.kind === 'modalSubmit' && built.interaction.fields).toEqual({ a: 'v' });
  });

  it('over a real socket: each bad payload is an error event plus the raw dispatch; the connection and later interactions go on', async () => {
    const { Client } = await import('../../src/index.js');
    const { behaveWell, frames, startWsServer } = await import('../helpers/ws-server.js');
    const { nextEvent } = await import('../helpers/events.js');
    const ws = await startWsServer((peer) => behaveWell(peer));
    const client = new Client({ baseUrl: 'http://127.0.0.1:9', auth: { botToken: 'bot-token-for-hostile' }, gateway: { url: ws.url } });
    try {
      const gateway = client.gateway;
      const errors: Error[] = [];
      const dispatched: unknown[] = [];
      const delivered: string[] = [];
      gateway.on('error', (error) => errors.push(error));
      gateway.on('dispatch', (event) => event.t === 'INTERACTION_CREATE' && dispatched.push(event.d));
      gateway.on('interactionCreate', (interaction) => delivered.push(interaction.id));
      await gateway.connect();
      const peer = await ws.peer(0);
      for (const [index, [, payload]] of hostile.entries())
        peer.send(frames.dispatch('INTERACTION_CREATE', index + 2, { id: `h${index}`, token: 'tok-abcdef', ...payload }));
      const good = nextEvent(gateway, 'interactionCreate', { what: () => `the good interaction (delivered: ${JSON.stringify(delivered)})` });
      peer.send(frames.dispatch('INTERACTION_CREATE', 50, { id: 'good', type: 2, token: 'tok-abcdef', data: { name: 'quiz' } }));
      const [first] = await good;
      expect(first.id, 'the first interaction delivered').toBe('good');
      expect(delivered).toEqual(['good']);
      expect(errors).toHaveLength(hostile.length);
      for (const error of errors) expect(error).toBeInstanceOf(ValidationError);
      expect(dispatched).toHaveLength(hostile.length + 1);
      expect(gateway.status).toBe('ready');
    } finally {
      await client.close();
      await ws.close();
    }
  });
});
