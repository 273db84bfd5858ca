/**
 * A loopback HTTP server that enforces the contract's limits and counts what
 * it receives, for tests across processes: route buckets with Discord's
 * `X-RateLimit-*` headers (fixed windows per bucket and major parameter,
 * 429 past the limit), the per-webhook rolling window (30 per minute in the
 * contract; scaled down here), and a user session whose refresh cookie
 * rotates on every refresh (the old one is revoked).
 */
import { startLoopbackServer, type LoopbackServer } from './index.js';

/** Limits the server enforces. */
export interface LimitsServerOptions {
  /** Requests per window of the channel-read bucket. @default 10 */
  routeLimit?: number;
  /** Window of the channel-read bucket, milliseconds. @default 500 */
  routeWindowMs?: number;
  /** Executions per rolling window, per webhook. @default 30 */
  webhookLimit?: number;
  /** The webhook window, milliseconds. @default 60000 */
  webhookWindowMs?: number;
  /** The bot token accepted. @default "shared-bot-token" */
  botToken?: string;
  /** The first refresh cookie and access token of the user session. */
  session?: { refreshCookie: string; accessToken: string };
}

/** What the server counted. */
export interface LimitsServer extends LoopbackServer {
  /** 429s answered per bucket id (route buckets by their id and major, webhooks as `webhook:<id>`). */
  tooMany: Map<string, number>;
  /** Webhook executions that arrived past the rolling window (each got a 429). */
  webhookViolations: number;
  /** Accepted webhook executions: arrival time and content, in arrival order. */
  webhookAccepted: { at: number; webhookId: string; content: string }[];
  /** Accepted channel reads per window start. */
  routeAccepted: number;
  /** Refresh requests that reached the server, and how many succeeded. */
  refreshes: { total: number; ok: number };
  /** Access tokens seen on `GET /users/@me`, in order. */
  userTokens: string[];
  /** While true, channel reads are held open and never answered. */
  hang: boolean;
  /** The largest number of webhook executions accepted in any rolling window. */
  maxInWebhookWindow(): number;
}

/** Starts the server. */
export async function startLimitsServer(options: LimitsServerOptions = {}): Promise<LimitsServer> {
  const routeLimit = options.routeLimit ?? 10;
  const routeWindowMs = options.routeWindowMs ?? 500;
  const webhookLimit = options.webhookLimit ?? 30;
  const webhookWindowMs = options.webhookWindowMs ?? 60_000;
  const botToken = options.botToken ?? 'shared-bot-token';
  const windows = new Map<string, { count: number; resetAt: number }>();
  const webhookTimes = new Map<string, number[]>();
  let refreshCookie = options.session?.refreshCookie;
  let generation = 0;
  const validTokens = new Set(options.session ? [options.session.accessToken] : []);
  const base = await startLoopbackServer();
  const server: LimitsServer = Object.assign(base, {
    tooMany: new Map<string, number>(),
    webhookViolations: 0,
    webhookAccepted: [] as { at: number; webhookId: string; content: string }[],
    routeAccepted: 0,
    refreshes: { total: 0, ok: 0 },
    userTokens: [] as string[],
    hang: false,
    maxInWebhookWindow() {
      let max = 0;
      const accepted = server.webhookAccepted;
      for (let i = 0; i < accepted.length; i++) {
        const first = accepted[i] as { at: number; webhookId: string };
        const count = accepted.filter((item) => item.webhookId === first.webhookId && item.at >= first.at && item.at < first.at + webhookWindowMs).length;
        max = Math.max(max, count);
      }
      return max;
    },
  });
  const countTooMany = (bucket: string) => server.tooMany.set(bucket, (server.tooMany.get(bucket) ?? 0) + 1);

  base.setHandler((request, response, body) => {
    const now = Date.now();
    const url = new URL(request.url ?? '/', 'http://x');
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(value === undefined ? '' : JSON.stringify(value));
    };
    const channel = /^\/api\/v1\/channels\/([^/]+)$/.exec(url.pathname);
    if (channel && request.method === 'GET') {
      if (request.headers.authorization !== `Bot ${botToken}`) return json(401, { message: 'bad token' });
      if (server.hang) return; // held open: the client's process may be killed meanwhile
      const key = `chan-read:${channel[1]}`;
      let window = windows.get(key);
      if (window === undefined || now >= window.resetAt) {
        window = { count: 0, resetAt: now + routeWindowMs };
        windows.set(key, window);
      }
      const resetAfter = ((window.resetAt - now) / 1000).toFixed(3);
      const limits = { 'x-ratelimit-limit': String(routeLimit), 'x-ratelimit-reset-after': resetAfter, 'x-ratelimit-bucket': 'chan-read' };
      if (window.count >= routeLimit) {
        countTooMany(key);
        return json(
          429,
          { message: 'You are being rate limited.', retry_after: Number(resetAfter), global: false },
          { ...limits, 'x-ratelimit-remaining': '0', 'retry-after': resetAfter },
        );
      }
      window.count++;
      server.routeAccepted++;
      return json(200, { id: channel[1], name: 'general' }, { ...limits, 'x-ratelimit-remaining': String(routeLimit - window.count) });
    }
    const webhook = /^\/api\/v1\/webhooks\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (webhook && request.method === 'POST') {
      const id = webhook[1] as string;
      const times = (webhookTimes.get(id) ?? []).filter((at) => at > now - webhookWindowMs);
      webhookTimes.set(id, times);
      if (times.length >= webhookLimit) {
        server.webhookViolations++;
        countTooMany(`webhook:${id}`);
        const retryAfter = (((times[0] as number) + webhookWindowMs - now) / 1000).toFixed(3);
        return json(
          429,
          { message: 'You are being rate limited.', retry_after: Number(retryAfter), global: false },
          { 'retry-after': retryAfter, 'x-ratelimit-scope': 'shared' },
        );
      }
      times.push(now);
      server.webhookAccepted.push({ at: now, webhookId: id, content: String((JSON.parse(body || '{}') as { content?: unknown }).content) });
      response.writeHead(204);
      return response.end();
    }
    if (url.pathname === '/api/v1/auth/refresh' && request.method === 'POST') {
      server.refreshes.total++;
      const cookie = /refresh_token=([^;]+)/.exec(request.headers.cookie ?? '')?.[1];
      if (refreshCookie === undefined || cookie !== refreshCookie) return json(401, { message: 'refresh cookie revoked or missing' });
      generation++;
      refreshCookie = `refresh-${generation}-${Math.random().toString(36).slice(2)}`;
      const accessToken = `access-${generation}-${Math.random().toString(36).slice(2)}`;
      validTokens.add(accessToken);
      server.refreshes.ok++;
      return json(200, { access_token: accessToken, expires_in: 900 }, { 'set-cookie': `refresh_token=${refreshCookie}; Path=/api/v1/auth; HttpOnly` });
    }
    if (url.pathname === '/api/v1/users/@me' && request.method === 'GET') {
      const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
      if (token === undefined || !validTokens.has(token)) return json(401, { message: 'bad access token' });
      server.userTokens.push(token);
      return json(200, { id: 'u1', username: 'shared' });
    }
    json(404, { message: 'not found' });
  });
  return server;
}
