/**
 * Shutting a Gateway down: close(), its earlier name destroy(), and the end
 * of an `await using` scope each close the socket and leave no timer behind.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../../src/index.js';
import { activeTimers, SECRETS } from '../helpers/index.js';
import { behaveWell, startWsServer, type WsTestServer } from '../helpers/ws-server.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(): Promise<WsTestServer> {
  const started = await startWsServer((peer) => behaveWell(peer, { heartbeatInterval: 45_000 }));
  cleanups.push(() => started.close());
  return started;
}

const closed = (ws: WsTestServer, index: number) => expect.poll(() => ws.peers[index]?.socket.readyState).toBe(3);

describe('closing a Gateway', () => {
  it('close(), destroy() and the end of an await using scope each close its socket and clear its timers', async () => {
    const ws = await server();
    const client = new Client({ baseUrl: 'http://127.0.0.1:9', auth: { botToken: SECRETS.botToken }, gateway: { url: ws.url } });
    cleanups.push(() => client.close());
    const baseline = activeTimers();

    const first = client.gateway;
    await first.connect();
    await first.close();
    await closed(ws, 0);
    expect(first.status).toBe('destroyed');
    await first.close(); // a second close is harmless

    const second = client.gateway;
    expect(second).not.toBe(first);
    await second.connect();
    await second.close();
    await closed(ws, 1);

    {
      await using scoped = client.gateway;
      await scoped.connect();
      expect(scoped.status).toBe('ready');
    }
    await closed(ws, 2);
    expect(ws.peers).toHaveLength(3);
    await expect.poll(() => activeTimers()).toBeLessThanOrEqual(baseline);
  });
});
