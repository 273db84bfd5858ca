/**
 * Message components and modal inputs, typed as Discord shapes them: action
 * rows holding buttons or a select menu, and text inputs in modal forms. A
 * misspelled field fails to compile; the limits (how many, how long) are
 * checked at run time before sending (`schemas/components.ts`).
 *
 * @module
 */

/** Button styles (Discord's numbering). */
export const ButtonStyle = {
  /** Blurple: the main action. */
  Primary: 1,
  /** Grey: a secondary action. */
  Secondary: 2,
  /** Green: a successful or positive action. */
  Success: 3,
  /** Red: a destructive action. */
  Danger: 4,
  /** A link to a URL: has `url`, no `custom_id`, and sends no interaction. */
  Link: 5,
} as const;

/** One of the {@link ButtonStyle} values. */
export type ButtonStyle = (typeof ButtonStyle)[keyof typeof ButtonStyle];

/** Text input styles (Discord's numbering). */
export const TextInputStyle = {
  /** One line. */
  Short: 1,
  /** Several lines. */
  Paragraph: 2,
} as const;

/** One of the {@link TextInputStyle} values. */
export type TextInputStyle = (typeof TextInputStyle)[keyof typeof TextInputStyle];

/** An emoji shown on a button or a select option. */
export interface ComponentEmoji {
  /** A custom emoji's id. @default undefined */
  id?: string | undefined;
  /** A custom emoji's name, or the Unicode emoji itself. @default undefined */
  name?: string | undefined;
  /** Whether a custom emoji is animated. @default false */
  animated?: boolean | undefined;
}

interface ButtonFields {
  /** `ComponentType.Button`. */
  type: 2;
  /** The text on the button, at most 80 characters. @default undefined (an emoji only) */
  label?: string | undefined;
  /** An emoji before the label. @default undefined */
  emoji?: ComponentEmoji | undefined;
  /** Whether it is shown disabled. @default false */
  disabled?: boolean | undefined;
}

/** A button that sends an interaction with its `custom_id` when clicked. */
export interface InteractiveButton extends ButtonFields {
  /** Primary, Secondary, Success or Danger. */
  style: 1 | 2 | 3 | 4;
  /** Identifies the button in the interaction, 1 to 100 characters. */
  custom_id: string;
}

/** A button that opens a URL and sends no interaction. */
export interface LinkButton extends ButtonFields {
  /** `ButtonStyle.Link`. */
  style: 5;
  /** The URL it opens, at most 512 characters. */
  url: string;
}

/** A button (Discord's shape). */
export type Button = InteractiveButton | LinkButton;

/** One choice of a select menu. */
export interface SelectOption {
  /** What the user sees, 1 to 100 characters. */
  label: string;
  /** What the interaction carries, 1 to 100 characters. */
  value: string;
  /** A line under the label, at most 100 characters. @default undefined */
  description?: string | undefined;
  /** An emoji before the label. @default undefined */
  emoji?: ComponentEmoji | undefined;
  /** Whether it is selected at first. @default false */
  default?: boolean | undefined;
}

/** A select menu of strings (Discord's shape). */
export interface StringSelect {
  /** `ComponentType.StringSelect`. */
  type: 3;
  /** Identifies the menu in the interaction, 1 to 100 characters. */
  custom_id: string;
  /** The choices, 1 to 25. */
  options: readonly SelectOption[];
  /** Shown when nothing is selected, at most 150 characters. @default undefined */
  placeholder?: string | undefined;
  /** The fewest choices a user must pick, 0 to 25. @default 1 */
  min_values?: number | undefined;
  /** The most choices a user may pick, 1 to 25. @default 1 */
  max_values?: number | undefined;
  /** Whether it is shown disabled. @default false */
  disabled?: boolean | undefined;
}

/** A text input of a modal form (Discord's shape). */
export interface TextInput {
  /** `ComponentType.TextInput`. */
  type: 4;
  /** Identifies the input in the submitted form, 1 to 100 characters. */
  custom_id: string;
  /** One line or several. */
  style: TextInputStyle;
  /** The label above the input, 1 to 45 characters. */
  label: string;
  /** The shortest answer accepted, 0 to 4000. @default undefined (no minimum) */
  min_length?: number | undefined;
  /** The longest answer accepted, 1 to 4000. @default undefined (4000) */
  max_length?: number | undefined;
  /** Whether it must be filled in. @default true */
  required?: boolean | undefined;
  /** The text it starts with, at most 4000 characters. @default undefined */
  value?: string | undefined;
  /** Shown while it is empty, at most 100 characters. @default undefined */
  placeholder?: string | undefined;
}

/** A row of a message: up to 5 buttons, or one select menu. */
export interface MessageActionRow {
  /** `ComponentType.ActionRow`. */
  type: 1;
  /** Up to 5 buttons, or one select menu. */
  components: readonly Button[] | readonly [StringSelect];
}

/** A row of a modal form: one text input. */
export interface ModalActionRow {
  /** `ComponentType.ActionRow`. */
  type: 1;
  /** One text input. */
  components: readonly [TextInput];
}
