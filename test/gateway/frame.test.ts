/**
 * Reading a frame by its head (src/gateway/frame.ts): op, s and t read from
 * the bytes, the payload parsed only when read, and the same frame as a whole
 * JSON.parse gives for every frame; over a Gateway, an event nothing listens
 * to is never parsed, while its sequence still advances.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client, GatewayError } from '../../src/index.js';
import { decodeFrame, dispatchEventOf, keptEventNames, unparsedPayload } from '../../src/gateway/frame.js';
import { readFrame } from '../../src/gateway/protocol.js';
import { receiveDispatch, sendDispatch } from '../../src/gateway/worker-messages.js';
import { SECRETS } from '../helpers/index.js';
import { behaveWell, frames, startWsServer, until } from '../helpers/ws-server.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const MESSAGE = { id: '1310000000000000001', content: 'hello "there" \\ é', author: { id: '1', username: 'ada' }, embeds: [] };

/** The frame as the whole-frame reader gives it, with `d` read (op, s, t, d; s and t absent read as null). */
function whole(text: string) {
  const frame = readFrame(text);
  return typeof frame === 'string' ? frame : { op: frame.op, s: frame.s ?? null, t: frame.t ?? null, d: frame.d };
}

function decoded(text: string) {
  const frame = decodeFrame(Buffer.from(text, 'utf8'));
  return typeof frame === 'string' ? frame : { op: frame.op, s: frame.s ?? null, t: frame.t ?? null, d: frame.d };
}

