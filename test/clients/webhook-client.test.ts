import { describe, expect, it } from 'vitest';
import { WebhookClient, isCommunityChatError } from '../../src/index.js';
import type { Socket } from 'node:net';
import { SECRETS, startLoopbackServer, useMswRecorder } from '../helpers/index.js';

const recorder = useMswRecorder();

describe('WebhookClient', () => {
  it('executes, updates and deletes its one webhook with the path token', async () => {
    recorder.respond((request) => (request.method === 'PATCH' ? { json: { id: 'wh7', name: 'n' } } : { status: 204 }));
    const hook = new WebhookClient(`https://chat.test/api/v1/webhooks/wh7/${SECRETS.webhookToken}`, { transport: 'fetch' });
    expect(hook.id).toBe('wh7');
    await hook.execute({ content: 'hello', username: 'Deploy' });
    await hook.update({ name: 'n' });
    await hook.delete();
    expect(recorder.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      `POST /api/v1/webhooks/wh7/${SECRETS.webhookToken}`,
      `PATCH /api/v1/webhooks/wh7/${SECRETS.webhookToken}`,
      `DELETE /api/v1/webhooks/wh7/${SECRETS.webhookToken}`,
    ]);
    expect(recorder.requests.every((r) => r.headers['authorization'] === undefined)).toBe(true);
    await expect(hook.execute({ content: '' })).rejects.toSatisfy((error) => isCommunityChatError(error, 'ValidationError'));
    expect(recorder.requests).toHaveLength(3);
  });

  it('follows the clock option, like the Client: its webhook window opens again when that clock says so', async () => {
    recorder.respond(() => ({ status: 204 }));
    let clock = Date.now();
    const hook = new WebhookClient(`https://chat.test/api/v1/webhooks/wh7/${SECRETS.webhookToken}`, {
      transport: 'fetch',
      clock: () => clock,
      webhookRateLimit: { limit: 1, windowMs: 60_000 },
      maxRateLimitWaitMs: 1_000,
    });
    await hook.execute({ content: 'one' });
    // By the client's clock the window is over; by Date.now it would still hold the second execution for a minute.
    clock += 61_000;
    await hook.execute({ content: 'two' }, { deadlineMs: 2_000 });
    expect(recorder.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
  });

  it('says when its webhook window holds an execution, and for how long, before it waits', async () => {
    recorder.respond(() => ({ status: 204 }));
    const hook = new WebhookClient(`https://chat.test/api/v1/webhooks/wh7/${SECRETS.webhookToken}`, {
      transport: 'fetch',
      webhookRateLimit: { limit: 1, windowMs: 300 },
    });
    const held: { reason: string; waitMs: number; sentSoFar: number }[] = [];
    hook.on('requestHeld', ({ reason, waitMs }) => held.push({ reason, waitMs, sentSoFar: recorder.requests.length }));
    await hook.execute({ content: 'one' });
    expect(held).toEqual([]);
    await hook.execute({ content: 'two' });
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ reason: 'webhook', sentSoFar: 1 });
    expect(held[0]?.waitMs).toBeGreaterThan(0);
    expect(held[0]?.waitMs).toBeLessThanOrEqual(301); // the window, and 1 ms past its edge
    expect(recorder.requests).toHaveLength(2);
  });

  it('rejects URLs that are not webhook URLs', () => {
    expect(() => new WebhookClient('https://chat.test/api/v1/channels/1')).toThrow(/webhooks/);
    expect(() => new WebhookClient('nope')).toThrow(/absolute/);
  });

  it('closes its connections with close() (twice) or at the end of an await using scope', async () => {
    const server = await startLoopbackServer((_request, response) => {
      response.statusCode = 204;
      response.end();
    });
    const open = new Set<Socket>();
    server.server.on('connection', (socket: Socket) => {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
    });
    const url = `${server.url}/api/v1/webhooks/wh7/${SECRETS.webhookToken}`;
    try {
      {
        await using hook = new WebhookClient(url);
        await hook.execute({ content: 'hi' });
        expect(open.size).toBe(1);
      }
      await expect.poll(() => open.size).toBe(0);
      const hook = new WebhookClient(url);
      await hook.execute({ content: 'again' });
      expect(open.size).toBe(1);
      await hook.close();
      await expect.poll(() => open.size).toBe(0);
      await hook.close();
    } finally {
      await server.close();
    }
  });
});
