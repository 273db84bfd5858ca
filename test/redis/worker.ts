/**
 * One bot process of the cross-process tests, run by `node --import tsx`
 * on the SDK built from source. Settings come from the environment; it
 * prints one line `result <json>` when done.
 *
 * MODE=burst: at START_AT, sends ROUTE_COUNT channel reads and WEBHOOK_COUNT
 * executions to one webhook, all at once, with STORE=redis or memory.
 * MODE=session: loads the shared session and calls GET /users/@me once.
 * REDIS_CLUSTER (node URLs, comma-separated) puts the stores on a Redis Cluster.
 */
import { createClient, createCluster } from 'redis';
import { Client } from '../../src/index.js';
import type { RateLimitStore } from '../../src/stores.js';
import { createRedisRateLimitStore, createRedisUserSessionStore } from '../../src/redis/index.js';

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`worker: ${name} is not set`);
  return value;
};

const mode = env('MODE', 'burst');
// REDIS_CLUSTER (comma-separated node URLs) runs the worker on a Redis Cluster instead of one node.
const clusterNodes = process.env['REDIS_CLUSTER'];
const redis = clusterNodes ? createCluster({ rootNodes: clusterNodes.split(',').map((url) => ({ url })) }) : createClient({ url: env('REDIS_URL') });
redis.on('error', () => undefined);
await redis.connect();

async function startTogether(): Promise<void> {
  const at = Number(env('START_AT', '0'));
  console.log('ready');
  if (at > Date.now()) await new Promise((resolve) => setTimeout(resolve, at - Date.now()));
}

if (mode === 'session') {
  const client = new Client({ baseUrl: env('BASE_URL'), sessionStore: createRedisUserSessionStore({ client: redis, key: env('SESSION_KEY') }) });
  let refreshed = 0;
  client.on('sessionRefreshed', () => refreshed++);
  await startTogether();
  const me = await client.users.getMe();
  console.log(`result ${JSON.stringify({ id: (me as { id?: string }).id, token: client.session.accessToken, refreshed })}`);
} else {
  const store: RateLimitStore | undefined =
    env('STORE') === 'redis'
      ? createRedisRateLimitStore({ client: redis, prefix: env('PREFIX'), reservationMs: Number(env('RESERVATION_MS', '30000')) })
      : undefined;
  const client = new Client({
    baseUrl: env('BASE_URL'),
    auth: { botToken: 'shared-bot-token', webhookTokens: { wh1: 'webhook-token' } },
    webhookRateLimit: { limit: 30, windowMs: Number(env('WEBHOOK_WINDOW_MS', '60000')) },
    deadlineMs: Number(env('DEADLINE_MS', '60000')),
    ...(store ? { rateLimitStore: store } : {}),
  });
  let rateLimited = 0;
  client.on('rateLimited', () => rateLimited++);
  const proc = env('PROC', '0');
  await startTogether();
  const calls: Promise<unknown>[] = [];
  for (let i = 0; i < Number(env('ROUTE_COUNT', '0')); i++) calls.push(client.channels.get(env('CHANNEL', '123')));
  for (let i = 0; i < Number(env('WEBHOOK_COUNT', '0')); i++) calls.push(client.webhooks.execute('wh1', { content: `p${proc}-${i}` }));
  const settled = await Promise.allSettled(calls);
  const failed = settled.filter((item) => item.status === 'rejected').map((item) => String((item as PromiseRejectedResult).reason?.name));
  console.log(`result ${JSON.stringify({ ok: settled.length - failed.length, failed, rateLimited })}`);
  await client.close();
}
await redis.close();