describe('decodeFrame', () => {
  it('reads a Discord-ordered dispatch by its head and leaves its payload unparsed until read', () => {
    const text = JSON.stringify({ t: 'MESSAGE_CREATE', s: 42, op: 0, d: MESSAGE });
    const frame = decodeFrame(Buffer.from(text));
    if (typeof frame === 'string') throw new Error(`not read: ${frame}`);
    expect([frame.op, frame.s, frame.t]).toEqual([0, 42, 'MESSAGE_CREATE']);
    // Unparsed: the frame's text is still what it carried.
    expect(unparsedPayload(frame)).toBe(text);
    expect(frame.d).toEqual(MESSAGE);
    // Parsed once: the bytes are let go of, the same object comes back.
    expect(unparsedPayload(frame)).toBeUndefined();
    expect(frame.d).toBe(frame.d);
  });

  it('gives the same op, s, t and d as a whole JSON.parse for every kind of frame, fast path or not', () => {
    const texts = [
      JSON.stringify({ t: 'MESSAGE_CREATE', s: 1, op: 0, d: MESSAGE }),
      JSON.stringify({ op: 0, s: 7, t: 'INTERACTION_CREATE', d: { id: '9', token: 'x' } }),
      // Names of one length in a row: each read as itself, not as the one before.
      JSON.stringify({ t: 'MESSAGE_DELETE', s: 2, op: 0, d: { id: '1' } }),
      JSON.stringify({ t: 'MESSAGE_CREATE', s: 3, op: 0, d: { id: '1' } }),
      JSON.stringify({ t: 'MESSAGE_CREATE', s: 4, op: 0, d: { id: '1' } }),
      // A name 64 characters longer shares the slot of the shorter one, and is not taken for it.
      JSON.stringify({ t: `MESSAGE_CREATE${'X'.repeat(64)}`, s: 5, op: 0, d: { id: '1' } }),
      JSON.stringify({ t: 'MESSAGE_CREATE', s: 6, op: 0, d: { id: '1' } }),
      '{"op":0,"s":3,"t":"A\tB","d":{}}',
      '{"ops":0,"s":3,"t":"X","d":{"a":1}}',
      '{"op":0,"s":3,"t":"X","d":{}',
      ' { "op" : 0 , "s" : null , "t" : null , "d" : { "a" : 1 } } \n',
      JSON.stringify({ op: 0, d: { a: 1 } }),
      JSON.stringify({ op: 0, s: 3, t: 'X', d: null }),
      JSON.stringify({ op: 0, s: 3, t: 'X', d: [1, 2] }),
      JSON.stringify({ d: { a: 1 }, op: 0, s: 3, t: 'X' }),
      JSON.stringify({ op: 0, s: 3, t: 'X', d: { a: 1 }, extra: true }),
      JSON.stringify({ op: 0, s: 3, t: 'X', extra: 1, d: { a: 1 } }),
      '{"op":0,"s":3.5,"t":"X","d":{}}',
      '{"op":0,"s":-3,"t":"X","d":{}}',
      '{"op":0,"s":1e3,"t":"X","d":{}}',
      '{"op":0,"s":03,"t":"X","d":{}}',
      '{"op":0,"s":12345678901234567,"t":"X","d":{}}',
      '{"op":0,"s":3,"t":"A\\"B","d":{}}',
      '{"op":0,"s":3,"t":"été","d":{}}',
      '{"op":0,"s":3,"t":5,"d":{}}',
      '{"op":0,"s":3,"s":4,"t":"X","d":{}}',
      '{"op":0.0,"s":3,"t":"X","d":{}}',
      '{"op":10,"d":{"heartbeat_interval":41250}}',
      '{"op":11}',
      '{"t":"X","s":3,"op":0,"d":{"a":1}}',
      // A member after `d` whose value is an object: the frame still ends in `}}`, and `d` is still only `d`.
      '{"op":0,"s":3,"t":"X","d":{"a":1},"x":{}}',
      '{"op":0,"s":3,"t":"X","d":{"a":{"b":"}"}},"shard":{"id":1}}',
      // `s` or `t` only after `d`: read whole, so the event is the one JSON.parse names.
      '{"op":0,"d":{"id":"A","token":"t"},"s":2,"t":"INTERACTION_CREATE","shard":{}}',
      '{"op":0,"t":"INTERACTION_CREATE","d":{"id":"A"},"s":2,"x":{}}',
      '{"op":0,"s":2,"d":{"id":"A"},"t":"INTERACTION_CREATE","x":{}}',
      'not json',
      '[1]',
      '{"op":"0","d":{}}',
    ];
    for (const text of texts) expect(decoded(text), text).toEqual(whole(text));
    // A long name is read, and not kept past its frame.
    expect(decoded(JSON.stringify({ t: 'Y'.repeat(100), s: 1, op: 0, d: {} }))).toMatchObject({ t: 'Y'.repeat(100) });
    expect(keptEventNames().filter((name) => name.length > 63)).toEqual([]);
  });

  it('reads a message that came as several buffers, or as an ArrayBuffer, like one buffer', () => {
    const text = JSON.stringify({ t: 'MESSAGE_CREATE', s: 9, op: 0, d: MESSAGE });
    const bytes = Buffer.from(text);
    for (const data of [[bytes.subarray(0, 10), bytes.subarray(10)], bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)]) {
      const frame = decodeFrame(data);
      if (typeof frame === 'string') throw new Error(`not read: ${frame}`);
      expect([frame.op, frame.s, frame.t, frame.d]).toEqual([0, 9, 'MESSAGE_CREATE', MESSAGE]);
    }
  });

  it('an op, s or t repeated after d that disagrees with the head is a GatewayError when the payload is read (a whole JSON.parse takes the last)', () => {
    for (const text of [
      '{"op":0,"s":3,"t":"MESSAGE_CREATE","d":{"id":"1"},"t":"INTERACTION_CREATE","x":{}}',
      '{"op":0,"s":3,"t":"MESSAGE_CREATE","d":{"id":"1"},"s":4,"x":{}}',
      '{"op":0,"s":3,"t":"MESSAGE_CREATE","d":{},"op":7,"x":{}}',
    ]) {
      const frame = decodeFrame(Buffer.from(text));
      if (typeof frame === 'string') throw new Error(`not read: ${frame}`);
      expect(() => frame.d, text).toThrow(/repeated after its payload disagree with its head \(dispatch MESSAGE_CREATE, sequence 3\)/);
    }
    // Repeated with the same values: nothing disagrees.
    const same = decodeFrame(Buffer.from('{"op":0,"s":3,"t":"X","d":{"a":1},"t":"X","x":{}}'));
    if (typeof same === 'string') throw new Error(`not read: ${same}`);
    expect(same.d).toEqual({ a: 1 });
  });

  it('a payload that is not JSON is found when it is read, as a GatewayError naming the dispatch, and no earlier', () => {
    const frame = decodeFrame(Buffer.from('{"t":"MESSAGE_CREATE","s":5,"op":0,"d":{"content":oops}}'));
    if (typeof frame === 'string') throw new Error(`not read: ${frame}`);
    expect([frame.s, frame.t]).toEqual([5, 'MESSAGE_CREATE']);
    expect(() => frame.d).toThrow(GatewayError);
    expect(() => frame.d).toThrow(/payload is not JSON \(dispatch MESSAGE_CREATE, sequence 5\)/);
  });

  it('a frame read by its head is its own dispatch event when the connection read the same name and sequence, else a wrapper says what it read', () => {
    const read = (text: string) => {
      const frame = decodeFrame(Buffer.from(text));
      if (typeof frame === 'string') throw new Error(`not read: ${frame}`);
      return frame;
    };
    const frame = read(JSON.stringify({ t: 'MESSAGE_CREATE', s: 8, op: 0, d: MESSAGE }));
    const event = dispatchEventOf(frame, 'MESSAGE_CREATE', 8);
    // One object per frame: the event is the frame, its shard set by the host, its payload still unparsed.
    expect(event).toBe(frame);
    expect([event.t, event.s, event.shardId, unparsedPayload(event)]).toEqual([
      'MESSAGE_CREATE',
      8,
      0,
      JSON.stringify({ t: 'MESSAGE_CREATE', s: 8, op: 0, d: MESSAGE }),
    ]);
    // A sequence the connection refused (delivered without one), a head without a name, a frame read whole: a wrapper with what was read.
    const cases = [
      { frame: read(JSON.stringify({ t: 'MESSAGE_CREATE', s: 9, op: 0, d: MESSAGE })), t: 'MESSAGE_CREATE', s: null },
      { frame: read('{"op":0,"s":3,"t":null,"d":{"id":"1"}}'), t: '', s: 3 },
      { frame: read('{"op":0,"d":{"id":"1"},"s":4,"t":"X"}'), t: 'X', s: 4 },
    ];
    for (const { frame: other, t, s } of cases) {
      const wrapped = dispatchEventOf(other, t, s);
      expect(wrapped, `${t} ${String(s)}`).not.toBe(other);
      expect([wrapped.t, wrapped.s, wrapped.d], `${t} ${String(s)}`).toEqual([t, s, other.d]);
    }
  });

  it('a dispatch crosses from a worker thread unparsed, and is parsed on the other side when read', () => {
    const text = JSON.stringify({ t: 'MESSAGE_CREATE', s: 8, op: 0, d: MESSAGE, shard: { id: 3 } });
    const frame = decodeFrame(Buffer.from(text));
    if (typeof frame === 'string') throw new Error(`not read: ${frame}`);
    const event = dispatchEventOf(frame, 'MESSAGE_CREATE', 8);
    event.shardId = 3;
    const sent = sendDispatch(event);
    expect(sent).toEqual({ t: 'MESSAGE_CREATE', s: 8, shardId: 3, text });
    const received = receiveDispatch(structuredClone(sent));
    expect([received.t, received.s, received.shardId]).toEqual(['MESSAGE_CREATE', 8, 3]);
    expect(received.d).toEqual(MESSAGE);
    // One already parsed (read here) crosses as its payload.
    expect(event.d).toEqual(MESSAGE);
    expect(sendDispatch(event)).toEqual({ t: 'MESSAGE_CREATE', s: 8, shardId: 3, d: MESSAGE });
  });
});

