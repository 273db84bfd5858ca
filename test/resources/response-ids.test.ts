import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  UnexpectedResponseError,
  WebhookClient,
  type Activity,
  type Application,
  type ApplicationWebhook,
  type Channel,
  type Client,
  type Command,
  type GuildWebhook,
} from '../../src/index.js';
import { SECRETS, createMswClient, useMswRecorder } from '../helpers/index.js';

const recorder = useMswRecorder();

interface IdCase {
  name: string;
  call: (client: Client) => Promise<unknown>;
  /** Whether the operation answers a list. */
  list?: boolean;
}

const cases: IdCase[] = [
  { name: 'applications.list', call: (c) => c.applications.list(), list: true },
  { name: 'applications.create', call: (c) => c.applications.create({ name: 'Quiz' }) },
  { name: 'applications.get', call: (c) => c.applications.get('app1') },
  { name: 'applications.update', call: (c) => c.applications.update('app1', { name: 'Quiz 2' }) },
  { name: 'commands.list', call: (c) => c.commands.list('app1'), list: true },
  { name: 'commands.listForGuild', call: (c) => c.commands.listForGuild('app1', 'g1'), list: true },
  { name: 'commands.listInGuild', call: (c) => c.commands.listInGuild('g1'), list: true },
  { name: 'commands.create', call: (c) => c.commands.create('app1', { name: 'quiz', description: 'q' }) },
  { name: 'commands.replace', call: (c) => c.commands.replace('app1', [{ name: 'quiz', description: 'q' }]), list: true },
  { name: 'commands.replaceForGuild', call: (c) => c.commands.replaceForGuild('app1', 'g1', [{ name: 'quiz', description: 'q' }]), list: true },
  { name: 'applicationWebhooks.list', call: (c) => c.applicationWebhooks.list('app1'), list: true },
  { name: 'applicationWebhooks.create', call: (c) => c.applicationWebhooks.create('app1', { url: 'https://hooks.test/x' }) },
  { name: 'applicationWebhooks.update', call: (c) => c.applicationWebhooks.update('app1', 'wh1', { url: 'https://hooks.test/y' }) },
  { name: 'webhooks.list', call: (c) => c.webhooks.list('g1'), list: true },
  { name: 'webhooks.create', call: (c) => c.webhooks.create('g1', { name: 'CI', channel_id: 'ch1' }) },
  { name: 'webhooks.resetToken', call: (c) => c.webhooks.resetToken('g1', 'wh1') },
  { name: 'webhooks.updateWithToken', call: (c) => c.webhooks.updateWithToken('wh1', { name: 'CD' }) },
  { name: 'channels.get', call: (c) => c.channels.get('ch1') },
  { name: 'channels.update', call: (c) => c.channels.update('ch1', { topic: 't' }) },
  { name: 'activities.list', call: (c) => c.activities.list('ch1'), list: true },
  { name: 'activities.create', call: (c) => c.activities.create('ch1', {}) },
  { name: 'activities.getActive', call: (c) => c.activities.getActive('ch1') },
  { name: 'activities.get', call: (c) => c.activities.get('act1') },
];

const wrap = (testCase: IdCase, item: unknown) => (testCase.list ? [{ id: 'ok1' }, item] : item);

describe('resources the contract identifies by an id come back with a string id', () => {
  it.each(cases)('$name resolves a body with an id, keeping unknown fields', async (testCase) => {
    recorder.respond(() => ({ json: wrap(testCase, { id: 'x1', future_field: { nested: true } }) }));
    const result = await testCase.call(createMswClient());
    expect(result).toEqual(wrap(testCase, { id: 'x1', future_field: { nested: true } }));
  });

  it.each(cases)('$name rejects a body without an id with UnexpectedResponseError naming the field', async (testCase) => {
    recorder.respond(() => ({ json: wrap(testCase, { name: 'no id here' }) }));
    const error = await testCase.call(createMswClient()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as UnexpectedResponseError).operation).toBe(testCase.name);
    expect((error as Error).message).toContain(testCase.list ? 'item 1 of the response has no "id" field' : 'the response has no "id" field');
    expect((error as Error).message).toContain('requireResponseIds: false');
  });

  it.each(cases)('$name accepts the same body with requireResponseIds: false', async (testCase) => {
    recorder.respond(() => ({ json: wrap(testCase, { name: 'no id here' }) }));
    await expect(testCase.call(createMswClient({ requireResponseIds: false }))).resolves.toEqual(wrap(testCase, { name: 'no id here' }));
  });

  it('names an id of the wrong type, a body that is not an object, and an empty body', async () => {
    const client = createMswClient();
    recorder.respond(() => ({ json: { id: 42 } }));
    await expect(client.channels.get('ch1')).rejects.toThrow(
      /channels\.get: unexpected response \(200\): the response has an "id" that is number, not a string/,
    );
    recorder.respond(() => ({ json: [{ id: 'a' }, 'b'] }));
    await expect(client.activities.list('ch1')).rejects.toThrow(/item 1 of the response is string, not an object with a string "id"/);
    recorder.respond(() => ({ status: 201, json: null }));
    await expect(client.applications.create({ name: 'x' })).rejects.toThrow(/applications\.create: unexpected response \(201\): the response is null/);
    recorder.respond(() => ({ status: 200 }));
    await expect(client.channels.get('ch1')).rejects.toThrow(/the response is empty, not an object with a string "id"/);
  });

  it('leaves a list body that is not an array, and every other field, unchecked', async () => {
    recorder.respond(() => ({ json: { items: [{ no: 'id' }] } }));
    await expect(createMswClient().applications.list()).resolves.toEqual({ items: [{ no: 'id' }] });
    recorder.respond(() => ({ json: { id: 'ch1', name: 5, topic: null } }));
    await expect(createMswClient().channels.get('ch1')).resolves.toEqual({ id: 'ch1', name: 5, topic: null });
  });

  it('checks the webhook WebhookClient.update() returns, unless told not to', async () => {
    const url = `https://chat.test/api/v1/webhooks/wh7/${SECRETS.webhookToken}`;
    recorder.respond(() => ({ json: { name: 'n' } }));
    await expect(new WebhookClient(url, { transport: 'fetch' }).update({ name: 'n' })).rejects.toThrow(/webhooks\.updateWithToken: .*no "id" field/);
    await expect(new WebhookClient(url, { transport: 'fetch', requireResponseIds: false }).update({ name: 'n' })).resolves.toEqual({ name: 'n' });
  });

  it('types the id as present, other fields as optional', () => {
    expectTypeOf<Application['id']>().toEqualTypeOf<string>();
    expectTypeOf<Command['id']>().toEqualTypeOf<string>();
    expectTypeOf<ApplicationWebhook['id']>().toEqualTypeOf<string>();
    expectTypeOf<GuildWebhook['id']>().toEqualTypeOf<string>();
    expectTypeOf<Channel['id']>().toEqualTypeOf<string>();
    expectTypeOf<Activity['id']>().toEqualTypeOf<string>();
    expectTypeOf<Channel['name']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Client['applications']['list']>().returns.resolves.items.toHaveProperty('id').toEqualTypeOf<string>();
  });
});
