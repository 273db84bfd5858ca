/**
 * The playground's API and live channel refuse anyone but the page itself (a
 * foreign `Origin`, a rebinding `Host`, a request without the page's header),
 * from Node; the same from another site in Chromium is in playground.test.ts.
 * And the page is off unless asked for.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../../src/testing/index.js';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await createEmulator({ playground: true });
});
afterAll(() => emulator.close());

const api = (path: string, headers: Record<string, string>, body = '{"latencyMs":4000}') =>
  fetch(`${emulator.url}/_playground/api/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-playground': '1', ...headers }, body });

describe('the playground API, from Node', () => {
  it('answers the page itself', async () => {
    const answer = await api('faults', { origin: emulator.url });
    expect(answer.status).toBe(200);
    expect(emulator.faults.latencyMs).toBe(4000);
    emulator.faults.latencyMs = 0;
  });

  it('refuses a foreign Origin, a missing Origin or header, a rebinding Host, and a foreign live channel', async () => {
    expect((await api('faults', { origin: 'http://evil.example' })).status).toBe(403);
    expect((await api('faults', {})).status).toBe(403);
    const noHeader = await fetch(`${emulator.url}/_playground/api/faults`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', origin: emulator.url },
      body: '{"latencyMs":4000}',
    });
    // A text/plain body (what a cross-site form can send without a preflight) is refused at the emulator's door.
    expect(noHeader.status).toBe(415);
    expect(emulator.core.faults.latencyMs).toBe(0);
    const port = new URL(emulator.url).port;
    const rebinding = await new Promise<number>((resolve) => {
      const request = http.request(
        {
          host: '127.0.0.1',
          port,
          path: '/_playground/api/faults',
          method: 'POST',
          headers: { host: `evil.example:${port}`, origin: `http://evil.example:${port}`, 'x-playground': '1', 'content-type': 'application/json' },
        },
        (response) => resolve(response.statusCode ?? 0),
      );
      request.end('{"latencyMs":4000}');
    });
    expect(rebinding).toBe(403);
    expect((await fetch(`${emulator.url}/_playground/events`, { headers: { origin: 'http://evil.example' } })).status).toBe(403);
    expect(emulator.faults.latencyMs).toBe(0);
  });

  it('is not served without the playground option', async () => {
    const plain = await createEmulator();
    expect(plain.playgroundUrl).toBeUndefined();
    expect((await fetch(`${plain.url}/`)).status).toBe(404);
    await plain.close();
  });

  it('serves the page with a strict Content-Security-Policy and no network asset', async () => {
    const page = await fetch(`${emulator.url}/`);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//);
    const script = await (await fetch(`${emulator.url}/_playground/app.js`)).text();
    expect(script).not.toMatch(/https?:\/\//);
  });
});
