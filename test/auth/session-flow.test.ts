import { describe, expect, it } from 'vitest';
import { Client } from '../../src/index.js';
import { startLoopbackServer } from '../helpers/index.js';

describe('user session over a real loopback server', () => {
  it.each(['undici', 'fetch'] as const)('%s: login keeps the access token and refresh cookie; refresh rotates them; logout clears them', async (transport) => {
    let clock = 1_000_000;
    let issued = 0;
    const server = await startLoopbackServer((request, response) => {
      response.setHeader('content-type', 'application/json');
      const url = request.url ?? '';
      if (url.endsWith('/auth/login') || url.endsWith('/auth/refresh')) {
        issued++;
        response.setHeader('set-cookie', [
          `sid_${issued % 2}=refresh-${issued}; HttpOnly; Path=/api/v1/auth; Max-Age=86400`,
          ...(issued > 1 ? [`sid_${(issued + 1) % 2}=; Path=/api/v1/auth; Max-Age=0`] : []),
        ]);
        response.end(JSON.stringify({ access_token: `access-${issued}`, expires_in: 900 }));
        return;
      }
      if (url.endsWith('/auth/logout')) {
        response.statusCode = 204;
        response.end();
        return;
      }
      response.end(JSON.stringify({ auth: request.headers.authorization ?? null, cookie: request.headers.cookie ?? null }));
    });
    try {
      const client = new Client({ baseUrl: server.url, transport, clock: () => clock });
      const grant = await client.auth.login({ email: 'ada@example.com', password: 'pw' });
      expect(grant.accessTokenExpiresAt).toBe(clock + 900_000);
      expect(client.session.isActive).toBe(true);
      expect(await client.users.getMe()).toEqual({ auth: 'Bearer access-1', cookie: null });

      clock += 60_000;
      await client.auth.refresh();
      const refreshRequest = server.requests.at(-1);
      expect(refreshRequest?.headers['cookie']).toBe('sid_1=refresh-1');
      expect(refreshRequest?.headers['authorization']).toBeUndefined();
      expect(await client.users.getMe()).toEqual({ auth: 'Bearer access-2', cookie: null });

      await client.auth.logout();
      expect(server.requests.at(-1)?.headers['cookie']).toBe('sid_0=refresh-2');
      expect(client.session.isActive).toBe(false);
      expect(client.session.canRefresh).toBe(false);
      await expect(client.users.getMe()).rejects.toThrow(/needs one of these credentials/);
      await client.close();
    } finally {
      await server.close();
    }
  });
});
