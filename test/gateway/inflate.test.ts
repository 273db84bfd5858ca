/**
 * One connection's decompression context on its own: frames in, whole
 * messages out in order, and its bounds.
 */
import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/errors/index.js';
import { FrameInflater, ZlibStreamInflater } from '../../src/gateway/inflate.js';

function inflaterOf(maxBytes: number) {
  const messages: string[] = [];
  const failures: GatewayError[] = [];
  const inflater = new FrameInflater(
    'zlib-stream',
    maxBytes,
    (message) => messages.push(message.toString()),
    (error) => failures.push(error),
  );
  const drained = () => new Promise<void>((resolve) => inflater.drain(resolve));
  return { inflater, messages, failures, drained };
}

describe('FrameInflater', () => {
  it('delivers each message once whole, in order, and runs drain() after the last', async () => {
    const { inflater, messages, failures, drained } = inflaterOf(1024);
    const deflate = zlib.createDeflate({ flush: zlib.constants.Z_SYNC_FLUSH });
    const frames: Buffer[] = [];
    for (const text of ['{"op":10}', '{"op":11}', '{"op":0}']) {
      const chunks: Buffer[] = [];
      deflate.on('data', (chunk: Buffer) => chunks.push(chunk));
      await new Promise((resolve) => deflate.write(text, resolve));
      deflate.removeAllListeners('data');
      frames.push(Buffer.concat(chunks));
    }
    for (const frame of frames) inflater.push(frame);
    await drained();
    expect(messages).toEqual(['{"op":10}', '{"op":11}', '{"op":0}']);
    expect(failures).toEqual([]);
    inflater.destroy();
  });

  it('fails once, with a GatewayError, when frames waiting to be decompressed pass the bound, and takes nothing after', async () => {
    const { inflater, messages, failures, drained } = inflaterOf(1500);
    // Two 1 KB frames pushed at once: the second would make 2 KB wait in the stream.
    inflater.push(Buffer.alloc(1024, 1));
    inflater.push(Buffer.alloc(1024, 1));
    inflater.push(Buffer.alloc(10, 1));
    await drained();
    expect(failures.map((error) => error.message)).toEqual([
      'the zlib-stream frames waiting to be decompressed passed 1500 bytes; closing the connection to reconnect',
    ]);
    expect(failures[0]).toBeInstanceOf(GatewayError);
    expect(messages).toEqual([]);
  });
});

/** Messages as one zlib-stream context writes them (a sync flush each). */
async function zlibMessages(texts: string[]): Promise<Buffer[]> {
  const deflate = zlib.createDeflate({ flush: zlib.constants.Z_SYNC_FLUSH });
  let chunks: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => chunks.push(chunk));
  const out: Buffer[] = [];
  for (const text of texts) {
    await new Promise((resolve) => deflate.write(text, resolve));
    out.push(Buffer.concat(chunks));
    chunks = [];
  }
  return out;
}

describe('ZlibStreamInflater', () => {
  function sync(maxBytes = 1 << 20) {
    const messages: string[] = [];
    const failures: string[] = [];
    const inflater = new ZlibStreamInflater(
      maxBytes,
      (message) => messages.push(message.toString()),
      (error) => failures.push(error.message),
    );
    return { inflater, messages, failures };
  }

  it('inflates each message at once, referring back across messages: past a whole window, and over many small ones (200 KB: the history wraps)', async () => {
    const big = randomBytes(30_000).toString('base64');
    const tail = big.slice(-2000);
    const small = Array.from({ length: 400 }, (_, i) => `{"n":${i},"again":"${tail.slice((i * 10) % 1500, ((i * 10) % 1500) + 500)}"}`);
    const texts = [`{"big":"${big}"}`, `{"tail":"${tail}"}`, ...small, `{"tail":"${tail}"}`];
    const frames = await zlibMessages(texts);
    // The later messages are back-references into what came before (the second into a message larger than the window), not the text again.
    expect(frames[1]?.length).toBeLessThan(100);
    expect(frames.at(-1)?.length).toBeLessThan(1000);
    const { inflater, messages, failures } = sync();
    for (const frame of frames) inflater.push(frame);
    expect(failures).toEqual([]);
    expect(messages).toEqual(texts);
  });

  it('refuses a stream that does not start with a zlib header', () => {
    const { inflater, messages, failures } = sync();
    inflater.push(Buffer.from([0x12, 0x34, 0x00, 0x00, 0xff, 0xff]));
    inflater.push(Buffer.from([0x78, 0x9c, 0x00, 0x00, 0xff, 0xff]));
    expect(failures).toEqual(['the zlib-stream does not start with a zlib header; closing the connection to reconnect']);
    expect(messages).toEqual([]);
  });

  it('bounds the frames of one message waiting for their suffix', () => {
    const { inflater, failures } = sync(1000);
    inflater.push(Buffer.alloc(600));
    inflater.push(Buffer.alloc(600));
    expect(failures).toEqual(['the zlib-stream frames of one message passed 1000 bytes; closing the connection to reconnect']);
  });
});
