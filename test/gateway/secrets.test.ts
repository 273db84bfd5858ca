/**
 * Point 5: known secret values (the bot token, each interaction's token) are
 * scrubbed from every event and error the Gateway emits; the book of
 * interaction tokens is bounded in size and time.
 */
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { DROPPED_CAUSE, MAX_CAUSE_ERRORS } from '../../src/core/redact.js';
import { MAX_REMEMBERED_INTERACTION_TOKENS, SecretBook } from '../../src/gateway/secrets.js';
import { MAX_CAUSE_DEPTH, errorTexts, scrubError } from '../../src/core/redact.js';
import { Client, INTERACTION_LIFETIME_MS } from '../../src/index.js';
import { SECRETS } from '../helpers/index.js';
import { behaveWell, frames, startWsServer, type WsPeer, until } from '../helpers/ws-server.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const INTERACTION_TOKEN = 'itok-Rr42-interaction.secret';

describe('secrets in Gateway events', () => {
  it('scrubs the bot token and interaction tokens a server echoes in READY, dispatches and close reasons', async () => {
    const ws = await startWsServer();
    cleanups.push(() => ws.close());
    ws.onConnection((peer: WsPeer) => {
      if (ws.peers.length > 1) return behaveWell(peer);
      behaveWell(peer, { ready: { motd: `welcome, ${SECRETS.botToken}`, nested: { echo: [encodeURIComponent(SECRETS.botToken)] } } });
    });
    const client = new Client({
      baseUrl: 'http://127.0.0.1:9',
      auth: { botToken: SECRETS.botToken },
      gateway: { url: ws.url, reconnectBaseDelayMs: 5, reconnectMaxDelayMs: 20 },
    });
    cleanups.push(() => client.close());
    const gateway = client.gateway;
    const seen: unknown[] = [];
    for (const name of ['ready', 'resumed', 'reconnecting', 'close', 'debug', 'error', 'dispatch'] as const)
      gateway.on(name, (event: unknown) => seen.push(event));
    const dispatched: string[] = [];
    gateway.on('dispatch', (event) => dispatched.push(event.t));
    const ready: Record<string, unknown>[] = [];
    gateway.on('ready', (event) => ready.push(event.data));
    const interactions: string[] = [];
    gateway.onInteraction('command', (interaction) => {
      interactions.push(interaction.id);
    });
    await gateway.connect();
    const peer = await ws.peer(0);
    peer.send(frames.dispatch('INTERACTION_CREATE', 2, { id: 'i1', type: 2, token: INTERACTION_TOKEN, data: { name: 'quiz' } }));
    peer.send(frames.dispatch('MESSAGE_CREATE', 3, { content: `someone pasted ${INTERACTION_TOKEN} here`, author: { note: SECRETS.botToken } }));
    // A payload that fails the schema, with the interaction token in its (wrongly typed) fields.
    peer.send(
      frames.dispatch('INTERACTION_CREATE', 4, { id: 'i2', type: 2, token: 'itok-second-Bb17.secret', data: { name: { echo: 'itok-second-Bb17.secret' } } }),
    );
    await until(() => interactions.length >= 1 && dispatched.length === 4);
    peer.close(4000, `token ${SECRETS.botToken} was sent from the wrong place`);
    await until(() => gateway.status === 'ready' && ws.peers.length === 2);

    const text =
      JSON.stringify(seen) + seen.map((event) => (event instanceof Error ? `${event.message}${event.stack ?? ''}` : inspect(event, { depth: 10 }))).join();
    expect(text).not.toContain(SECRETS.botToken);
    expect(text).not.toContain(encodeURIComponent(SECRETS.botToken));
    expect(text).not.toContain(INTERACTION_TOKEN);
    expect(text).not.toContain('itok-second-Bb17.secret');
    // What is not secret stays readable.
    expect(ready[0]?.['motd']).toBe('welcome, [redacted]');
    expect(text).toContain('someone pasted [redacted] here');
    expect(text).toContain('was sent from the wrong place');
  });

  it('scrubs the bot token from the cause chain of an error event', async () => {
    const ws = await startWsServer(behaveWell);
    cleanups.push(() => ws.close());
    let turns = 0;
    const identifyThrottle = {
      wait: async () => {
        if (++turns === 1) throw new Error('the throttle failed', { cause: new Error(`its store said: bad token ${SECRETS.botToken}`) });
      },
    };
    const client = new Client({
      baseUrl: 'http://127.0.0.1:9',
      auth: { botToken: SECRETS.botToken },
      gateway: { url: ws.url, identifyThrottle, reconnectBaseDelayMs: 5, reconnectMaxDelayMs: 20 },
    });
    cleanups.push(() => client.close());
    const errors: Error[] = [];
    client.gateway.on('error', (error) => errors.push(error));
    await client.gateway.connect();
    expect(errors.length).toBeGreaterThan(0);
    const chain: string[] = [];
    for (let error: unknown = errors[0]; error instanceof Error; error = error.cause) chain.push(error.message, error.stack ?? '');
    expect(chain.join('\n'), 'the cause of the Identify throttle failure').toContain('its store said: bad token [redacted]');
    expect(chain.join('\n')).not.toContain(SECRETS.botToken);
  });

  it('keeps every interaction token redacted for its lifetime after a flood of 1,200 interactions', async () => {
    const ws = await startWsServer(behaveWell);
    cleanups.push(() => ws.close());
    const client = new Client({ baseUrl: 'http://127.0.0.1:9', auth: { botToken: SECRETS.botToken }, gateway: { url: ws.url } });
    cleanups.push(() => client.close());
    const gateway = client.gateway;
    let created = 0;
    gateway.on('interactionCreate', () => void created++);
    const quoted: unknown[] = [];
    gateway.on('dispatch', (event) => {
      if (event.t === 'MESSAGE_CREATE') quoted.push(event.d);
    });
    await gateway.connect();
    const peer = await ws.peer(0);
    const tokenOf = (i: number) => `flood-${i}-Fx${(i * 7919).toString(36)}.secret`;
    for (let i = 1; i <= 1200; i++) peer.send(frames.dispatch('INTERACTION_CREATE', i + 1, { id: `i${i}`, type: 2, token: tokenOf(i), data: { name: 'x' } }));
    await until(() => created === 1200);
    peer.send(frames.dispatch('MESSAGE_CREATE', 1202, { content: `leaked ${tokenOf(1)} and ${tokenOf(151)} and ${tokenOf(1200)}` }));
    await until(() => quoted.length === 1);
    expect(JSON.stringify(quoted[0]), 'tokens #1, #151 and #1200 quoted after 1,200 interactions').toBe(
      JSON.stringify({ content: 'leaked [redacted] and [redacted] and [redacted]' }),
    );
  });
});

