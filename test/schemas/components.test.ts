/**
 * Components, modal forms and command definitions outside Discord's limits
 * are refused before sending, with a ValidationError naming each field.
 */
import { describe, expect, it } from 'vitest';
import { type Client, type ValidationError, isCommunityChatError } from '../../src/index.js';
import { createMswClient, useMswRecorder } from '../helpers/index.js';

const recorder = useMswRecorder();
const button = (id: string) => ({ type: 2, style: 1, label: id, custom_id: id });
const reply = (c: Client, data: Record<string, unknown>) => c.interactions.respond('i1', { interaction_type: 4, data: { content: 'x', ...data } });
const modal = (c: Client, data: Record<string, unknown>) => c.interactions.respond('i1', { interaction_type: 9, data });
const input = { type: 4, custom_id: 'name', style: 1, label: 'Name' };

const invalid: { name: string; call: (client: Client) => Promise<unknown>; paths: string[] }[] = [
  {
    name: 'six buttons in a row',
    call: (c) => reply(c, { components: [{ type: 1, components: ['a', 'b', 'c', 'd', 'e', 'f'].map(button) }] }),
    paths: ['data.components.0.components'],
  },
  {
    name: 'six rows',
    call: (c) => reply(c, { components: Array.from({ length: 6 }, (_, i) => ({ type: 1, components: [button(`b${i}`)] })) }),
    paths: ['data.components'],
  },
  {
    name: 'a select beside a button',
    call: (c) => reply(c, { components: [{ type: 1, components: [button('a'), { type: 3, custom_id: 's', options: [{ label: 'x', value: 'x' }] }] }] }),
    paths: ['data.components.0.components'],
  },
  {
    name: 'a link button with a custom_id',
    call: (c) => reply(c, { components: [{ type: 1, components: [{ type: 2, style: 5, label: 'x', custom_id: 'x' }] }] }),
    paths: ['data.components.0.components.0'],
  },
  {
    name: 'a custom_id over 100 characters',
    call: (c) => reply(c, { components: [{ type: 1, components: [button('x'.repeat(101))] }] }),
    paths: ['data.components.0.components.0.custom_id'],
  },
  {
    name: 'one custom_id twice',
    call: (c) => reply(c, { components: [{ type: 1, components: [button('same'), button('same')] }] }),
    paths: ['data.components'],
  },
  {
    name: 'a select with no options',
    call: (c) => reply(c, { components: [{ type: 1, components: [{ type: 3, custom_id: 's', options: [] }] }] }),
    paths: ['data.components.0.components.0.options'],
  },
  {
    name: 'a modal without a title',
    call: (c) => modal(c, { custom_id: 'f', title: '', components: [{ type: 1, components: [input] }] }),
    paths: ['data.title'],
  },
  {
    name: 'a modal input label over 45 characters',
    call: (c) => modal(c, { custom_id: 'f', title: 'F', components: [{ type: 1, components: [{ ...input, label: 'x'.repeat(46) }] }] }),
    paths: ['data.components.0.components.0.label'],
  },
  { name: 'a modal with no inputs', call: (c) => modal(c, { custom_id: 'f', title: 'F', components: [] }), paths: ['data.components'] },
  { name: 'an empty command description', call: (c) => c.commands.create('app1', { name: 'quiz', description: '' }), paths: ['description'] },
  {
    name: 'an option without a description',
    call: (c) => c.commands.create('app1', { name: 'quiz', description: 'Quiz', options: [{ type: 3, name: 'topic' } as never] }),
    paths: ['options.0.description'],
  },
  {
    name: 'a choice list over 25',
    call: (c) =>
      c.commands.create('app1', {
        name: 'quiz',
        description: 'Quiz',
        options: [{ type: 3, name: 't', description: 't', choices: Array.from({ length: 26 }, (_, i) => ({ name: `c${i}`, value: i })) }],
      }),
    paths: ['options.0.choices'],
  },
  {
    name: 'max_length over 6000',
    call: (c) => c.commands.sync('app1', [{ name: 'quiz', description: 'Quiz', options: [{ type: 3, name: 't', description: 't', max_length: 6001 }] }]),
    paths: ['0.options.0.max_length'],
  },
];

describe('components, modal forms and commands within the service limits', () => {
  it.each(invalid)('$name: ValidationError naming the field, nothing sent', async ({ call, paths }) => {
    const error = await call(createMswClient()).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(isCommunityChatError(error, 'ValidationError')).toBe(true);
    const issues = (error as ValidationError).issues.map((issue) => issue.path);
    for (const path of paths) expect(issues).toContain(path);
    expect(recorder.requests).toHaveLength(0);
  });

  it('a reply with rows of buttons and a select, and a modal form within the limits, are sent as given', async () => {
    recorder.respond(() => ({ status: 204 }));
    const client = createMswClient();
    const components = [
      { type: 1, components: ['a', 'b', 'c', 'd', 'e'].map(button) },
      { type: 1, components: [{ type: 3, custom_id: 'level', options: [{ label: 'Easy', value: 'easy' }], placeholder: 'Level' }] },
      { type: 1, components: [{ type: 2, style: 5, label: 'Docs', url: 'https://example.com/docs' }] },
    ];
    await reply(client, { components });
    await modal(client, { custom_id: 'f', title: 'Feedback', components: [{ type: 1, components: [{ ...input, max_length: 40, custom_field: 1 }] }] });
    expect(recorder.requests.map((request) => JSON.parse(request.body).data.components)).toEqual([
      components,
      [{ type: 1, components: [{ ...input, max_length: 40, custom_field: 1 }] }],
    ]);
  });
});
