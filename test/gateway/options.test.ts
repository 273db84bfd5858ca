import { describe, expect, it } from 'vitest';
import { resolveGatewayOptions } from '../../src/gateway/options.js';
import { Client, type ValidationError, isCommunityChatError } from '../../src/index.js';
import { GatewayServer } from '../../src/testing/gateway-server.js';
import { startLoopbackServer } from '../helpers/index.js';
import { validationRefusal as refusal } from '../helpers/refusal.js';

describe('resolveGatewayOptions', () => {
  it('fills every default in one place, the URL from the client', () => {
    const resolved = resolveGatewayOptions({}, 'ws://127.0.0.1:1/api/v1/gateway');
    expect(resolved).toMatchObject({
      url: 'ws://127.0.0.1:1/api/v1/gateway',
      intents: 0,
      connectTimeoutMs: 60_000,
      openTimeoutMs: 15_000,
      helloTimeoutMs: 10_000,
      readyTimeoutMs: 15_000,
      reconnectBaseDelayMs: 1_000,
      reconnectMaxDelayMs: 30_000,
    });
    expect(resolved.random).toBe(Math.random);
  });

  it('keeps what the caller set', () => {
    const random = () => 0.5;
    const resolved = resolveGatewayOptions({ url: 'wss://gw.example/x', intents: 513, random, readyTimeoutMs: 5 }, 'ws://127.0.0.1:1/default');
    expect(resolved).toMatchObject({ url: 'wss://gw.example/x', intents: 513, readyTimeoutMs: 5 });
    expect(resolved.random).toBe(random);
  });
});

describe('the default Gateway URL', () => {
  it('is derived from the base URL and used by the connection as is', async () => {
    const http = await startLoopbackServer();
    const server = new GatewayServer({ server: http.server, path: '/base/api/v1/gateway' });
    const client = new Client({ baseUrl: `${http.url}/base`, auth: { botToken: 'token-for-url-test' } });
    try {
      await client.gateway.connect();
      expect(server.stats.identifies).toBe(1);
    } finally {
      await client.close();
      await server.close();
      await http.close();
    }
  });
});

describe('Gateway options out of bounds are refused when the Client is built, naming the option', () => {
  it('every duration past 2^31 - 1 ms (a timer would fire at once), an unknown or misspelt option', () => {
    for (const name of [
      'connectTimeoutMs',
      'openTimeoutMs',
      'helloTimeoutMs',
      'readyTimeoutMs',
      'reconnectBaseDelayMs',
      'reconnectMaxDelayMs',
      'minHeartbeatIntervalMs',
    ])
      for (const value of [3e9, Number.POSITIVE_INFINITY, Number.NaN, -1]) {
        const error = refusal(() => new Client({ gateway: { [name]: value } }));
        expect(error.issues[0]?.path, `${name}: ${value}`).toBe(`gateway.${name}`);
      }
    expect(refusal(() => new Client({ gateway: { autoReshard: { intervalMs: 1e308 } } })).issues[0]?.path).toBe('gateway.autoReshard.intervalMs');
    expect(refusal(() => new Client({ gateway: { autoReshard: { interval: 5000 } as never } })).issues[0]?.path).toBe('interval');
    expect(refusal(() => new Client({ gateway: { shardcount: 2 } as never })).message).toMatch(/shardcount: is not an option of Client \(gateway\)/);
    expect(refusal(() => new Client({ gateway: { maxIdentifyFailures: 0 } })).issues[0]?.path).toBe('gateway.maxIdentifyFailures');
    expect(refusal(() => new Client({ gateway: null as never })).issues[0]?.path).toBe('gateway');
    expect(() => new Client({ gateway: { connectTimeoutMs: 2_147_483_647, shardCount: 4, maxShards: 4 } })).not.toThrow();
  });

  it('close({ drainTimeoutMs }) past 2^31 - 1 ms, or an unknown close option, rejects before anything stops', async () => {
    const client = new Client({ baseUrl: 'http://127.0.0.1:9' });
    const gateway = client.gateway;
    for (const options of [
      { handOff: true, drainTimeoutMs: Number.POSITIVE_INFINITY },
      { handOff: true, drainTimeoutMs: 3e9 },
    ]) {
      const error = await gateway.close(options).catch((e: unknown) => e);
      expect((error as ValidationError).issues?.[0]?.path, JSON.stringify(options)).toBe('drainTimeoutMs');
    }
    expect(((await client.close({ handoff: true } as never).catch((e: unknown) => e)) as ValidationError).issues[0]?.path).toBe('handoff');
    expect(gateway.status, 'nothing was closed by a refused close()').not.toBe('destroyed');
    await client.close({ handOff: true, drainTimeoutMs: 100 });
    expect(gateway.status).toBe('destroyed');
  });
});

