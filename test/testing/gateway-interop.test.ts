/**
 * Interop: the real @discordjs/ws, with its transport compression on,
 * connects to the emulator's Gateway and receives a dispatch: the emulator
 * speaks Discord's zlib-stream as another implementation reads it (the pinned
 * @discordjs/ws 2.0 has no zstd-stream; the emulator's zstd is checked against
 * node:zlib's own decompressor in gateway-compression.test.ts).
 */
import { CompressionMethod, WebSocketManager, WebSocketShardEvents } from '@discordjs/ws';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayServer } from '../../src/testing/gateway-server.js';
import { SECRETS } from '../helpers/index.js';
import { until } from '../helpers/until.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function receivesDispatch(compression: CompressionMethod, expected: string): Promise<void> {
  const served: (string | undefined)[] = [];
  const server = new GatewayServer({ heartbeatIntervalMs: 45_000, onTraffic: (event) => event.kind === 'open' && served.push(event.compression) });
  await server.listening();
  cleanups.push(() => server.close());
  const gatewayBot = { url: server.url, shards: 1, session_start_limit: { total: 1000, remaining: 1000, reset_after: 60_000, max_concurrency: 1 } };
  const manager = new WebSocketManager({
    token: SECRETS.botToken,
    intents: 0,
    rest: { get: async () => gatewayBot } as unknown as ConstructorParameters<typeof WebSocketManager>[0]['rest'],
    shardCount: 1,
    compression,
  });
  cleanups.push(() => manager.destroy());
  const seen: { t: string; d: unknown }[] = [];
  manager.on(WebSocketShardEvents.Dispatch, (payload) => seen.push({ t: payload.t, d: payload.d }));
  await manager.connect();
  await until(() => seen.some((event) => event.t === 'READY'), { what: '@discordjs/ws reading READY' });
  server.dispatch('MESSAGE_CREATE', { id: 'm1', content: 'through the compressed stream' });
  await until(() => seen.some((event) => event.t === 'MESSAGE_CREATE'), { what: '@discordjs/ws reading the dispatch' });
  expect(seen.find((event) => event.t === 'MESSAGE_CREATE')?.d).toMatchObject({ id: 'm1', content: 'through the compressed stream' });
  expect(server.stats).toMatchObject({ connections: 1, identifies: 1 });
  // The connection was served compressed, as @discordjs/ws asked.
  expect(served).toEqual([expected]);
}

describe('@discordjs/ws on the emulator with transport compression', () => {
  it('zlib-stream (its native zlib): READY and a dispatch', async () => {
    await receivesDispatch(CompressionMethod.ZlibNative, 'zlib-stream');
  });
});
