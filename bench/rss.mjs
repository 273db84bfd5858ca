// Peak RSS of one adapter doing the REST workload alone in this process:
//   node bench/rss.mjs sdk|raw <port>
// 20,000 GETs then 20,000 interaction callbacks (a new interaction id each), at
// concurrency 64. Prints the peak resident set size in KiB; asserts nothing.
import { Pool } from 'undici';

const [adapter, port] = process.argv.slice(2);
const origin = `http://127.0.0.1:${port}`;
const CALLS = 20_000;
const CONCURRENCY = 64;
const callback = { interaction_type: 4, data: { content: 'Quiz about space' } };

let get;
let respond;
let close;
if (adapter === 'sdk') {
  const { Client } = await import('../dist/index.js');
  const client = new Client({ baseUrl: origin, auth: { botToken: 'bench-token' } });
  get = () => client.channels.get('123');
  respond = (id) => client.interactions.respond(id, callback);
  close = () => client.close();
} else {
  const pool = new Pool(origin, { connections: 128, keepAliveTimeout: 4000 });
  const headers = { authorization: 'Bot bench-token', accept: 'application/json' };
  const json = { ...headers, 'content-type': 'application/json' };
  const call = async (method, path, h, body) => (await pool.request({ method, path, headers: h, body })).body.json();
  get = () => call('GET', '/api/v1/channels/123', headers);
  respond = (id) => call('POST', `/api/v1/interactions/${id}/callback`, json, JSON.stringify(callback));
  close = () => pool.close();
}

async function run(fn) {
  let next = 0;
  const worker = async () => {
    while (next < CALLS) await fn(String(1_000_000 + next++));
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

await run(get);
await run(respond);
await close();
process.stdout.write(`${process.resourceUsage().maxRSS}\n`);
