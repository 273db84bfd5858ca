/**
 * Typed command options: a command defined in TypeScript gives its handler
 * typed `options`.
 *
 * @module
 */

import { ApplicationCommandOptionType } from '../core/constants.js';
import type { CommandDefinition } from '../schemas/request-types.js';

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
type ValueOf<O> = O extends { readonly type: infer T }
  ? T extends keyof CommandOptionTypeMap
    ? CommandOptionTypeMap[T]
    : CommandOptionValue
  : CommandOptionValue;
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

/**
 * `D` with every field that `Shape` does not have turned into `never`, at
 * every depth: a generic parameter escapes TypeScript's excess-property
 * check, so this gives a misspelled field its compile error back.
 */
export type Exactly<D, Shape> = D extends readonly (infer E)[]
  ? Shape extends readonly (infer S)[]
    ? readonly Exactly<E, S>[]
    : D
  : D extends object
    ? { [K in keyof D]: K extends keyof Shape ? Exactly<D[K], NonNullable<Shape[K]>> : never }
    : D;

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
export function defineCommand<const D extends CommandDefinition>(definition: D & Exactly<D, CommandDefinition>): TypedCommandDefinition<D> {
  return definition;
}

/** One option as it arrives in an interaction. */
interface ReceivedOption {
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

/** The sub-command path of options that name none (most commands): one frozen array, not an empty one per interaction. */
const NO_SUBCOMMAND: readonly string[] = Object.freeze([]);

/** Flattens received options: values by name, the sub-command path (frozen when empty), and the focused option. */
export function readOptions(options: unknown): {
  values: Record<string, CommandOptionValue>;
  subcommand: readonly string[];
  focused: { name: string; value: CommandOptionValue } | undefined;
} {
  const values: Record<string, CommandOptionValue> = {};
  let subcommand: string[] | undefined;
  let focused: { name: string; value: CommandOptionValue } | undefined;
  let level: unknown = options;
  for (let depth = 0; depth < 3 && Array.isArray(level); depth++) {
    const list = level as ReceivedOption[];
    const group = list.length === 1 && (list[0]?.type === OptionType.SubCommand || list[0]?.type === OptionType.SubCommandGroup) ? list[0] : undefined;
    if (group) {
      (subcommand ??= []).push(group.name);
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
  return { values, subcommand: subcommand ?? NO_SUBCOMMAND, focused };
}

/** One problem of received options against a command's definition: the option's path (`sides`, `admin.ban.reason`) and what is wrong. */
export interface OptionProblem {
  /** The option, with its sub-command path. */
  path: string;
  /** What is wrong, e.g. `must be a whole number (got "abc")`. */
  message: string;
}

/** A defined option as the check reads it (Discord's fields). */
interface DefinedOption {
  type?: unknown;
  name?: unknown;
  required?: unknown;
  choices?: unknown;
  min_value?: unknown;
  max_value?: unknown;
  min_length?: unknown;
  max_length?: unknown;
  options?: unknown;
}

const ID = /^\d{1,20}$/;
const length = (text: string) => [...text].length;
const shown = (value: unknown) => (typeof value === 'string' ? JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value) : String(value));

/** Why `value` does not fit `option`, or `undefined`. */
function valueProblem(option: DefinedOption, value: unknown): string | undefined {
  const type = option.type;
  const T = ApplicationCommandOptionType;
  if (type === T.String && typeof value !== 'string') return `must be a string (got ${shown(value)})`;
  if (type === T.Integer && !(typeof value === 'number' && Number.isSafeInteger(value))) return `must be a whole number (got ${shown(value)})`;
  if (type === T.Number && !(typeof value === 'number' && Number.isFinite(value))) return `must be a number (got ${shown(value)})`;
  if (type === T.Boolean && typeof value !== 'boolean') return `must be true or false (got ${shown(value)})`;
  if (
    (type === T.User || type === T.Channel || type === T.Role || type === T.Mentionable || type === T.Attachment) &&
    !(typeof value === 'string' && ID.test(value))
  )
    return `must be an id (got ${shown(value)})`;
  if (Array.isArray(option.choices) && option.choices.length > 0 && !option.choices.some((choice) => (choice as { value?: unknown } | null)?.value === value)) {
    return `must be one of its choices (got ${shown(value)})`;
  }
  if (typeof value === 'number') {
    if (typeof option.min_value === 'number' && value < option.min_value) return `must be at least ${option.min_value} (got ${value})`;
    if (typeof option.max_value === 'number' && value > option.max_value) return `must be at most ${option.max_value} (got ${value})`;
  }
  if (typeof value === 'string' && type === T.String) {
    if (typeof option.min_length === 'number' && length(value) < option.min_length)
      return `must be at least ${option.min_length} characters (got ${length(value)})`;
    if (typeof option.max_length === 'number' && length(value) > option.max_length)
      return `must be at most ${option.max_length} characters (got ${length(value)})`;
  }
  return undefined;
}

/**
 * Checks received options (the interaction's `data.options`) against the
 * command's registered definition: each value's type, required options,
 * `choices`, `min_value`/`max_value` and `min_length`/`max_length`, and no
 * option the definition does not have, through sub-commands and groups.
 * Returns every problem, naming the option; none when they fit. `partial`
 * (autocomplete: the user is still typing) skips required and range checks
 * of the focused option.
 */
export function checkOptions(defined: unknown, received: unknown, prefix = ''): OptionProblem[] {
  const definitions = (Array.isArray(defined) ? defined : []) as DefinedOption[];
  const list = (Array.isArray(received) ? received : []) as ReceivedOption[];
  const problems: OptionProblem[] = [];
  const byName = new Map(definitions.filter((option) => typeof option?.name === 'string').map((option) => [String(option.name).toLowerCase(), option]));
  for (const option of list) {
    const name = typeof option?.name === 'string' ? option.name : '';
    const path = `${prefix}${name}`;
    const definition = byName.get(name.toLowerCase());
    if (definition === undefined) {
      problems.push({ path, message: 'is not an option of this command' });
      continue;
    }
    if (definition.type === OptionType.SubCommand || definition.type === OptionType.SubCommandGroup) {
      problems.push(...checkOptions(definition.options, option.options, `${path}.`));
      continue;
    }
    if (option.focused === true) continue;
    const problem = valueProblem(definition, option.value);
    if (problem !== undefined) problems.push({ path, message: problem });
  }
  const given = new Set(list.map((option) => (typeof option?.name === 'string' ? option.name.toLowerCase() : '')));
  const inSubcommand = list.some(
    (option) =>
      byName.get(String(option?.name ?? '').toLowerCase())?.type === OptionType.SubCommand ||
      byName.get(String(option?.name ?? '').toLowerCase())?.type === OptionType.SubCommandGroup,
  );
  if (!inSubcommand && !list.some((option) => option?.focused === true)) {
    for (const [name, definition] of byName) {
      if (definition.required === true && definition.type !== OptionType.SubCommand && definition.type !== OptionType.SubCommandGroup && !given.has(name))
        problems.push({ path: `${prefix}${name}`, message: 'is required' });
    }
  }
  return problems;
}
