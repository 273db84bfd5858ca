/**
 * What the page reads of the emulator's state picture (`event: state` on
 * `/_playground/events`) and of the playground's API answers. The server
 * sends more; the page names only what it shows.
 *
 * @module
 */

export type { LogEntry } from '../log-entry.js';

/** A component inside a message or a modal row. */
export interface PictureComponent {
  /** 1 row, 2 button, 3 select, 4 text input. */
  type: number;
  /** Button or text-input style. */
  style?: number;
  /** The id sent back when used. */
  custom_id?: string;
  /** A button's or text input's label. */
  label?: string;
  /** A link button's address. */
  url?: string;
  /** Whether a button is disabled. */
  disabled?: boolean;
  /** A select's or text input's placeholder. */
  placeholder?: string;
  /** A select's options. */
  options?: { label: string; value: string }[];
  /** A text input's bounds, prefill and whether it is required. */
  min_length?: number;
  /** See `min_length`. */
  max_length?: number;
  /** See `min_length`. */
  value?: string;
  /** See `min_length`. */
  required?: boolean;
}

/** A row of components. */
export interface PictureRow {
  /** The row's components. */
  components?: PictureComponent[];
}

/** A message in a channel. */
export interface PictureMessage {
  /** The message id. */
  id: string;
  /** Its text. */
  content: string;
  /** Who posted it. */
  author: { kind: 'bot' | 'webhook'; name: string };
  /** Epoch milliseconds. */
  createdAt: number;
  /** The interaction it answers, if any. */
  interactionId?: string;
  /** Its component rows. */
  components?: PictureRow[];
  /** For an ephemeral answer: the one user who sees it. */
  visibleTo?: string;
}

/** An interaction as the picture shows it. */
export interface PictureInteraction {
  /** Its id. */
  id: string;
  /** 2 command, 3 component, 5 modal submit. */
  type: number;
  /** The command name or custom id. */
  label: string;
  /** Who caused it. */
  user: string | null;
  /** Where. */
  channelId: string;
  /** Epoch milliseconds. */
  createdAt: number;
  /** What the bot did with it so far. */
  status: 'pending' | 'thinking' | 'modal' | 'answered';
  /** The modal the bot opened, when it did. */
  modal?: { title?: string; components?: PictureRow[] };
}

/** A command option. */
export interface PictureOption {
  /** Its name. */
  name: string;
  /** Its description. */
  description: string;
  /** Its type (4 integer, 5 boolean, 10 number, ...). */
  type: number;
  /** Whether it must be given. */
  required?: boolean;
  /** Whether the bot suggests its values. */
  autocomplete?: boolean;
  /** Fixed choices. */
  choices?: { name: string | number; value: string | number }[];
}

/** A registered command. */
export interface PictureCommand {
  /** Its name. */
  name: string;
  /** Its description. */
  description: string;
  /** Its options. */
  options: PictureOption[];
}

/** An application. */
export interface PictureApplication {
  /** Its id. */
  id: string;
  /** Its name. */
  name: string;
  /** Its bot user. */
  bot: { id: string; username: string };
  /** Its commands, global and per community. */
  commands: PictureCommand[];
  /** Its outgoing webhooks. */
  webhooks: { url: string; events: string[] }[];
  /** Its recent deliveries. */
  deliveries: { event?: string; type?: string; status?: number | string; response_status?: number; delivered_at?: string; created_at?: string }[];
}

/** A channel's activity. */
export interface PictureActivity {
  /** Its id. */
  id: string;
  /** Its title or kind. */
  title?: string;
  /** See `title`. */
  kind?: string;
  /** Whether it is paused or ended. */
  paused: boolean;
  /** See `paused`. */
  ended: boolean;
  /** The playback position. */
  position_ms: number;
  /** Its state. */
  state: unknown;
  /** Participants' names. */
  participants: string[];
  /** The latest snapshot. */
  last_snapshot: { taken_at: string; paused: boolean; position_ms: number } | null;
}

/** The state picture. */
export interface Picture {
  /** The emulator clock. */
  now: number;
  /** Users a person can act as. */
  users: { id: string; username: string }[];
  /** Communities and their channels. */
  guilds: PictureGuild[];
  /** Recent messages by channel id. */
  messages: Record<string, PictureMessage[] | undefined>;
  /** Recent interactions. */
  interactions: PictureInteraction[];
  /** Applications. */
  applications: PictureApplication[];
  /** Activities by channel id. */
  activities: Record<string, PictureActivity | undefined>;
  /** Community webhooks. */
  webhooks: { id: string; name: string; channelId: string }[];
  /** How many bot sessions are connected. */
  bot: { sessions: number };
  /** The fault knobs. */
  faults: { latencyMs: number; errorRate: number; globalLimit: { limit: number } | null };
  /** The seed's ids. */
  seed: { channelId: string; userId: string; applicationId: string };
}

/** A community. */
export interface PictureGuild {
  /** Its id. */
  id: string;
  /** Its name. */
  name: string;
  /** Its text channels. */
  channels: { id: string; name: string }[];
}

/** The API's answer to an invocation, a click or a modal. */
export interface Sent {
  /** The interaction's id. */
  id: string;
  /** Whether a bot received it. */
  delivered: boolean;
}

/** The API's answer to an autocomplete. */
export interface Suggested {
  /** The bot's choices. */
  choices: { name: string | number; value: string | number }[];
  /** Why there is none, when there is none. */
  note?: string;
}
