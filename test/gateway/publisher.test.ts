/**
 * The publisher of a Gateway's dispatches: in order per shard, tried again
 * after a failure, and a successor resumes after the last dispatch published,
 * never after one only received.
 */
import { describe, expect, it } from 'vitest';
import { DispatchPublisher, type PublishedDispatch } from '../../src/gateway/publisher.js';
import { Client } from '../../src/index.js';
import { MemoryGatewaySessionStore } from '../../src/stores.js';
import { useEmulatorWithAdmin } from '../helpers/emulators.js';
import { until } from '../helpers/until.js';

const event = (s: number, t = 'MESSAGE_CREATE', shardId = 0) => ({ t, s, d: { n: s }, shardId });

describe('DispatchPublisher', () => {
  it('keeps a queue per shard set and shard: during a reshard, shard 0 of the old set and shard 0 of the new are two sessions', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const changed: string[] = [];
    const publisher = new DispatchPublisher(
      { publish: (events) => (events[0]?.s === 40 ? gate : Promise.resolve()) },
      {},
      { changed: (shardId, set) => changed.push(`${set}:${shardId}`), failed: () => undefined },
    );
    publisher.push(event(40), 0); // the old set's shard 0, held by the sink
    publisher.push(event(3), 1); // the new set's shard 0, published at once
    await until(() => changed.includes('1:0'), { what: "the new set's shard 0 published" });
    expect(publisher.of(1).resumableSequence(0, 3), "the new set's shard 0 is not held back by the old one's queue").toBe(3);
    expect(publisher.of(0).resumableSequence(0, 40)).toBe(39);
    expect(changed).toEqual(['1:0']);
    release();
    await publisher.flush(1000);
    expect(changed).toEqual(['1:0', '0:0']);
    expect(publisher.of(0).resumableSequence(0, 40)).toBe(40);
  });

  it('a successor resumes after the last dispatch published: the saved sequence waits for the sink', async () => {
    const stored: PublishedDispatch[] = [];
    let release!: () => void;
    let gate = new Promise<void>((resolve) => (release = resolve));
    const changed: number[] = [];
    const publisher = new DispatchPublisher(
      {
        publish: async (events) => {
          await gate;
          stored.push(...events);
        },
      },
      { batchSize: 2 },
      { changed: (shardId) => changed.push(shardId), failed: () => undefined },
    );
    for (let s = 5; s <= 9; s++) publisher.push(event(s));
    // Received up to 9, nothing published: a successor must resume from 4 and have 5..9 replayed.
    expect(publisher.resumableSequence(0, 9)).toBe(4);
    release();
    await publisher.flush(1000);
    expect(publisher.resumableSequence(0, 9)).toBe(9);
    expect(stored.map((item) => item.s)).toEqual([5, 6, 7, 8, 9]);
    // Blocked again: 10 and 11 received, not published; the saved sequence stays at 9 until they are.
    gate = new Promise<void>((resolve) => (release = resolve));
    publisher.push(event(10));
    publisher.push(event(11));
    expect(publisher.resumableSequence(0, 11)).toBe(9);
    release();
    await publisher.flush(1000);
    expect(publisher.resumableSequence(0, 11)).toBe(11);
    expect(changed.length).toBeGreaterThanOrEqual(3);
  });

  it('a failing sink is tried again in order, each failure reported; READY and RESUMED are not published by default', async () => {
    const stored: number[] = [];
    const failures: unknown[] = [];
    let failuresLeft = 2;
    const publisher = new DispatchPublisher(
      {
        publish: async (events) => {
          if (failuresLeft-- > 0) throw new Error('redis is down');
          stored.push(...events.map((item) => Number(item.s)));
        },
      },
      {},
      { changed: () => undefined, failed: (error) => failures.push(error) },
    );
    expect(publisher.publishes('READY')).toBe(false);
    expect(publisher.publishes('RESUMED')).toBe(false);
    expect(publisher.publishes('INTERACTION_CREATE')).toBe(true);
    for (let s = 1; s <= 3; s++) publisher.push(event(s));
    await until(() => stored.length === 3, { what: 'published after two failures', timeoutMs: 3000 });
    expect(stored).toEqual([1, 2, 3]);
    expect(failures).toHaveLength(2);
    publisher.stop();
  });

  it('only the types asked for, and each shard in its own order', async () => {
    const stored: PublishedDispatch[] = [];
    const publisher = new DispatchPublisher(
      { publish: async (events) => void stored.push(...events) },
      { types: ['INTERACTION_CREATE'], handleLocally: true },
      { changed: () => undefined, failed: () => undefined },
    );
    expect(publisher.handleLocally).toBe(true);
    expect(publisher.publishes('MESSAGE_CREATE')).toBe(false);
    publisher.push(event(1, 'INTERACTION_CREATE', 0));
    publisher.push(event(1, 'INTERACTION_CREATE', 1));
    publisher.push(event(2, 'INTERACTION_CREATE', 0));
    await publisher.flush(1000);
    expect(stored.filter((item) => item.shardId === 0).map((item) => item.s)).toEqual([1, 2]);
    expect(stored.filter((item) => item.shardId === 1).map((item) => item.s)).toEqual([1]);
  });
});

describe('a Gateway publishing to a sink', () => {
  const start = useEmulatorWithAdmin();

  it("saves a shard's session once the sink took its dispatches, with no later dispatch to prompt it", async () => {
    const { emulator } = await start();
    const sessionStore = new MemoryGatewaySessionStore();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const client = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, gateway: { sessionStore } });
    client.gateway.publishTo({ publish: () => gate });
    try {
      await client.gateway.connect();
      const before = client.gateway.sequence ?? 0;
      emulator.dispatchEvent('MESSAGE_CREATE', { content: 'held by the sink' });
      await until(() => (client.gateway.sequence ?? 0) > before, { what: 'the dispatch received' });
      const received = client.gateway.sequence as number;
      await until(async () => (await sessionStore.load(0, 1)) !== undefined, { what: 'a session saved' });
      expect((await sessionStore.load(0, 1))?.sequence, 'saved before the sink took it').toBeLessThan(received);
      release();
      await until(async () => (await sessionStore.load(0, 1))?.sequence === received, { what: 'the session saved past the published dispatch' });
    } finally {
      await client.close();
    }
  });
});
