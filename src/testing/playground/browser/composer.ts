/**
 * The composer: slash commands with a suggestion list (commands, their
 * options, and the bot's own autocomplete choices, asked for with a real
 * type-4 interaction), driven by the keyboard (arrows, Enter or Tab to
 * pick, Escape to close).
 *
 * @module
 */

import { claim } from './modal.js';
import { api, byId, channelName, commands, h, hint, messageOf, ui } from './dom.js';
import type { PictureCommand, PictureOption, Sent, Suggested } from './picture.js';

const OptionType = { Integer: 4, Boolean: 5, Number: 10 } as const;
const AUTOCOMPLETE_DELAY_MS = 150;
const BLUR_CLOSE_MS = 100;

/** One line of the suggestion list: what it shows and what picking it writes. */
interface Suggestion {
  label: string;
  detail: string;
  insert: string;
}

/** The option being typed: its name, and its value once `name:` is complete. */
interface LastToken {
  name: string;
  value: string | null;
}

/** "/quiz topic:space rounds:3" taken apart. */
interface Parsed {
  name: string;
  hasSpace: boolean;
  options: Record<string, string>;
  last: LastToken | null;
}

const composer: { items: Suggestion[]; active: number; seq: number; timer: ReturnType<typeof setTimeout> | undefined } = {
  items: [],
  active: -1,
  seq: 0,
  timer: undefined,
};
const input = () => byId('composer-input', HTMLInputElement);
const box = () => byId('suggestions');

/** Splits "/quiz topic:space rounds:3" into the command name, the options and the last, unfinished token. */
export function parse(text: string): Parsed | null {
  const match = /^\/(\S*)(?:\s+([\s\S]*))?$/.exec(text);
  if (!match) return null;
  const rest = match[2] ?? null;
  const options: Record<string, string> = {};
  let last: LastToken | null = null;
  if (rest !== null) {
    const parts = rest.split(/\s+(?=[\w-]+:)/);
    for (const part of parts) {
      const pair = /^([\w-]+):([\s\S]*)$/.exec(part);
      if (pair) options[(pair[1] ?? '').toLowerCase()] = (pair[2] ?? '').trim().replace(/^"|"$/g, '');
    }
    const tail = parts[parts.length - 1] ?? '';
    const pair = /^([\w-]+):([\s\S]*)$/.exec(tail);
    last = pair ? { name: (pair[1] ?? '').toLowerCase(), value: pair[2] ?? '' } : { name: tail.trim(), value: null };
    if (/\s$/.test(rest)) last = { name: '', value: null };
  }
  return { name: (match[1] ?? '').toLowerCase(), hasSpace: rest !== null, options, last };
}

function findCommand(name: string): PictureCommand | undefined {
  return ui.picture ? commands(ui.picture).find((c) => c.name === name) : undefined;
}

function typed(option: PictureOption | undefined, raw: string): string | number | boolean {
  if (option && (option.type === OptionType.Integer || option.type === OptionType.Number)) {
    const n = Number(raw);
    return Number.isFinite(n) ? n : raw;
  }
  if (option && option.type === OptionType.Boolean) return raw === 'true' || raw === 'yes';
  return raw;
}

function moveActive(delta: number): void {
  if (!composer.items.length) {
    input().removeAttribute('aria-activedescendant');
    return;
  }
  composer.active = (composer.active + delta + composer.items.length) % composer.items.length;
  for (const [index, li] of [...box().children].entries()) li.setAttribute('aria-selected', index === composer.active ? 'true' : 'false');
  input().setAttribute('aria-activedescendant', `suggestion-${composer.active}`);
  box().children[composer.active]?.scrollIntoView({ block: 'nearest' });
}

function showSuggestions(items: Suggestion[], label = 'Suggestions', autoSelect = true): void {
  composer.items = items;
  composer.active = items.length && autoSelect ? 0 : -1;
  box().replaceChildren(
    ...items.map((item, index) =>
      h(
        'li',
        {
          id: `suggestion-${index}`,
          role: 'option',
          'aria-selected': index === composer.active ? 'true' : 'false',
          onmousedown: (event) => {
            event.preventDefault();
            pick(index);
          },
        },
        h('strong', { text: item.label }),
        item.detail ? h('span', { class: 'muted', text: ` ${item.detail}` }) : null,
      ),
    ),
  );
  box().hidden = items.length === 0;
  box().setAttribute('aria-label', label);
  input().setAttribute('aria-expanded', items.length ? 'true' : 'false');
  if (composer.active >= 0) moveActive(0);
  else input().removeAttribute('aria-activedescendant');
}

const closeSuggestions = () => showSuggestions([]);

function pick(index: number): void {
  const item = composer.items[index];
  if (!item) return;
  input().value = item.insert;
  closeSuggestions();
  input().focus();
  update();
}

/** Replaces the last token of the input: the option being typed (from "name:"), or the unfinished word. */
function withLast(token: string, optionName?: string): string {
  const text = input().value;
  const at = optionName ? text.lastIndexOf(` ${optionName}:`) : -1;
  return (at >= 0 ? text.slice(0, at + 1) : text.slice(0, text.search(/\S*$/))) + token;
}

/** Where the person is: the channel and its community. */
function place() {
  return { userId: ui.userId, channelId: ui.channelId, guildId: ui.picture ? channelName(ui.picture, ui.channelId)?.guild.id : undefined };
}

