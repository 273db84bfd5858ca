/**
 * What bots send is typed as Discord shapes it: components, modal forms and
 * command definitions. A misspelled field fails to compile (each
 * `@ts-expect-error` below is checked by `tsc` in `npm test`); the limits are
 * checked at run time before sending (test/schemas/components.test.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  ApplicationCommandOptionType,
  ButtonStyle,
  type CommandDefinition,
  ComponentType,
  defineCommand,
  type MessageActionRow,
  type MessagePayload,
  type ModalForm,
  TextInputStyle,
} from '../../src/index.js';

describe('component and command types', () => {
  it('accept Discord shapes and refuse misspelled fields', () => {
    const rows: MessageActionRow[] = [
      {
        type: ComponentType.ActionRow,
        components: [
          { type: ComponentType.Button, style: ButtonStyle.Primary, label: 'Yes', custom_id: 'yes' },
          { type: ComponentType.Button, style: ButtonStyle.Link, label: 'Docs', url: 'https://example.com' },
        ],
      },
      {
        type: ComponentType.ActionRow,
        components: [{ type: ComponentType.StringSelect, custom_id: 'level', options: [{ label: 'Easy', value: 'easy' }], max_values: 1 }],
      },
    ];
    const message: MessagePayload = { content: 'Pick', components: rows, flags: 64 };
    // @ts-expect-error a misspelled field of a message
    const misspelled: MessagePayload = { content: 'Pick', componentz: rows };
    // @ts-expect-error a misspelled field of a button
    const button: MessageActionRow = { type: 1, components: [{ type: 2, style: ButtonStyle.Primary, label: 'x', custom_Id: 'x' }] };
    // @ts-expect-error a link button has a url, not a custom_id
    const link: MessageActionRow = { type: 1, components: [{ type: 2, style: ButtonStyle.Link, label: 'x', custom_id: 'x' }] };
    const form: ModalForm = {
      custom_id: 'feedback',
      title: 'Feedback',
      components: [{ type: 1, components: [{ type: 4, custom_id: 'name', label: 'Name', style: TextInputStyle.Short, max_length: 40 }] }],
    };
    // @ts-expect-error a modal row holds text inputs, not buttons
    const wrongRow: ModalForm = { custom_id: 'f', title: 'F', components: [{ type: 1, components: [{ type: 2, style: 1, label: 'x', custom_id: 'x' }] }] };
    const command: CommandDefinition = {
      name: 'quiz',
      description: 'Start a quiz',
      options: [
        { type: ApplicationCommandOptionType.Integer, name: 'rounds', description: 'Rounds', min_value: 1, max_value: 10 },
        { type: ApplicationCommandOptionType.String, name: 'topic', description: 'Topic', max_length: 50, choices: [{ name: 'Space', value: 'space' }] },
        { type: ApplicationCommandOptionType.Channel, name: 'where', description: 'Where', channel_types: [0] },
      ],
    };
    // @ts-expect-error a misspelled field of an option
    const typo: CommandDefinition = { name: 'x', description: 'x', options: [{ type: 4, name: 'n', description: 'n', min_vaule: 1 }] };
    // @ts-expect-error an option needs a description
    const bare: CommandDefinition = { name: 'x', description: 'x', options: [{ type: 4, name: 'n' }] };
    // @ts-expect-error a misspelled field inside defineCommand, too
    const defined = defineCommand({ name: 'x', description: 'x', options: [{ type: 4, name: 'n', description: 'n', min_vaule: 1 }] });
    expect([message, misspelled, button, link, form, wrongRow, command, typo, bare, defined]).toHaveLength(10);
  });

  it('accept readonly (as const) rows, menus and forms, as a bot keeps them in a constant', () => {
    const row = {
      type: ComponentType.ActionRow,
      components: [{ type: ComponentType.Button, style: ButtonStyle.Primary, label: 'Vote', custom_id: 'vote' }],
    } as const;
    const menu = {
      type: ComponentType.ActionRow,
      components: [{ type: ComponentType.StringSelect, custom_id: 'choice', options: [{ label: 'A', value: 'a' }] }],
    } as const;
    const rows = [row, menu] as const;
    const message: MessagePayload = { content: 'Poll', components: rows };
    const inputs = [{ type: 1, components: [{ type: 4, custom_id: 'why', label: 'Why', style: TextInputStyle.Paragraph }] }] as const;
    const form: ModalForm = { custom_id: 'poll', title: 'Poll', components: inputs };
    // @ts-expect-error readonly still refuses a misspelled field
    const wrong: MessagePayload = { content: 'x', components: [{ type: 1, components: [{ type: 2, style: 1, label: 'x', custom_Id: 'x' }] }] as const };
    expect([message, form, wrong]).toHaveLength(3);
  });
});
