import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createMswClient, useMswRecorder } from '../helpers/index.js';

const recorder = useMswRecorder();

describe('streamed uploads under MSW (fetch transport)', () => {
  it('MSW receives a one-shot stream upload whole, as multipart', async () => {
    recorder.respond(() => ({ json: { id: 'att1' } }));
    const data = Readable.from([Buffer.from('hello '), Buffer.from('streamed '), 'world']);
    await expect(
      createMswClient().channels.uploadAttachment('ch1', { data, filename: 's.txt', contentType: 'text/plain', fields: { a: '1' } }),
    ).resolves.toEqual({ id: 'att1' });
    const [sent] = recorder.requests;
    expect(sent?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=----community-chat-sdk-/);
    expect(sent?.body).toContain('Content-Disposition: form-data; name="a"\r\n\r\n1\r\n');
    expect(sent?.body).toContain('name="file"; filename="s.txt"\r\nContent-Type: text/plain\r\n\r\nhello streamed world\r\n');
  });
});
