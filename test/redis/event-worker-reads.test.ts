/**
 * What a worker reads when it takes entries over (`redis/event-worker-reads.ts`), on replies of a shape Redis should not
 * give (a proxy, another server speaking the protocol): nothing throws, every number is bounded.
 */
import { expect, it } from 'vitest';
import { reclaimEntries } from '../../src/redis/event-worker-reads.js';
import type { RedisEventStream } from '../../src/redis/event-stream.js';

const fake = (scriptReply: unknown, pendingReply: unknown = []) =>
  ({
    key: 's',
    script: async () => scriptReply,
    command: async () => pendingReply,
    ack: async () => undefined,
  }) as unknown as RedisEventStream;

it('replies of an unexpected shape are read as nothing, never a bare TypeError; a delivery count that is no whole number from 1 reads as a redelivery', async () => {
  const cases: [string, unknown, unknown][] = [
    ['deleted not an array', [[], ['0-0', [], 7]], []],
    ['entries a string', [[], ['0-0', 'x', []]], []],
    ['XPENDING row not an array', [[], ['0-0', [['1-0', ['f', 'v']]], []]], [42]],
    ['delivery count not a number', [[], ['0-0', [['1-0', ['f', 'v']]], []]], [['1-0', 'c', 5, 'many']]],
    ['delivery count a fraction', [[], ['0-0', [['1-0', ['f', 'v']]], []]], [['1-0', 'c', 5, '1.5']]],
    ['delivery count 0', [[], ['0-0', [['1-0', ['f', 'v']]], []]], [['1-0', 'c', 5, 0]]],
    ['delivery count 3', [[], ['0-0', [['1-0', ['f', 'v']]], []]], [['1-0', 'c', 5, 3]]],
  ];
  const out: string[] = [];
  for (const [name, reply, pending] of cases) {
    try {
      const r = await reclaimEntries(fake(reply, pending), 'g', 'c', 1000, 10);
      out.push(`${name}: ok counts=${JSON.stringify([...r.counts])}`);
    } catch (error) {
      out.push(`${name}: threw ${(error as Error).name}: ${(error as Error).message}`);
    }
  }
  expect(out, 'each odd reply').toEqual([
    'deleted not an array: ok counts=[]',
    'entries a string: ok counts=[]',
    'XPENDING row not an array: ok counts=[]',
    'delivery count not a number: ok counts=[["1-0",2]]',
    'delivery count a fraction: ok counts=[["1-0",2]]',
    'delivery count 0: ok counts=[["1-0",2]]',
    'delivery count 3: ok counts=[["1-0",3]]',
  ]);
});
