/**
 * Webhook publisher: posts a build report through an incoming webhook. It needs
 * nothing but the webhook's secret URL, and can only post to that one channel.
 *
 *   CHAT_WEBHOOK_URL=https://chat.example/api/v1/webhooks/{id}/{token} node examples/webhook-publisher.ts "Build 42 passed"
 */
import { WebhookClient, isRateLimitError, isValidationError } from 'community-chat-sdk';

const hook = new WebhookClient(process.env['CHAT_WEBHOOK_URL'] ?? '');
const content = process.argv[2] ?? 'Build finished';

try {
  await hook.execute({ content, username: 'CI' });
  console.log(`Posted to webhook ${hook.id}`);
} catch (error) {
  if (isValidationError(error)) console.error(`Not sent: ${error.message}`);
  else if (isRateLimitError(error)) console.error(`Rate limited; retry in ${error.retryAfterMs ?? 'a few'} ms`);
  else throw error;
  process.exitCode = 1;
} finally {
  await hook.close();
}
