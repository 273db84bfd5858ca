/**
 * Webhook publisher: posts build reports through an incoming webhook. It needs
 * nothing but the webhook's secret URL, and can only post to that one channel.
 * Each argument is one message; past the webhook's window (30 a minute) the
 * client holds the next one and says so, instead of waiting in silence.
 *
 *   CHAT_WEBHOOK_URL=https://chat.example/api/v1/webhooks/{id}/{token} node examples/webhook-publisher.ts "Build 42 passed" "Build 43 passed"
 */
import { WebhookClient, isCommunityChatError } from 'community-chat-sdk';

const hook = new WebhookClient(process.env['CHAT_WEBHOOK_URL'] ?? '');
const messages = process.argv.length > 2 ? process.argv.slice(2) : ['Build finished'];
let posted = 0;
hook.on('requestHeld', ({ reason, waitMs }) =>
  console.log(`${posted}/${messages.length} posted; held by the ${reason} rate limit for ${Math.ceil(waitMs / 1000)} s`),
);

try {
  for (const content of messages) {
    await hook.execute({ content, username: 'CI' });
    posted++;
  }
  console.log(`Posted ${posted} message(s) to webhook ${hook.id}`);
} catch (error) {
  if (isCommunityChatError(error, 'ValidationError')) console.error(`Not sent: ${error.message}`);
  else if (isCommunityChatError(error, 'RateLimitError'))
    console.error(`Rate limited${error.sent ? '' : ' (not sent)'}; retry in ${error.retryAfterMs ?? 'a few'} ms`);
  else throw error;
  process.exitCode = 1;
} finally {
  await hook.close();
}
