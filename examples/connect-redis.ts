/**
 * The examples' Redis connection: within two seconds it either connects or
 * says what it could not reach and how to start Redis, and exits.
 */
import { createClient, type RedisClientType } from 'redis';

/** The Redis the examples use: `REDIS_URL`, or a local one on the default port. */
export const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/**
 * Connects to {@link REDIS_URL}, or exits with how to start one: the first connection is tried once (an example says at
 * once what it could not reach rather than wait in silence); once connected, a dropped connection is tried again, so a
 * fleet rides out a Redis restart.
 */
export async function connectRedis(): Promise<RedisClientType> {
  let connected = false;
  const reconnectStrategy = (retries: number): number | false => (connected ? Math.min(50 * 2 ** Math.min(retries, 5), 1000) : false);
  const redis = createClient({ url: REDIS_URL, socket: { reconnectStrategy, connectTimeout: 2000 } });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    connected = true;
    return redis;
  } catch (error) {
    console.error(
      `No Redis answers at ${REDIS_URL} (${error instanceof Error ? error.message : String(error)}). Start one, then run this again:\n` +
        `  redis-server --port 6379 --save '' --appendonly no     (Debian/Ubuntu: apt-get install -y redis-server)\n` +
        `  docker run --rm -p 6379:6379 redis:7\n` +
        `or point REDIS_URL at yours (REDIS_URL=redis://host:6379 node --import tsx ${process.argv[1] ?? 'the example'}).`,
    );
    process.exit(1);
  }
}
