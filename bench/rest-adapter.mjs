// One REST adapter alone in a fresh process, as a bot runs it: warms up, then makes REQUESTS calls of one
// operation at CONCURRENCY against the bench server, and prints the client CPU microseconds per call
// (process.cpuUsage over the measured calls) as one JSON line. `npm run bench` starts one per adapter per round.
//
//   ADAPTER=sdk|undici|discordjs OP=get|patch|respond|execute CONCURRENCY=16 REQUESTS=4000 PORT=1234 node bench/rest-adapter.mjs
import { measure } from './measure.mjs';

const { ADAPTER = 'sdk', OP = 'get', PORT } = process.env;
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const REQUESTS = Number(process.env.REQUESTS ?? 4000);
const WARMUP = Number(process.env.WARMUP ?? 1500);
const origin = `http://127.0.0.1:${PORT}`;

const callback = { interaction_type: 4, data: { content: 'Quiz about space' } };
const message = { content: 'Build 1234 passed' };
const body = { name: 'general' };
// Interaction and webhook ids change with every call, as in a real bot (50,000 webhooks: the window is on, never binding).
let n = 0;
const nextInteraction = () => String(900_000 + (n++ % 1_000_000));
const nextHook = () => String(100_000 + (n++ % 50_000));

/** The calls of each adapter, and how it closes. */
async function adapter() {
  if (ADAPTER === 'sdk') {
    const { Client } = await import('../dist/index.js');
    const client = new Client({ baseUrl: origin, auth: { botToken: 'bench-token' } });
    const calls = {
      get: () => client.channels.get('123'),
      patch: () => client.channels.update('123', body),
      respond: () => client.interactions.respond(nextInteraction(), callback),
      execute: () => {
        const id = nextHook();
        return client.webhooks.execute({ id, token: `token-${id}` }, message);
      },
    };
    return { call: calls[OP], close: () => client.close() };
  }
  if (ADAPTER === 'undici') {
    const { Pool } = await import('undici');
    const pool = new Pool(origin, { connections: 128, keepAliveTimeout: 4000 });
    const authorized = { authorization: 'Bot bench-token', accept: 'application/json' };
    const json = { ...authorized, 'content-type': 'application/json' };
    const request = async (method, path, headers, payload) => (await pool.request({ method, path, headers, body: payload })).body.json();
    const calls = {
      get: () => request('GET', '/api/v1/channels/123', authorized),
      patch: () => request('PATCH', '/api/v1/channels/123', json, JSON.stringify(body)),
      respond: () => request('POST', `/api/v1/interactions/${nextInteraction()}/callback`, json, JSON.stringify(callback)),
      execute: () => {
        const id = nextHook();
        return request(
          'POST',
          `/api/v1/webhooks/${id}/token-${id}`,
          { accept: 'application/json', 'content-type': 'application/json' },
          JSON.stringify(message),
        );
      },
    };
    return { call: calls[OP], close: () => pool.close() };
  }
  if (ADAPTER === 'discordjs') {
    const { REST } = await import('@discordjs/rest');
    // Its proactive global cap (50 requests a second by default) is lifted: the SDK caps nothing unless asked, and the bench measures CPU.
    const rest = new REST({ api: `${origin}/api`, version: '1', retries: 0, globalRequestsPerSecond: Number.MAX_SAFE_INTEGER }).setToken('bench-token');
    const calls = {
      get: () => rest.get('/channels/123'),
      patch: () => rest.patch('/channels/123', { body }),
      respond: () => rest.post(`/interactions/${nextInteraction()}/callback`, { body: callback, auth: false }),
      execute: () => {
        const id = nextHook();
        return rest.post(`/webhooks/${id}/token-${id}`, { body: message, auth: false });
      },
    };
    return { call: calls[OP], close: async () => undefined };
  }
  throw new Error(`unknown ADAPTER ${ADAPTER}`);
}

const { call, close } = await adapter();
if (typeof call !== 'function') throw new Error(`unknown OP ${OP}`);
await measure(call, WARMUP, CONCURRENCY);
const cpuUsPerCall = await measure(call, REQUESTS, CONCURRENCY);
await close();
process.stdout.write(`${JSON.stringify({ adapter: ADAPTER, op: OP, concurrency: CONCURRENCY, cpuUsPerCall })}\n`);
process.exit(0);