async function askBot(command: PictureCommand, parsed: Parsed, option: PictureOption): Promise<void> {
  const seq = ++composer.seq;
  const options: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(parsed.options))
    options[name] = typed(
      command.options.find((o) => o.name === name),
      value,
    );
  options[option.name] = parsed.last?.value;
  hint('Asking the bot for choices…');
  try {
    const answer = await api<Suggested>('autocomplete', { name: command.name, options, focused: option.name, ...place() });
    if (seq !== composer.seq) return;
    const choices = answer.choices.map((c) => ({
      label: String(c.name),
      detail: String(c.value) !== String(c.name) ? String(c.value) : '',
      insert: withLast(`${option.name}:${String(c.value)} `, option.name),
    }));
    showSuggestions(choices, 'Choices from the bot');
    const count = answer.choices.length;
    hint(
      count ? `The bot suggests ${count} choice(s): arrows to move, Enter to pick.` : (answer.note ?? 'The bot has no choice for that.'),
      Boolean(answer.note),
    );
  } catch (error) {
    if (seq === composer.seq) hint(messageOf(error), true);
  }
}

function update(): void {
  clearTimeout(composer.timer);
  composer.seq++;
  const parsed = parse(input().value);
  const picture = ui.picture;
  if (!parsed || !picture) {
    closeSuggestions();
    return;
  }
  if (!parsed.hasSpace) {
    const list = commands(picture).filter((c) => c.name.startsWith(parsed.name));
    showSuggestions(
      list.map((c) => ({ label: `/${c.name}`, detail: c.description, insert: `/${c.name} ` })),
      'Commands',
    );
    if (!list.length) hint(commands(picture).length ? `No command starts with /${parsed.name}` : 'The bot has registered no command yet.', true);
    return;
  }
  const command = findCommand(parsed.name);
  if (!command) {
    closeSuggestions();
    hint(`Unknown command /${parsed.name}`, true);
    return;
  }
  const last = parsed.last;
  if (last && last.value === null) {
    const unused = command.options.filter((o) => !(o.name in parsed.options) && o.name.startsWith(last.name.toLowerCase()));
    const items = unused.map((o) => ({ label: `${o.name}:`, detail: (o.required ? 'required · ' : '') + o.description, insert: withLast(`${o.name}:`) }));
    showSuggestions(items, `Options of /${command.name}`, last.name !== '');
    hint(unused.length ? `Options of /${command.name}: arrow down to pick one, or press Enter to send.` : 'Press Enter to send.');
    return;
  }
  const option = command.options.find((o) => o.name === last?.name);
  const typing = last?.value ?? '';
  if (!option) {
    closeSuggestions();
    return;
  }
  if (option.choices?.length) {
    const list = option.choices.filter((c) => String(c.name).toLowerCase().startsWith(typing.toLowerCase()));
    showSuggestions(
      list.map((c) => ({ label: String(c.name), detail: '', insert: withLast(`${option.name}:${String(c.value)} `, option.name) })),
      'Choices',
    );
    return;
  }
  closeSuggestions();
  if (option.autocomplete) composer.timer = setTimeout(() => void askBot(command, parsed, option), AUTOCOMPLETE_DELAY_MS);
}

async function send(): Promise<void> {
  const parsed = parse(input().value.trim());
  if (!parsed) {
    hint('The emulator has no user messages: start with / to run a command.', true);
    return;
  }
  const command = findCommand(parsed.name);
  if (!command) {
    hint(`Unknown command /${parsed.name}`, true);
    return;
  }
  const options: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(parsed.options))
    if (value !== '')
      options[name] = typed(
        command.options.find((o) => o.name === name),
        value,
      );
  const missing = command.options.filter((o) => o.required && !(o.name in options)).map((o) => o.name);
  if (missing.length) {
    hint(`Missing required option: ${missing.join(', ')}`, true);
    return;
  }
  closeSuggestions();
  try {
    const answer = await api<Sent>('invoke', { name: command.name, options, ...place() });
    claim(answer.id);
    input().value = '';
    hint(answer.delivered ? `Sent /${command.name} to the bot.` : `Sent /${command.name}, but no bot is connected: nothing received it.`, !answer.delivered);
  } catch (error) {
    hint(messageOf(error), true);
  }
}

/** Wires the composer's input, keyboard and form. */
export function wireComposer(): void {
  const field = input();
  field.addEventListener('input', update);
  field.addEventListener('focus', () => {
    if (field.value.startsWith('/')) update();
  });
  field.addEventListener('blur', () =>
    setTimeout(() => {
      if (document.activeElement !== field) closeSuggestions();
    }, BLUR_CLOSE_MS),
  );
  field.addEventListener('keydown', (event) => {
    const open = !box().hidden && composer.items.length > 0;
    if (!open) return;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      moveActive(event.key === 'ArrowDown' ? 1 : -1);
    } else if ((event.key === 'Enter' || event.key === 'Tab') && composer.active >= 0) {
      event.preventDefault();
      pick(composer.active);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      closeSuggestions();
      hint('Suggestions closed. Enter sends.');
    }
  });
  byId('composer').addEventListener('submit', (event) => {
    event.preventDefault();
    void send();
  });
}
