import { describe, expectTypeOf, it } from 'vitest';
import {
  Client,
  defineCommand,
  type AutocompleteInteraction,
  type CommandInteraction,
  type ComponentInteraction,
  type Interaction,
  type ModalSubmitInteraction,
  type PingInteraction,
} from '../../src/index.js';

// These tests are checked by the type checker (npm test runs tsc over test/); at run time they only build objects.
describe('types of interaction handlers', () => {
  const gateway = new Client({ auth: { botToken: 'x' } }).gateway;

  it('narrows onInteraction handlers to their kind', () => {
    gateway.onInteraction('autocomplete', (interaction) => {
      expectTypeOf(interaction).toEqualTypeOf<AutocompleteInteraction>();
      void interaction.autocomplete([{ name: 'a', value: 'a' }]);
      // @ts-expect-error autocomplete interactions cannot reply with a message
      void interaction.reply('no');
    });
    gateway.onInteraction('ping', (interaction) => {
      expectTypeOf(interaction).toEqualTypeOf<PingInteraction>();
      void interaction.pong();
      // @ts-expect-error pings only pong
      void interaction.defer();
    });
    gateway.onInteraction('component', (interaction) => {
      expectTypeOf(interaction).toEqualTypeOf<ComponentInteraction>();
      expectTypeOf(interaction.values).toEqualTypeOf<readonly string[]>();
      void interaction.deferUpdate();
    });
    gateway.onInteraction('modalSubmit', (interaction) => {
      expectTypeOf(interaction).toEqualTypeOf<ModalSubmitInteraction>();
      expectTypeOf(interaction.fields).toEqualTypeOf<Readonly<Record<string, string>>>();
    });
    gateway.on('interactionCreate', (interaction) => {
      expectTypeOf(interaction).toEqualTypeOf<Interaction>();
      if (interaction.kind === 'command') expectTypeOf(interaction).toEqualTypeOf<CommandInteraction>();
    });
  });

  it('accepts reply(string) and reply({ content }) and nothing else', () => {
    gateway.onInteraction('command', (interaction) => {
      void interaction.reply('text');
      void interaction.reply({ content: 'text', flags: 64 });
      // @ts-expect-error content is required
      void interaction.reply({ flags: 64 });
      // @ts-expect-error a number is not a message
      void interaction.reply(42);
      expectTypeOf(interaction.reply).returns.toEqualTypeOf<Promise<void>>();
    });
  });

  it('types command options from a definition', () => {
    const quiz = defineCommand({
      name: 'Quiz',
      description: 'Start a quiz',
      options: [
        { type: 3, name: 'topic', description: 'Topic', required: true },
        { type: 4, name: 'rounds', description: 'Rounds' },
        { type: 5, name: 'hard', description: 'Hard mode', required: true },
      ],
    });
    gateway.onCommand(quiz, (interaction) => {
      expectTypeOf(interaction.options.topic).toEqualTypeOf<string>();
      expectTypeOf(interaction.options.rounds).toEqualTypeOf<number | undefined>();
      expectTypeOf(interaction.options.hard).toEqualTypeOf<boolean>();
      // @ts-expect-error not an option of this command
      void interaction.options.colour;
    });
    gateway.onCommand('plain', (interaction) => {
      expectTypeOf(interaction).toMatchTypeOf<CommandInteraction<object>>();
    });
  });
});
