/**
 * The playground composer's script, as text: slash commands with a
 * suggestion list (commands, their options, and the bot's own autocomplete
 * choices, asked for with a real type-4 interaction), driven by the keyboard
 * (arrows, Enter or Tab to pick, Escape to close). Runs after `script.ts`'s
 * part, in the same module.
 *
 * @module
 */

/** The composer's part of `/_playground/app.js`. */
export const COMPOSER_SCRIPT = String.raw`
const input = $('composer-input');
const box = $('suggestions');
const composer = { items: [], active: -1, seq: 0, timer: null };
const OptionType = { Integer: 4, Boolean: 5, Number: 10 };

/** Splits "/quiz topic:space rounds:3" into the command name, the options and the last, unfinished token. */
function parse(text) {
  const match = /^\/(\S*)(?:\s+([\s\S]*))?$/.exec(text);
  if (!match) return null;
  const rest = match[2] === undefined ? null : match[2];
  const options = {};
  let last = null;
  if (rest !== null) {
    const parts = rest.split(/\s+(?=[\w-]+:)/);
    for (const part of parts) {
      const pair = /^([\w-]+):([\s\S]*)$/.exec(part);
      if (pair) options[pair[1].toLowerCase()] = pair[2].trim().replace(/^"|"$/g, '');
    }
    const tail = parts[parts.length - 1];
    const pair = /^([\w-]+):([\s\S]*)$/.exec(tail);
    last = pair ? { name: pair[1].toLowerCase(), value: pair[2], complete: false } : { name: tail.trim(), value: null };
    if (/\s$/.test(rest)) last = { name: '', value: null };
  }
  return { name: match[1].toLowerCase(), hasSpace: rest !== null, options, last };
}

function findCommand(name) { return commands().find((c) => c.name === name); }

function typed(option, raw) {
  if (option && (option.type === OptionType.Integer || option.type === OptionType.Number)) { const n = Number(raw); return Number.isFinite(n) ? n : raw; }
  if (option && option.type === OptionType.Boolean) return raw === 'true' || raw === 'yes';
  return raw;
}

function showSuggestions(items, label, autoSelect) {
  composer.items = items;
  composer.active = items.length && autoSelect !== false ? 0 : -1;
  box.replaceChildren(...items.map((item, index) => h('li', { id: 'suggestion-' + index, role: 'option', 'aria-selected': index === composer.active ? 'true' : 'false',
    onmousedown: (event) => { event.preventDefault(); pick(index); } }, h('strong', { text: item.label }), item.detail ? h('span', { class: 'muted', text: ' ' + item.detail }) : null)));
  box.hidden = items.length === 0;
  box.setAttribute('aria-label', label || 'Suggestions');
  input.setAttribute('aria-expanded', items.length ? 'true' : 'false');
  if (composer.active >= 0) moveActive(0);
  else input.removeAttribute('aria-activedescendant');
}

function closeSuggestions() { showSuggestions([]); }

function moveActive(delta) {
  if (!composer.items.length) { input.removeAttribute('aria-activedescendant'); return; }
  composer.active = (composer.active + delta + composer.items.length) % composer.items.length;
  [...box.children].forEach((li, index) => li.setAttribute('aria-selected', index === composer.active ? 'true' : 'false'));
  input.setAttribute('aria-activedescendant', 'suggestion-' + composer.active);
  const li = box.children[composer.active];
  if (li) li.scrollIntoView({ block: 'nearest' });
}

function pick(index) {
  const item = composer.items[index];
  if (!item) return;
  input.value = item.insert;
  closeSuggestions();
  input.focus();
  update();
}

/** Replaces the last token of the input: the option being typed (from "name:"), or the unfinished word. */
function withLast(token, optionName) {
  const text = input.value;
  const at = optionName ? text.lastIndexOf(' ' + optionName + ':') : -1;
  return (at >= 0 ? text.slice(0, at + 1) : text.slice(0, text.search(/\S*$/))) + token;
}

async function askBot(command, parsed, option) {
  const seq = ++composer.seq;
  const options = {};
  for (const [name, value] of Object.entries(parsed.options)) options[name] = typed(command.options.find((o) => o.name === name), value);
  options[option.name] = parsed.last.value;
  hint('Asking the bot for choices…');
  try {
    const answer = await api('autocomplete', { name: command.name, options, focused: option.name, userId: ui.userId, channelId: ui.channelId, guildId: channelName(ui.channelId).guild.id });
    if (seq !== composer.seq) return;
    showSuggestions(answer.choices.map((c) => ({ label: String(c.name), detail: String(c.value) !== String(c.name) ? String(c.value) : '', insert: withLast(option.name + ':' + String(c.value) + ' ', option.name) })), 'Choices from the bot');
    hint(answer.choices.length ? 'The bot suggests ' + answer.choices.length + ' choice(s): arrows to move, Enter to pick.' : (answer.note || 'The bot has no choice for that.'), Boolean(answer.note));
  } catch (error) { if (seq === composer.seq) hint(error.message, true); }
}

function update() {
  clearTimeout(composer.timer);
  composer.seq++;
  const parsed = parse(input.value);
  if (!parsed || !ui.picture) { closeSuggestions(); return; }
  if (!parsed.hasSpace) {
    const list = commands().filter((c) => c.name.startsWith(parsed.name));
    showSuggestions(list.map((c) => ({ label: '/' + c.name, detail: c.description, insert: '/' + c.name + ' ' })), 'Commands');
    if (!list.length) hint(commands().length ? 'No command starts with /' + parsed.name : 'The bot has registered no command yet.', true);
    return;
  }
  const command = findCommand(parsed.name);
  if (!command) { closeSuggestions(); hint('Unknown command /' + parsed.name, true); return; }
  const last = parsed.last;
  if (last && last.value === null) {
    const unused = command.options.filter((o) => !(o.name in parsed.options) && o.name.startsWith(last.name.toLowerCase()));
    showSuggestions(unused.map((o) => ({ label: o.name + ':', detail: (o.required ? 'required · ' : '') + o.description, insert: withLast(o.name + ':') })), 'Options of /' + command.name, last.name !== '');
    hint(unused.length ? 'Options of /' + command.name + ': arrow down to pick one, or press Enter to send.' : 'Press Enter to send.');
    return;
  }
  const option = command.options.find((o) => o.name === last.name);
  if (!option) { closeSuggestions(); return; }
  if (Array.isArray(option.choices) && option.choices.length) {
    const list = option.choices.filter((c) => String(c.name).toLowerCase().startsWith(last.value.toLowerCase()));
    showSuggestions(list.map((c) => ({ label: String(c.name), detail: '', insert: withLast(option.name + ':' + String(c.value) + ' ', option.name) })), 'Choices');
    return;
  }
  if (option.autocomplete) { closeSuggestions(); composer.timer = setTimeout(() => askBot(command, parsed, option), 150); return; }
  closeSuggestions();
}

async function send() {
  const parsed = parse(input.value.trim());
  if (!parsed) { hint('The emulator has no user messages: start with / to run a command.', true); return; }
  const command = findCommand(parsed.name);
  if (!command) { hint('Unknown command /' + parsed.name, true); return; }
  const options = {};
  for (const [name, value] of Object.entries(parsed.options)) if (value !== '') options[name] = typed(command.options.find((o) => o.name === name), value);
  const missing = command.options.filter((o) => o.required && !(o.name in options)).map((o) => o.name);
  if (missing.length) { hint('Missing required option: ' + missing.join(', '), true); return; }
  closeSuggestions();
  try {
    const answer = await api('invoke', { name: command.name, options, userId: ui.userId, channelId: ui.channelId, guildId: channelName(ui.channelId).guild.id });
    claim(answer.id);
    input.value = '';
    hint(answer.delivered ? 'Sent /' + command.name + ' to the bot.' : 'Sent /' + command.name + ', but no bot is connected: nothing received it.', !answer.delivered);
  } catch (error) { hint(error.message, true); }
}

input.addEventListener('input', update);
input.addEventListener('focus', () => { if (input.value.startsWith('/')) update(); });
input.addEventListener('blur', () => setTimeout(() => { if (document.activeElement !== input) closeSuggestions(); }, 100));
input.addEventListener('keydown', (event) => {
  const open = !box.hidden && composer.items.length > 0;
  if (event.key === 'ArrowDown' && open) { event.preventDefault(); moveActive(1); }
  else if (event.key === 'ArrowUp' && open) { event.preventDefault(); moveActive(-1); }
  else if ((event.key === 'Enter' || event.key === 'Tab') && open && composer.active >= 0) { event.preventDefault(); pick(composer.active); }
  else if (event.key === 'Escape' && open) { event.preventDefault(); closeSuggestions(); hint('Suggestions closed. Enter sends.'); }
});
$('composer').addEventListener('submit', (event) => { event.preventDefault(); send(); });
`;