describe('SecretBook', () => {
  it('remembers interaction tokens for their lifetime only, and at most `capacity` of them', () => {
    let now = 1_000_000;
    let full = 0;
    const book = new SecretBook(
      () => now,
      3,
      () => void full++,
    );
    for (const token of ['tok-aaaa', 'tok-bbbb', 'tok-cccc', 'tok-dddd', 'tok-ffff']) book.remember(token);
    expect(book.interactionTokens()).toEqual(['tok-cccc', 'tok-dddd', 'tok-ffff']);
    expect(full, 'onFull is told once while the book stays full').toBe(1);
    now += INTERACTION_LIFETIME_MS + 1;
    book.remember('tok-eeee');
    expect(book.interactionTokens()).toEqual(['tok-eeee']);
    for (const token of ['tok-gggg', 'tok-hhhh', 'tok-iiii']) book.remember(token);
    expect(full, 'told again once it had room and filled up').toBe(2);
  });

  it('keeps every live token at any rate, growing its ring up to the hard cap and back to no more than it needs', () => {
    let now = 0;
    let full = 0;
    const book = new SecretBook(
      () => now,
      MAX_REMEMBERED_INTERACTION_TOKENS,
      () => void full++,
    );
    expect(book.slots).toBeLessThanOrEqual(1024);
    // 5,000 tokens within one second: every one is still known a second before the first expires.
    for (let i = 0; i < 5000; i++) {
      now = i / 5;
      book.remember(`tok-${i}-Gr${i.toString(36)}`);
    }
    now = INTERACTION_LIFETIME_MS - 1;
    expect(book.scrubText('tok-0-Gr0, tok-150-Gr46, tok-4999-Gr3uv', undefined)).toBe('[redacted], [redacted], [redacted]');
    expect(book.interactionTokens()).toHaveLength(5000);
    expect(book.slots).toBe(8192);
    expect(full).toBe(0);
    // The cap holds: a book of 2,048 given 3,000 live tokens keeps the newest 2,048 and says so once.
    const capped = new SecretBook(
      () => 0,
      2048,
      () => void full++,
    );
    for (let i = 0; i < 3000; i++) capped.remember(`cap-${i}`);
    expect(capped.slots).toBe(2048);
    expect(capped.interactionTokens()[0]).toBe('cap-952');
    expect(full).toBe(1);
  });

  it('checks each string only against the tokens whose anchor it holds, and still scrubs every encoded form', () => {
    const book = new SecretBook(() => 0, 1000);
    const tokens = Array.from({ length: 1000 }, (_, i) => `itok.${i.toString(36).padStart(3, '0')}Qx/${(i * 7919).toString(36)}&z!`);
    for (const token of tokens) book.remember(token);
    const target = tokens[500]!;
    const value = {
      raw: `echo ${target}`,
      url: `https://x.test/?t=${encodeURIComponent(target)}`,
      json: JSON.stringify({ t: target }),
      html: target.replace(/&/g, '&amp;'),
      nested: [[{ deep: `<${target}>` }]],
    };
    // A handful of candidates, not a thousand: the bot token and the tokens sharing the target's anchor.
    const candidates = book.secretsIn([value.raw], 'bot-token-Tt00');
    expect(candidates).toContain(target);
    expect(candidates).toContain('bot-token-Tt00');
    expect(candidates.length).toBeLessThan(20);
    const redacted = JSON.stringify(book.redact(value, 'bot-token-Tt00'));
    expect(redacted).not.toContain(target);
    expect(redacted).not.toContain(encodeURIComponent(target));
    expect(redacted).not.toContain(JSON.stringify(target).slice(1, -1));
    expect(redacted).not.toContain(target.replace(/&/g, '&amp;'));
    expect(redacted).toContain('https://x.test/?t=[redacted]');
    // A token without four letters or digits in a row has no anchor: it is always a candidate.
    book.remember('a-b-c-d-e');
    expect(book.secretsIn(['nothing here'], undefined)).toContain('a-b-c-d-e');
    expect(book.scrubText('said a-b-c-d-e', undefined)).toBe('said [redacted]');
    // Forgotten tokens leave the index.
    const small = new SecretBook(() => 0, 1);
    small.remember('first-Aa11-token');
    small.remember('second-Bb22-token');
    expect(small.secretsIn(['first-Aa11-token'], undefined)).not.toContain('first-Aa11-token');
  });

  it('indexes a remembered token only when something is scrubbed, and still finds every token remembered since', () => {
    let now = 0;
    const book = new SecretBook(() => now, 4);
    book.remember('first-Aa11-token');
    expect(book.scrubText('said first-Aa11-token', undefined)).toBe('said [redacted]');
    // Remembered after the index caught up: found by the next scrub.
    book.remember('second-Bb22-token');
    expect(book.secretsIn(['second-Bb22-token'], undefined)).toContain('second-Bb22-token');
    // Seen again: it lives on from now, and is not indexed twice (it is forgotten once, at its new time).
    now = INTERACTION_LIFETIME_MS - 1;
    book.remember('first-Aa11-token');
    now = INTERACTION_LIFETIME_MS + 1;
    book.remember('third-Cc33-token');
    expect(book.interactionTokens()).toEqual(['first-Aa11-token', 'third-Cc33-token']);
    expect(book.secretsIn(['second-Bb22-token first-Aa11-token'], undefined)).toEqual(['first-Aa11-token']);
    now = 2 * INTERACTION_LIFETIME_MS;
    expect(book.secretsIn(['first-Aa11-token third-Cc33-token'], undefined)).toEqual(['third-Cc33-token']);
  });

  it('keeps a token remembered twice in the index until its last entry is forgotten, and indexes each token remembered', () => {
    const book = new SecretBook(() => 0, 3);
    book.remember('twice-Tw22-token');
    book.remember('twice-Tw22-token');
    book.remember('other-Oo11-token');
    expect(book.interactionTokens()).toEqual(['twice-Tw22-token', 'other-Oo11-token']);
    // Both entries indexed, then the first forgotten: the token stays.
    book.scrubText('index what is remembered so far', undefined);
    // The first entry is forgotten; the second still holds the token.
    book.remember('third-Th33-token');
    expect(book.secretsIn(['twice-Tw22-token other-Oo11-token third-Th33-token'], undefined).sort()).toEqual([
      'other-Oo11-token',
      'third-Th33-token',
      'twice-Tw22-token',
    ]);
    // Now its last entry goes too, and it leaves the index.
    book.remember('fourth-Fo44-token');
    expect(book.secretsIn(['twice-Tw22-token'], undefined)).toEqual([]);
    expect(book.scrubText('twice-Tw22-token fourth-Fo44-token', undefined)).toBe('twice-Tw22-token [redacted]');
    // Many tokens through a small book with nothing scrubbed meanwhile: exactly the last three are found.
    for (let i = 0; i < 5000; i++) book.remember(`tok-${i}-Zz99`);
    const texts = Array.from({ length: 5000 }, (_, i) => `tok-${i}-Zz99`);
    expect(book.secretsIn(texts, undefined).sort()).toEqual(['tok-4997-Zz99', 'tok-4998-Zz99', 'tok-4999-Zz99']);
  });

  it('scrubs secrets from every error of a cause chain, to a bounded depth', () => {
    const secret = 'cause-Cc77-token';
    const root = new Error(`root quotes ${secret}`);
    const middle = new Error('middle', { cause: root });
    const top = new Error('top', { cause: middle });
    expect(errorTexts(top).join(' ')).toContain(secret);
    scrubError(top, [secret]);
    expect(root.message).toBe('root quotes [redacted]');
    expect(root.stack).not.toContain(secret);
    // A cycle ends the walk; a chain deeper than the bound is cut there.
    const looped = new Error(`loop ${secret}`);
    looped.cause = new Error('back', { cause: looped });
    expect(scrubError(looped, [secret]).message).toBe('loop [redacted]');
    let deep = new Error(`deepest ${secret}`);
    const deepest = deep;
    for (let i = 0; i < MAX_CAUSE_DEPTH + 2; i++) deep = new Error(`level ${i}`, { cause: deep });
    expect(errorTexts(deep), 'message and stack of the top error and of 8 causes').toHaveLength(2 * (MAX_CAUSE_DEPTH + 1));
    scrubError(deep, [secret]);
    expect(deepest.message).toContain(secret);
    // Past the bound, the deeper cause is dropped, not left in clear.
    let kept: Error = deep;
    for (let i = 0; i < MAX_CAUSE_DEPTH; i++) kept = kept.cause as Error;
    expect(kept.cause, `the cause of the error ${MAX_CAUSE_DEPTH} deep`).toBe(DROPPED_CAUSE);
  });

  it('scrubs a string or object cause, and every error of an AggregateError, and drops what lies past the bounds', () => {
    const secret = 'cause-Dd88-token';
    const byString = new Error('wrapped', { cause: `the server said ${secret}` });
    const byObject = new Error('wrapped', { cause: { body: { text: `echo ${secret}` }, access_token: 'other-value', code: 7 } });
    const inner = new Error(`inner ${secret}`);
    const aggregate = new AggregateError([inner, `plain ${secret}`, { note: secret }], 'several failed');
    const top = new Error('top', { cause: aggregate });
    for (const error of [byString, byObject, top]) expect(errorTexts(error).join(' '), 'the texts searched for secrets').toContain(secret);
    scrubError(byString, [secret]);
    scrubError(byObject, [secret]);
    scrubError(top, [secret]);
    expect(byString.cause).toBe('the server said [redacted]');
    expect(byObject.cause).toEqual({ body: { text: 'echo [redacted]' }, access_token: '[redacted]', code: 7 });
    expect(inner.message).toBe('inner [redacted]');
    expect(aggregate.errors).toEqual([inner, 'plain [redacted]', { note: '[redacted]' }]);
    // An AggregateError of 1,000 errors: the first MAX_CAUSE_ERRORS - 1 below it are scrubbed, the rest dropped.
    const many = Array.from({ length: 1000 }, (_, i) => new Error(`member ${i} ${secret}`));
    const wide = new AggregateError(many, 'wide');
    scrubError(wide, [secret]);
    expect(wide.errors).toHaveLength(MAX_CAUSE_ERRORS + 1);
    expect(wide.errors.at(-1)).toBe(DROPPED_CAUSE);
    expect(JSON.stringify(wide.errors.map((item: unknown) => (item instanceof Error ? item.message : item)))).not.toContain(secret);
  });
});
