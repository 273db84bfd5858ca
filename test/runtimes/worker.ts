/**
 * The workerd scenario's Worker: examples/cloudflare-worker as it is, plus
 * two probe routes: `/gateway-probe` tries `client.gateway.connect()` and
 * answers with what it threw, so the scenario sees the Gateway refused
 * inside workerd; `/transport-probe` makes a REST call with a
 * `FetchTransport` imported from `community-chat-sdk/transport`, so the
 * scenario sees that entry load and work in workerd.
 */
import { Client } from 'community-chat-sdk';
import { FetchTransport } from 'community-chat-sdk/transport';
import worker, { type Env } from '../../examples/cloudflare-worker/src/index.js';

async function gatewayProbe(env: Env): Promise<string> {
  const client = new Client({ baseUrl: env.CHAT_BASE_URL, auth: { botToken: env.CHAT_BOT_TOKEN } });
  const refusal = await client.gateway.connect().then(
    () => 'connected',
    (error: unknown) => `${(error as Error).name}: ${(error as Error).message}`,
  );
  await client.close();
  return refusal;
}

async function transportProbe(env: Env): Promise<string> {
  const client = new Client({ baseUrl: env.CHAT_BASE_URL, auth: { botToken: env.CHAT_BOT_TOKEN }, transport: new FetchTransport() });
  try {
    return (await client.users.getMe()).username ?? '';
  } finally {
    await client.close();
  }
}

export default {
  async fetch(request: Request, env: Env, ctx: { waitUntil(promise: Promise<unknown>): void }): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path === '/gateway-probe') return new Response(await gatewayProbe(env));
    if (path === '/transport-probe') return new Response(await transportProbe(env));
    return worker.fetch(request, env, ctx);
  },
};
