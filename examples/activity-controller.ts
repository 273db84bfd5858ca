/**
 * Activity controller: a bot starts a watch-together activity in a channel,
 * plays it, seeks, and prints a snapshot of its state.
 *
 *   CHAT_BASE_URL=... CHAT_BOT_TOKEN=... CHAT_CHANNEL_ID=... node examples/activity-controller.ts
 */
import { Client } from 'community-chat-sdk';

const client = new Client({ baseUrl: process.env['CHAT_BASE_URL'], auth: { botToken: process.env['CHAT_BOT_TOKEN'] ?? '' } });
const channelId = process.env['CHAT_CHANNEL_ID'] ?? '';

const activity = await client.activities.create(channelId, { kind: 'watch', title: 'Launch stream' });
const activityId = String(activity.id);
await client.activities.join(activityId);
await client.activities.playPause(activityId, { paused: false });
await client.activities.seek(activityId, { position_ms: 90_000 });
await client.activities.updateState(activityId, { state: { chapter: 2 } });
console.log('Snapshot:', await client.activities.getSnapshot(activityId));
await client.activities.delete(activityId);
await client.close();
