import { describe, expect, it } from 'vitest';
import { MultipartBody } from '../../src/rest/multipart.js';
import { MultipartStreamError } from '../../src/errors/transport.js';

async function collect(body: MultipartBody): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body.chunks()) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function parse(body: MultipartBody, bytes: Buffer): Promise<FormData> {
  return new Response(bytes, { headers: { 'content-type': body.contentType } }).formData();
}

describe('MultipartBody', () => {
  it('encodes fields and a Blob file that a standard parser reads back, with an exact length, any number of times', async () => {
    const body = new MultipartBody([
      { name: 'na"me', value: 'line\r\nbreak é' },
      { name: 'file', filename: 'ré"sumé.txt', contentType: 'text/plain', source: new Blob(['hello, world']) },
    ]);
    expect(body.replayable).toBe(true);
    const first = await collect(body);
    const second = await collect(body);
    expect(second.equals(first)).toBe(true);
    expect(body.length).toBe(first.byteLength);
    expect(body.consumed).toBe(false);
    const form = await parse(body, first);
    expect([...form.keys()]).toEqual(['na"me', 'file']);
    expect(form.get('na"me')).toBe('line\r\nbreak é');
    const file = form.get('file') as File;
    expect(file.name).toBe('ré"sumé.txt');
    expect(await file.text()).toBe('hello, world');
    // It is a FormData holding the same entries, for code that only knows FormData.
    expect(body).toBeInstanceOf(FormData);
    expect([...body.keys()]).toEqual(['na"me', 'file']);
  });

  it('reads a one-shot stream once: consumed from the first pull, and a second read throws instead of sending a truncated body', async () => {
    let pulls = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        if (pulls > 3) controller.close();
        else controller.enqueue(new TextEncoder().encode(`part${pulls};`));
      },
    });
    const body = new MultipartBody([{ name: 'file', filename: 'a.txt', contentType: 'text/plain', source: stream }]);
    expect(body.replayable).toBe(false);
    expect(body.length).toBeUndefined();
    expect(body.consumed).toBe(false);
    const iterator = body.chunks();
    expect(body.consumed).toBe(false);
    await iterator.next();
    expect(body.consumed).toBe(true);
    const rest: Uint8Array[] = [];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest.push(next.value);
    expect(Buffer.concat(rest).toString()).toContain('part1;part2;part3;');
    const again = await body
      .chunks()
      .next()
      .catch((e: unknown) => e);
    expect(again).toBeInstanceOf(MultipartStreamError);
    expect((again as MultipartStreamError).code).toBe('ERR_UPLOAD_STREAM_CONSUMED');
  });

  it('cancels the source when the consumer stops early', async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new Uint8Array(16));
      },
      cancel() {
        cancelled = true;
      },
    });
    const body = new MultipartBody([{ name: 'file', filename: 'a', contentType: 'application/octet-stream', source: stream }]);
    const iterator = body.chunks();
    await iterator.next();
    await iterator.next();
    await iterator.return(undefined);
    expect(cancelled).toBe(true);
  });

  it('converts a plain FormData to the same framing, with its length', async () => {
    const form = new FormData();
    form.append('a', '1');
    form.append('file', new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' }), 'x.png');
    const body = MultipartBody.from(form);
    expect(MultipartBody.from(body)).toBe(body);
    const bytes = await collect(body);
    expect(body.length).toBe(bytes.byteLength);
    const parsed = await parse(body, bytes);
    expect(parsed.get('a')).toBe('1');
    const file = parsed.get('file') as File;
    expect([file.name, file.type, [...new Uint8Array(await file.arrayBuffer())]]).toEqual(['x.png', 'image/png', [1, 2, 3]]);
  });

  it('rejects a stream longer than its declared size', async () => {
    const body = new MultipartBody([
      {
        name: 'file',
        filename: 'a',
        contentType: 'text/plain',
        source: (async function* () {
          yield 'abcdef';
        })(),
        size: 3,
      },
    ]);
    expect(body.length).toBeGreaterThan(3);
    await expect(collect(body)).rejects.toThrow(/more than its declared size of 3 bytes/);
  });
});

describe('importing the SDK', () => {
  it('reads no lazily built global (FormData would load Node’s fetch implementation); a MultipartBody built later is a FormData', async () => {
    const { startScript } = await import('../helpers/index.js');
    const probe = await startScript('test/helpers/import-probe.ts');
    const code = await probe.exited;
    expect(code, probe.stderr()).toBe(0);
    const seen = JSON.parse(probe.stdout().trim()) as { byImport: string[]; isFormData: boolean; isMultipart: boolean; entries: unknown[]; tag: string };
    // The globals Node builds with its fetch implementation (undici inside Node). Others are lazy too on some versions
    // (Node 24's Buffer and performance, TextEncoder from node:util) and cost nothing like it.
    const FETCH_FAMILY = ['FormData', 'fetch', 'Request', 'Response', 'Headers', 'File', 'WebSocket', 'EventSource', 'CloseEvent', 'MessageEvent'];
    expect(seen.byImport.filter((name) => FETCH_FAMILY.includes(name))).toEqual([]);
    expect(seen).toMatchObject({ isFormData: true, isMultipart: true, entries: [['a', 'b']], tag: '[object FormData]' });
  }, 30_000);
});

describe('MultipartBody and a FormData global replaced later (a polyfill, undici.install())', () => {
  it('keeps the FormData it was first built on: an earlier body still reads its fields after another global is installed', async () => {
    const first = new MultipartBody([{ name: 'a', value: '1' }]);
    const original = globalThis.FormData;
    const { FormData: UndiciFormData } = await import('undici');
    globalThis.FormData = UndiciFormData as unknown as typeof FormData;
    try {
      const second = new MultipartBody([{ name: 'b', value: '2' }]);
      expect(first.get('a'), 'the first body after another FormData global was installed').toBe('1');
      expect(second.get('b')).toBe('2');
      expect(second).toBeInstanceOf(original);
    } finally {
      globalThis.FormData = original;
    }
  });
});
