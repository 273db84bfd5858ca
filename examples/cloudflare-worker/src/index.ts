/**
 * An HTTP-interactions bot on Cloudflare Workers: the service POSTs each
 * interaction to this Worker, signed with the application webhook's secret;
 * the receiver verifies it, answers 200 at once, and the handlers go on
 * under `ctx.waitUntil`, replying through the interaction callback endpoint
 * with the Worker's own `fetch` (the SDK's default transport here).
 *
 * The Gateway does not run on Workers (a Worker holds no WebSocket client
 * between requests): `client.gateway.connect()` rejects with a GatewayError
 * saying so. Register this Worker's URL as an application webhook
 * subscribed to INTERACTION_CREATE instead (see README.md beside this file).
 */
import { Client, createInteractionRouter } from 'community-chat-sdk';
import { createWebhookReceiver, type WebhookReceiver } from 'community-chat-sdk/receiver';

/** The Worker's bindings (wrangler.toml's [vars] and `wrangler secret put`). */
export interface Env {
  /** The bot's token. */
  CHAT_BOT_TOKEN: string;
  /** The application webhook's signing secret; while rotating, both secrets, comma-separated. */
  CHAT_WEBHOOK_SECRET: string;
  /** The service's base URL. @default the SDK's default */
  CHAT_BASE_URL?: string;
}

/** The Worker's context: `waitUntil` keeps it alive while the handlers reply. */
interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
}

const router = createInteractionRouter();
router.onInteraction('ping', (interaction) => interaction.pong());

/** The bot's own name, asked once per isolate (a REST call, through fetch). */
let botName: Promise<string> | undefined;

/** One receiver per isolate, built on its first request (bindings come with the request on Workers). */
let receiver: WebhookReceiver | undefined;
function receiverFor(env: Env): WebhookReceiver {
  if (receiver) return receiver;
  const client = new Client({ baseUrl: env.CHAT_BASE_URL, auth: { botToken: env.CHAT_BOT_TOKEN } });
  router.onCommand('ping', async (interaction) => {
    botName ??= client.users.getMe().then((me) => me.username ?? 'the bot');
    await interaction.reply(`Pong from ${await botName} on Workers`);
  });
  const secret = env.CHAT_WEBHOOK_SECRET.split(',').map((value) => value.trim());
  receiver = createWebhookReceiver({ secret, client });
  receiver.use(router);
  receiver.on('error', ({ error }) => console.error('receiver error:', error));
  receiver.on('interactionError', ({ error }) => console.error('handler failed:', error));
  return receiver;
}

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> | Response {
    if (new URL(request.url).pathname !== '/interactions') return new Response('not found', { status: 404 });
    return receiverFor(env).fetch(request, ctx);
  },
};
