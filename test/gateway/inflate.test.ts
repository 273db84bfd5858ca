/**
 * One connection's decompression context on its own: frames in, whole
 * messages out in order, and its bounds.
 */
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/errors/index.js';
import { FrameInflater } from '../../src/gateway/inflate.js';

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
