/**
 * Session-based admin script: logs in as a user, lists the applications, shows
 * each bot's invite URL and the latest API logs, then logs out.
 *
 *   CHAT_BASE_URL=... CHAT_EMAIL=... CHAT_PASSWORD=... node examples/admin-session.ts
 */
import { Client } from 'community-chat-sdk';

const client = new Client({ baseUrl: process.env['CHAT_BASE_URL'] });
await client.auth.login({ email: process.env['CHAT_EMAIL'] ?? '', password: process.env['CHAT_PASSWORD'] ?? '' });

for (const application of await client.applications.list()) {
  const appId = String(application.id);
  const invite = await client.bots.getInviteUrl(appId);
  console.log(`${application.name ?? appId}: invite ${invite.url ?? JSON.stringify(invite)}`);
  let shown = 0;
  for await (const entry of client.applications.listApiLogs(appId, { perPage: 50, maxPages: 2 })) {
    if (shown++ < 5) console.log('  log:', entry);
  }
}

await client.auth.logout();
await client.close();