describe('maxShards: the most shards one Gateway plans, whoever asks', () => {
  it('bounds shardCount, the ids in shards and reshard(count), before anything is allocated', async () => {
    expect(() => new Client({ gateway: { shardCount: 100_000 } })).toThrow(/gateway.shardCount: must be at most 10000/);
    expect(() => new Client({ gateway: { shardCount: 2000, maxShards: 2000 } })).not.toThrow();
    expect(() => new Client({ gateway: { maxShards: 1e9 } })).toThrow(/gateway.maxShards: must be at most 65536/);
    const client = new Client({ auth: { botToken: 'bot.Tk9' }, gateway: { shards: [0, 50_000], shardCount: undefined } });
    const error = await client.gateway.connect().catch((e: unknown) => e);
    expect((error as ValidationError).message).toMatch(/gateway.shards: must list ids below gateway.maxShards \(10000\)/);
    const reshard = await client.gateway.reshard(100_000).catch((e: unknown) => e);
    expect((reshard as ValidationError).message).toMatch(/count: must be at most gateway.maxShards \(10000; got 100000\)/);
    await client.close();
  });

  it("trusts GET /gateway/bot's count only within maxShards: 1e9 shards is a typed error, not an out-of-memory", async () => {
    const service = await startLoopbackServer((_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({ url: 'ws://127.0.0.1:9', shards: 1e9, session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 } }),
      );
    });
    const client = new Client({ baseUrl: service.url, auth: { botToken: 'bot.Tk9' }, gateway: { shards: 'auto', maxShards: 8 } });
    try {
      const error = await client.gateway.connect().catch((e: unknown) => e);
      expect(isCommunityChatError(error, 'GatewayError'), String(error)).toBe(true);
      expect((error as Error).message).toMatch(/GET \/gateway\/bot recommends 1000000000 shards, more than gateway.maxShards \(8\)/);
    } finally {
      await client.close();
      await service.close();
    }
  });
});

describe('autoReshard follows a recommendation only within maxShards', () => {
  it('a recommendation of 60,000 shards is an error event naming maxShards, and the running set goes on', async () => {
    let recommended = 1;
    const service = await startLoopbackServer((_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({ url: 'ws://unused', shards: recommended, session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 } }),
      );
    });
    const { startWsServer, behaveWell } = await import('../helpers/ws-server.js');
    const ws = await startWsServer(behaveWell);
    const client = new Client({
      baseUrl: service.url,
      auth: { botToken: 'bot.Tk9' },
      gateway: { url: ws.url, shards: 'auto', maxShards: 4, autoReshard: { intervalMs: 1000 } },
    });
    try {
      const failed = new Promise<Error>((resolve) => client.gateway.on('error', (error) => resolve(error)));
      await client.gateway.connect();
      recommended = 60_000;
      const error = await failed;
      expect(error.message).toBe('the automatic reshard failed (tried again at the next check)');
      expect(String((error.cause as Error | undefined)?.message)).toMatch(/count: must be at most gateway.maxShards \(4; got 60000\)/);
      expect(client.gateway.status).toBe('ready');
      expect(ws.peers, 'no shard of a new set was opened').toHaveLength(1);
    } finally {
      await client.close();
      await ws.close();
      await service.close();
    }
  });
});