describe('an event nothing listens to', () => {
  it('is not parsed (a payload that is not JSON says nothing) while its sequence advances; with a dispatch listener it is', async () => {
    const server = await startWsServer((peer) => behaveWell(peer));
    cleanups.push(() => server.close());
    const client = new Client({ baseUrl: 'http://127.0.0.1:9', auth: { botToken: SECRETS.botToken }, gateway: { url: server.url } });
    cleanups.push(() => client.close());
    const errors: Error[] = [];
    client.gateway.on('error', (error) => errors.push(error));
    await client.gateway.connect();
    const peer = await server.peer(0);
    const broken = (s: number) => `{"t":"MESSAGE_CREATE","s":${s},"op":0,"d":{"content":oops}}`;
    peer.sendRaw(broken(2));
    peer.sendRaw(broken(3));
    await until(() => client.gateway.sequence === 3, { what: 'the sequence to reach 3 from two unparsed MESSAGE_CREATE' });
    expect(errors.map((error) => error.message)).toEqual([]);

    const seen: unknown[] = [];
    const fifth = new Promise<void>((resolve) =>
      client.gateway.on('dispatch', (event) => {
        seen.push(event.d);
        if (event.s === 5) resolve();
      }),
    );
    peer.sendRaw(broken(4));
    peer.send(frames.dispatch('MESSAGE_CREATE', 5, MESSAGE));
    await fifth;
    expect(client.gateway.sequence).toBe(5);
    expect(errors.map((error) => error.message)).toEqual(['received a frame whose payload is not JSON (dispatch MESSAGE_CREATE, sequence 4); ignored']);
    expect(seen).toEqual([MESSAGE]);
  });
});

describe('in a shard worker', () => {
  it('an event crosses to the main thread unparsed; a payload that is not JSON is an error event there once listened to, not a crash', async () => {
    const server = await startWsServer((peer) => behaveWell(peer));
    cleanups.push(() => server.close());
    const client = new Client({
      baseUrl: 'http://127.0.0.1:9',
      auth: { botToken: SECRETS.botToken },
      gateway: { url: server.url, compression: 'none', shards: 'auto', shardCount: 1, maxConcurrency: 1, shardsPerWorker: 1, sessionStartReserve: false },
    });
    cleanups.push(() => client.close());
    const errors: Error[] = [];
    client.gateway.on('error', (error) => errors.push(error));
    await client.gateway.connect();
    const peer = await server.peer(0);
    peer.sendRaw('{"t":"MESSAGE_CREATE","s":2,"op":0,"d":{"content":oops}}');
    await until(() => client.gateway.sequence === 2, { what: 'the unparsed MESSAGE_CREATE to reach the main thread' });
    const seen: unknown[] = [];
    const fourth = new Promise<void>((resolve) =>
      client.gateway.on('dispatch', (event) => {
        seen.push(event.d);
        if (event.s === 4) resolve();
      }),
    );
    peer.sendRaw('{"t":"MESSAGE_CREATE","s":3,"op":0,"d":{"content":oops}}');
    peer.send({ t: 'MESSAGE_CREATE', s: 4, op: 0, d: MESSAGE });
    await fourth;
    expect(seen).toEqual([MESSAGE]);
    expect(errors.map((error) => error.message)).toEqual(['received a frame whose payload is not JSON (dispatch MESSAGE_CREATE, sequence 3); ignored']);
  });
});
