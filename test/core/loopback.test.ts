import { describe, expect, it } from 'vitest';
import { Client, InsecureTransportError, WebhookClient } from '../../src/index.js';
import { isInsecureRemoteUrl } from '../../src/core/loopback.js';
import { SECRETS, useMswRecorder } from '../helpers/index.js';

const recorder = useMswRecorder();

describe('plain HTTP policy', () => {
  it('refuses to send credentials over http:// to a non-loopback host', async () => {
    const client = new Client({
      baseUrl: 'http://chat.example',
      transport: 'fetch',
      auth: { botToken: SECRETS.botToken, webhookTokens: { wh1: SECRETS.webhookToken } },
    });
    await expect(client.channels.get('ch1')).rejects.toBeInstanceOf(InsecureTransportError);
    await expect(client.webhooks.execute('wh1', { content: 'x' })).rejects.toBeInstanceOf(InsecureTransportError);
    await expect(client.auth.login({ email: 'a@b.c', password: 'pw' })).rejects.toBeInstanceOf(InsecureTransportError);
    await expect(
      new WebhookClient(`http://chat.example/api/v1/webhooks/wh1/${SECRETS.webhookToken}`, { transport: 'fetch' }).execute({ content: 'x' }),
    ).rejects.toBeInstanceOf(InsecureTransportError);
    expect(recorder.requests).toHaveLength(0);
  });

  it('still sends credential-free public calls, and everything when allowed', async () => {
    recorder.respond(() => ({ json: { id: 'ch1' } }));
    const client = new Client({ baseUrl: 'http://chat.example', transport: 'fetch', auth: { botToken: SECRETS.botToken } });
    await client.applications.getPublic('app1');
    const allowed = new Client({ baseUrl: 'http://chat.example', transport: 'fetch', auth: { botToken: SECRETS.botToken }, allowInsecureHttp: true });
    await allowed.channels.get('ch1');
    expect(recorder.requests).toHaveLength(2);
  });

  it('treats localhost, 127.0.0.0/8 and [::1] as loopback', async () => {
    recorder.respond(() => ({ json: { id: 'ch1' } }));
    for (const host of ['localhost', '127.0.0.9', '[::1]']) {
      await new Client({ baseUrl: `http://${host}:8080`, transport: 'fetch', auth: { botToken: SECRETS.botToken } }).channels.get('ch1');
    }
    expect(recorder.requests).toHaveLength(3);
  });
});

describe('isInsecureRemoteUrl', () => {
  it('flags http: and ws: to a remote host, and nothing else', () => {
    expect(isInsecureRemoteUrl(new URL('http://chat.example'))).toBe(true);
    expect(isInsecureRemoteUrl(new URL('ws://10.0.0.1/gateway'))).toBe(true);
    expect(isInsecureRemoteUrl(new URL('https://chat.example'))).toBe(false);
    expect(isInsecureRemoteUrl(new URL('wss://chat.example'))).toBe(false);
    for (const host of ['localhost', '127.0.0.1', '127.9.8.7', '[::1]']) {
      expect(isInsecureRemoteUrl(new URL(`http://${host}:8080`)), host).toBe(false);
      expect(isInsecureRemoteUrl(new URL(`ws://${host}:8080`)), host).toBe(false);
    }
    expect(isInsecureRemoteUrl(new URL('http://127.0.0.1.evil.example'))).toBe(true);
  });
});
