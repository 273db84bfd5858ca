/**
 * Typed command options: a command defined in TypeScript gives its handler
 * typed `options`.
 *
 * @module
 */

import type { CommandDefinition } from '../schemas/requests.js';

/** TypeScript type of each option type (Discord's numbering). */
export interface CommandOptionTypeMap {
  /** String. */
  3: string;
  /** Integer. */
  4: number;
  /** Boolean. */
  5: boolean;
  /** User id. */
  6: string;
  /** Channel id. */
  7: string;
  /** Role id. */
  8: string;
  /** Mentionable id. */
  9: string;
  /** Number. */
  10: number;
  /** Attachment id. */
  11: string;
}

/** A value an option can carry at run time. */
export type CommandOptionValue = string | number | boolean;

type OptionList<D> = D extends { readonly options?: infer O } ? (O extends readonly unknown[] ? O[number] : never) : never;
type ValueOf<O> = O extends { readonly type: infer T } ? (T extends keyof CommandOptionTypeMap ? CommandOptionTypeMap[T] : CommandOptionValue) : CommandOptionValue;
type NameOf<O> = O extends { readonly name: infer N extends string } ? Lowercase<N> : never;
type Simplify<T> = { [K in keyof T]: T[K] } & {};
/** An option that must be given. */
interface RequiredOption {
  /** Always `true`. */
  readonly required: true;
}

/** The `options` record a handler of command definition `D` receives: required options are present, others optional. */
export type CommandOptionValues<D> = [OptionList<D>] extends [never]
  ? Record<string, never>
  : Simplify<
      { [O in OptionList<D> as O extends RequiredOption ? NameOf<O> : never]: ValueOf<O> } & {
        [O in OptionList<D> as O extends RequiredOption ? never : NameOf<O>]?: ValueOf<O>;
      }
    >;

/** A command definition that remembers its literal type, so handlers get typed options. */
export type TypedCommandDefinition<D extends CommandDefinition = CommandDefinition> = D & {
  /** Carries the option types to handlers; never set at run time. */
  readonly __options?: CommandOptionValues<D>;
};

/**
 * Declares a slash command in TypeScript. Pass the result to
 * `commands.sync()` and to `gateway.onCommand()`, whose handler then gets
 * typed `options`.
 *
 * @example
 * ```ts
 * const quiz = defineCommand({
 *   name: 'quiz',
 *   description: 'Start a quiz',
 *   options: [{ type: 3, name: 'topic', description: 'Topic', required: true }, { type: 4, name: 'rounds', description: 'Rounds' }],
 * });
 * gateway.onCommand(quiz, (interaction) => interaction.reply(`${interaction.options.topic} x ${interaction.options.rounds ?? 3}`));
 * ```
 */
export function defineCommand<const D extends CommandDefinition>(definition: D): TypedCommandDefinition<D> {
  return definition;
}

/** One option as it arrives in an interaction. */
export interface ReceivedOption {
  /** Option name. */
  name: string;
  /** Option type. */
  type?: number;
  /** Value, for value options. */
  value?: unknown;
  /** Nested options, for sub-commands and groups. */
  options?: ReceivedOption[];
  /** Whether the user is typing in this option (autocomplete). */
  focused?: boolean;
}

/** The option types that nest options instead of carrying a value (Discord's numbering). */
const OptionType = { SubCommand: 1, SubCommandGroup: 2 } as const;

/** Flattens received options: values by name, the sub-command path, and the focused option. */
export function readOptions(options: unknown): { values: Record<string, CommandOptionValue>; subcommand: string[]; focused: { name: string; value: CommandOptionValue } | undefined } {
  const values: Record<string, CommandOptionValue> = {};
  const subcommand: string[] = [];
  let focused: { name: string; value: CommandOptionValue } | undefined;
  let level: unknown = options;
  for (let depth = 0; depth < 3 && Array.isArray(level); depth++) {
    const list = level as ReceivedOption[];
    const group = list.length === 1 && (list[0]?.type === OptionType.SubCommand || list[0]?.type === OptionType.SubCommandGroup) ? list[0] : undefined;
    if (group) {
      subcommand.push(group.name);
      level = group.options ?? [];
      continue;
    }
    for (const option of list) {
      if (typeof option?.name !== 'string') continue;
      const value = option.value;
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
        values[option.name] = value;
        if (option.focused) focused = { name: option.name, value };
      }
    }
    break;
  }
  return { values, subcommand, focused };
}
