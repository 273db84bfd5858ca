import { createHash } from 'node:crypto';
import { createReadStream, openAsBlob } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, NetworkError, RateLimitError, ValidationError } from '../../src/index.js';
import { SECRETS, startRawLoopbackServer, type RawLoopbackServer } from '../helpers/index.js';

const FILE_BYTES = 6 * 1024 * 1024 + 123;

interface Received {
  headers: http.IncomingHttpHeaders;
  bytes: number;
  /** The uploaded file part's sha256 and size, and the text fields, as the server parsed them. */
  file: { sha256: string; size: number; name: string; type: string } | undefined;
  fields: Record<string, string>;
}

let server: RawLoopbackServer;
let dir: string;
let path: string;
let sourceSha256: string;
const received: Received[] = [];

/** Reads each request as it streams in, counting bytes, then parses the multipart body and answers with an attachment. */
function recordingHandler(status = () => 200): (request: http.IncomingMessage, response: http.ServerResponse) => void {
  return (request, response) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.byteLength;
      chunks.push(chunk);
    });
    request.on('end', async () => {
      const entry: Received = { headers: request.headers, bytes, file: undefined, fields: {} };
      received.push(entry);
      const code = status();
      if (code === 200) {
        const form = await new Response(Buffer.concat(chunks), { headers: { 'content-type': request.headers['content-type'] ?? '' } }).formData();
        for (const [name, value] of form.entries()) {
          if (typeof value === 'string') entry.fields[name] = value;
          else
            entry.file = {
              sha256: createHash('sha256')
                .update(Buffer.from(await value.arrayBuffer()))
                .digest('hex'),
              size: value.size,
              name: value.name,
              type: value.type,
            };
        }
      }
      response.writeHead(code, { 'content-type': 'application/json', ...(code === 429 ? { 'retry-after': '0' } : {}) });
      response.end(JSON.stringify(code === 200 ? { id: 'att1', size: entry.file?.size } : { message: 'slow down' }));
    });
  };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ccsdk-upload-'));
  path = join(dir, 'video.bin');
  const content = Buffer.alloc(FILE_BYTES);
  for (let i = 0; i < content.length; i++) content[i] = (i * 7 + (i >> 11)) & 0xff;
  sourceSha256 = createHash('sha256').update(content).digest('hex');
  await writeFile(path, content);
  server = await startRawLoopbackServer(recordingHandler());
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const client = (transport: 'undici' | 'fetch', options: { retries?: number } = {}) =>
  new Client({ baseUrl: server.url, transport, auth: { botToken: SECRETS.botToken }, timeoutMs: 20_000, ...options });

function last(): Received {
  const entry = received.at(-1);
  if (!entry) throw new Error('the server received nothing');
  return entry;
}

