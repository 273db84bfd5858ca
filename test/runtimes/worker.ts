/**
 * The workerd scenario's Worker: examples/cloudflare-worker as it is, plus
 * one probe route that tries `client.gateway.connect()` and answers with
 * what it threw, so the scenario sees the Gateway refused inside workerd.
 */
import { Client } from 'community-chat-sdk';
import worker, { type Env } from '../../examples/cloudflare-worker/src/index.js';

export default {
  async fetch(request: Request, env: Env, ctx: { waitUntil(promise: Promise<unknown>): void }): Promise<Response> {
    if (new URL(request.url).pathname !== '/gateway-probe') return worker.fetch(request, env, ctx);
    const client = new Client({ baseUrl: env.CHAT_BASE_URL, auth: { botToken: env.CHAT_BOT_TOKEN } });
    const refusal = await client.gateway.connect().then(
      () => 'connected',
      (error: unknown) => `${(error as Error).name}: ${(error as Error).message}`,
    );
    await client.close();
    return new Response(refusal);
  },
};
