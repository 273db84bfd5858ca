import { describe, expect, it } from 'vitest';
import { Client, InsecureTransportError, MissingCredentialError, WebhookClient, isMissingCredentialError, isValidationError } from '../src/index.js';
import { SECRETS, createMswClient, useMswRecorder } from './helpers/index.js';

const recorder = useMswRecorder();

describe('WebhookClient', () => {
  it('executes, updates and deletes its one webhook with the path token', async () => {
    recorder.respond((request) => (request.method === 'PATCH' ? { json: { name: 'n' } } : { status: 204 }));
    const hook = new WebhookClient(`https://chat.test/api/v1/webhooks/wh7/${SECRETS.webhookToken}`, { transport: 'fetch' });
    expect(hook.id).toBe('wh7');
    await hook.execute({ content: 'hello', username: 'Deploy' });
    await hook.update({ name: 'n' });
    await hook.delete();
    expect(recorder.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      `POST /api/v1/webhooks/wh7/${SECRETS.webhookToken}`,
      `PATCH /api/v1/webhooks/wh7/${SECRETS.webhookToken}`,
      `DELETE /api/v1/webhooks/wh7/${SECRETS.webhookToken}`,
    ]);
    expect(recorder.requests.every((r) => r.headers['authorization'] === undefined)).toBe(true);
    await expect(hook.execute({ content: '' })).rejects.toSatisfy(isValidationError);
    expect(recorder.requests).toHaveLength(3);
  });

  it('rejects URLs that are not webhook URLs', () => {
    expect(() => new WebhookClient('https://chat.test/api/v1/channels/1')).toThrow(/webhooks/);
    expect(() => new WebhookClient('nope')).toThrow(/absolute/);
  });
});