describe.each(['undici', 'fetch'] as const)('streamed attachment uploads (%s transport, real loopback server)', (transport) => {
  it('sends a file-backed Blob (fs.openAsBlob) with its Content-Length, and the file round-trips', async () => {
    server.setHandler(recordingHandler());
    const blob = await openAsBlob(path, { type: 'video/mp4' });
    const result = await client(transport).channels.uploadAttachment('ch1', { data: blob, filename: 'video.mp4', fields: { note: 'ünïcode' } });
    expect(result.id).toBe('att1');
    const entry = last();
    expect(entry.headers['content-length']).toBe(String(entry.bytes));
    expect(entry.headers['transfer-encoding']).toBeUndefined();
    expect(entry.bytes).toBeGreaterThan(FILE_BYTES);
    expect(entry.file).toEqual({ sha256: sourceSha256, size: FILE_BYTES, name: 'video.mp4', type: 'video/mp4' });
    expect(entry.fields).toEqual({ note: 'ünïcode' });
  });

  it('streams a web ReadableStream of unknown length with chunked transfer encoding', async () => {
    server.setHandler(recordingHandler());
    const stream = Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>;
    await client(transport).channels.uploadAttachment('ch1', { data: stream, filename: 'video.bin' });
    const entry = last();
    expect(entry.headers['content-length']).toBeUndefined();
    expect(entry.headers['transfer-encoding']).toBe('chunked');
    expect(entry.file).toEqual({ sha256: sourceSha256, size: FILE_BYTES, name: 'video.bin', type: 'application/octet-stream' });
  });

  it('streams a Node Readable, sending Content-Length when its size is given', async () => {
    server.setHandler(recordingHandler());
    await client(transport).channels.uploadAttachment('ch1', {
      data: createReadStream(path),
      filename: 'video.bin',
      contentType: 'application/x-test',
      size: FILE_BYTES,
    });
    const entry = last();
    if (transport === 'undici') expect(entry.headers['content-length']).toBe(String(entry.bytes));
    expect(entry.file).toEqual({ sha256: sourceSha256, size: FILE_BYTES, name: 'video.bin', type: 'application/x-test' });
  });

  it('never sends a stream again after a 429: the call rejects at once with the 429 itself, after one request', async () => {
    server.setHandler(recordingHandler(() => 429));
    const before = received.length;
    const error = await client(transport)
      .channels.uploadAttachment('ch1', { data: createReadStream(path), filename: 'video.bin' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(received.length - before).toBe(1);
  });

  it('does retry a Blob upload after a 429, sending the whole file again', async () => {
    let calls = 0;
    server.setHandler(recordingHandler(() => (++calls === 1 ? 429 : 200)));
    const before = received.length;
    const result = await client(transport).channels.uploadAttachment('ch1', { data: await openAsBlob(path), filename: 'again.bin' });
    expect(result.id).toBe('att1');
    expect(received.length - before).toBe(2);
    expect(received[before]?.bytes).toBe(last().bytes);
    expect(last().file?.sha256).toBe(sourceSha256);
  });
});

describe('streamed uploads, undici transport', () => {
  it('pulls the source only as the bytes go out: the server sees the first bytes before the source is exhausted', async () => {
    const CHUNKS = 96;
    const CHUNK = 256 * 1024;
    let pulled = 0;
    let pulledAtFirstByte = -1;
    async function* source(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < CHUNKS; i++) {
        pulled++;
        yield new Uint8Array(CHUNK).fill(i);
      }
    }
    server.setHandler((request, response) => {
      let bytes = 0;
      request.on('data', (chunk: Buffer) => {
        if (pulledAtFirstByte < 0) pulledAtFirstByte = pulled;
        bytes += chunk.byteLength;
      });
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ id: 'att2', bytes }));
      });
    });
    const result = await client('undici').channels.uploadAttachment('ch1', { data: source(), filename: 'big.bin', size: CHUNKS * CHUNK });
    expect(result['bytes']).toBeGreaterThan(CHUNKS * CHUNK);
    expect(pulled).toBe(CHUNKS);
    expect(pulledAtFirstByte).toBeGreaterThanOrEqual(0);
    expect(pulledAtFirstByte).toBeLessThan(CHUNKS);
  });

  it('rejects a stream that yields another length than its declared size, without retrying', async () => {
    server.setHandler(recordingHandler());
    const error = await client('undici')
      .channels.uploadAttachment('ch1', { data: Readable.from([Buffer.from('abc')]), filename: 'short.txt', size: 10 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).message).toMatch(/ERR_UPLOAD_SIZE_MISMATCH: the upload stream ended after 3 bytes, short of its declared size of 10 bytes/);
  });

  it('refuses, before any I/O, a stream that is already locked or read, and a bad size', async () => {
    const before = received.length;
    const locked = new ReadableStream<Uint8Array>();
    locked.getReader();
    const read = Readable.from(['x']);
    for await (const _chunk of read) break;
    const c = client('undici');
    await expect(c.channels.uploadAttachment('ch1', { data: locked, filename: 'a' })).rejects.toThrow(/data: is a ReadableStream that is locked/);
    await expect(c.channels.uploadAttachment('ch1', { data: read, filename: 'a' })).rejects.toThrow(/data: is a stream that was already read/);
    const bad = await c.channels.uploadAttachment('ch1', { data: Readable.from(['x']), filename: 'a', size: -1 }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect((bad as ValidationError).issues.map((issue) => issue.path)).toEqual(['size']);
    expect(received.length).toBe(before);
  });
});
