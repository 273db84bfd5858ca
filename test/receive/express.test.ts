import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookReceiver, type WebhookErrorEvent, type WebhookReceiver } from '../../src/receiver.js';
import { isCommunityChatError } from '../../src/index.js';
import { startRawLoopbackServer } from '../helpers/index.js';
import { NOW_MS, NOW_S, post, settle, signedDelivery, waitFor, WEBHOOK_SECRET } from './helpers.js';

let closeServer: (() => Promise<void>) | undefined;
afterEach(async () => {
  await closeServer?.();
  closeServer = undefined;
});

/** Serves the Express app on the shared loopback server helper. */
async function listen(app: express.Express): Promise<string> {
  const server = await startRawLoopbackServer(app);
  closeServer = () => server.close();
  return `${server.url}/webhooks`;
}

function receiverWithLog(): { receiver: WebhookReceiver; ids: string[]; errors: WebhookErrorEvent[] } {
  const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, clock: () => NOW_MS });
  const ids: string[] = [];
  const errors: WebhookErrorEvent[] = [];
  receiver.on('delivery', (delivery) => void ids.push(delivery.id));
  receiver.on('error', (event) => void errors.push(event));
  return { receiver, ids, errors };
}

describe('the Express middleware, on real Express 5', () => {
  it('reads the raw body itself: a valid delivery is handled once; tampering, a missing header, staleness and a replay get 401', async () => {
    const { receiver, ids } = receiverWithLog();
    const app = express();
    app.post('/webhooks', receiver.express);
    const url = await listen(app);
    const valid = signedDelivery({ data: { text: 'multibyte ✓ 👍 ü' } });
    const { 'x-delivery-id': _gone, ...missing } = valid.headers;
    const stale = signedDelivery({ timestamp: NOW_S + 1000 });
    expect((await post(url, valid.body.replace('✓', '✗'), valid.headers)).status).toBe(401);
    expect((await post(url, valid.body, missing)).json).toEqual({ ok: false, reason: 'missing-header' });
    expect((await post(url, stale.body, stale.headers)).json).toEqual({ ok: false, reason: 'stale' });
    expect(await post(url, valid.body, valid.headers)).toEqual({ status: 200, json: { ok: true } });
    expect((await post(url, valid.body, valid.headers)).json).toEqual({ ok: false, reason: 'replayed' });
    await waitFor(() => ids.length === 1);
    await settle();
    expect(ids).toEqual([valid.id]);
  });

  it('takes the Buffer that express.raw() already read', async () => {
    const { receiver, ids } = receiverWithLog();
    const app = express();
    app.post('/webhooks', express.raw({ type: 'application/json' }), receiver.express);
    const url = await listen(app);
    const valid = signedDelivery({ data: { text: '😀 raw' } });
    expect((await post(url, valid.body, valid.headers)).status).toBe(200);
    expect((await post(url, `${valid.body} `, valid.headers)).status).toBe(401);
    await waitFor(() => ids.length === 1);
    expect(ids).toEqual([valid.id]);
  });

  it('refuses a body express.json() already parsed with a clear error, even when the signature was valid', async () => {
    const { receiver, ids, errors } = receiverWithLog();
    const app = express();
    app.use(express.json());
    app.post('/webhooks', receiver.express);
    const seen: unknown[] = [];
    app.use((error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      seen.push(error);
      res.status(500).json({ message: (error as Error).message });
    });
    const url = await listen(app);
    const valid = signedDelivery();
    const answer = await post(url, valid.body, valid.headers);
    expect(answer.status).toBe(500);
    expect(String(answer.json['message'])).toMatch(/already parsed.*express\.raw\(\{ type: "application\/json" \}\)/);
    expect(isCommunityChatError(seen[0], 'ValidationError')).toBe(true);
    expect(isCommunityChatError(errors[0]?.error, 'ValidationError')).toBe(true);
    await settle();
    expect(ids).toEqual([]);
  });

  it('answers 413 past the limit', async () => {
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, clock: () => NOW_MS, maxBodyBytes: 64 });
    const app = express();
    app.post('/webhooks', receiver.express);
    const url = await listen(app);
    const big = signedDelivery({ data: { text: 'q'.repeat(100) } });
    expect((await post(url, big.body, big.headers)).status).toBe(413);
  });
});
