import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, NetworkError } from '../../src/index.js';
import { isMswActive, mswHint } from '../../src/rest/network-hint.js';
import { SECRETS, startLoopbackServer } from '../helpers/index.js';

async function closedPortUrl(): Promise<string> {
  const server = await startLoopbackServer();
  await server.close();
  return server.url;
}

const client = (baseUrl: string, transport?: 'fetch') =>
  new Client({ baseUrl, auth: { botToken: SECRETS.botToken }, retries: 0, ...(transport ? { transport } : {}) });

describe('the undici transport under MSW (a real msw/node server)', () => {
  const msw = setupServer(http.get('https://chat.test/api/v1/channels/:id', ({ params }) => HttpResponse.json({ id: params['id'] })));
  beforeAll(() => msw.listen({ onUnhandledRequest: 'bypass' }));
  afterAll(() => msw.close());

  it('says that MSW needs transport: "fetch" when a mocked test host does not resolve, while the fetch transport gets the mock', async () => {
    expect(isMswActive()).toBe(true);
    await expect(client('https://chat.test', 'fetch').channels.get('ch1')).resolves.toEqual({ id: 'ch1' });
    const error = await client('https://chat.test')
      .channels.get('ch1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).message).toMatch(/(ENOTFOUND|EAI_AGAIN) \(chat\.test looks like a test host: .*transport: 'fetch'/);
    expect((error as NetworkError).mayHaveReachedServer).toBe(false);
  });

  it('says so for a refused loopback connection too, only while MSW is active', async () => {
    const url = await closedPortUrl();
    const withMsw = (await client(url)
      .channels.get('ch1')
      .catch((e: unknown) => e)) as NetworkError;
    expect(withMsw.message).toMatch(
      /ECONNREFUSED \(MSW is active in this process, but the undici transport bypasses it: pass the client option transport: 'fetch'/,
    );
  });
});

describe('the undici transport without MSW', () => {
  it('reports a refused connection without the MSW hint', async () => {
    expect(isMswActive()).toBe(false);
    const without = (await client(await closedPortUrl())
      .channels.get('ch1')
      .catch((e: unknown) => e)) as NetworkError;
    expect(without.message).toMatch(/network error: ECONNREFUSED$/);
  });

  it('hints on test hosts (*.test, *.example, *.invalid, *.localhost, example.com) only, without MSW', async () => {
    expect(isMswActive()).toBe(false);
    for (const origin of ['https://chat.test', 'https://api.example', 'https://x.invalid', 'http://app.localhost:8080', 'https://example.com']) {
      expect(mswHint('ENOTFOUND', origin), origin).toMatch(/looks like a test host/);
    }
    expect(mswHint('EAI_AGAIN', 'https://chat.test')).toMatch(/looks like a test host/);
    expect(mswHint('ENOTFOUND', 'https://chat.example.org.evil')).toBeUndefined();
    expect(mswHint('ENOTFOUND', 'https://contest.io')).toBeUndefined();
    expect(mswHint('ECONNREFUSED', 'https://chat.test')).toBeUndefined();
  });
});
