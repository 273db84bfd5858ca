import { describe, expect, it } from 'vitest';
import { AuthenticationError, Client, UnexpectedResponseError } from '../../src/index.js';
import { useMswRecorder } from '../helpers/index.js';

const recorder = useMswRecorder();

describe('user session', () => {
  it('logout after revocation clears the local session and reports the 401', async () => {
    recorder.respond(() => ({ status: 401, json: { message: 'revoked' } }));
    const client = new Client({
      baseUrl: 'https://chat.test',
      transport: 'fetch',
      auth: { session: { accessToken: 'a', cookies: [{ name: 'rt', value: 'r', path: '/', expiresAt: undefined }] } },
    });
    await expect(client.auth.logout()).rejects.toBeInstanceOf(AuthenticationError);
    expect(client.session.canRefresh).toBe(false);
    expect(client.session.accessToken).toBeUndefined();
  });

  it('says how to fix a login response whose token field is unknown, and accepts a custom reader', async () => {
    recorder.respond(() => ({ json: { jwt: 'xyz' } }));
    const client = new Client({ baseUrl: 'https://chat.test', transport: 'fetch' });
    await expect(client.auth.login({ email: 'a@b.c', password: 'p' })).rejects.toThrow(UnexpectedResponseError);
    await expect(client.auth.login({ email: 'a@b.c', password: 'p' })).rejects.toThrow(/readAccessToken/);
    const custom = new Client({
      baseUrl: 'https://chat.test',
      transport: 'fetch',
      readAccessToken: (body) => ({ accessToken: (body as { jwt: string }).jwt }),
    });
    await custom.auth.login({ email: 'a@b.c', password: 'p' });
    expect(custom.session.accessToken).toBe('xyz');
  });

  it('finds the access token in a nested envelope', async () => {
    recorder.respond(() => ({ json: { data: { access_token: 'nested-token', expires_in: 60 } } }));
    const client = new Client({ baseUrl: 'https://chat.test', transport: 'fetch' });
    const grant = await client.auth.login({ email: 'a@b.c', password: 'p' });
    expect(client.session.accessToken).toBe('nested-token');
    expect(JSON.stringify(grant)).not.toContain('nested-token');
  });

  it('exports and restores a session', async () => {
    const client = new Client({ baseUrl: 'https://chat.test', transport: 'fetch' });
    client.session.setAccessToken('tok', 1000);
    client.session.cookies.storeSetCookieHeaders(['rt=abc; Path=/']);
    const restored = new Client({ baseUrl: 'https://chat.test', transport: 'fetch', auth: { session: client.session.export() } });
    expect(restored.session.accessToken).toBe('tok');
    expect(restored.session.cookies.headerFor('/api/v1/auth/refresh')).toBe('rt=abc');
  });
});
