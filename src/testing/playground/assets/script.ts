/**
 * The playground page's script (plain DOM, no framework), as text: the live
 * channel, the channel view with its messages and components, modals, the
 * side panel and the fault knobs. The composer is in `composer.ts`; both are
 * served as one module, `/_playground/app.js`.
 *
 * @module
 */

import { COMPOSER_SCRIPT } from './composer.js';

const CORE_SCRIPT = `
const $ = (id) => document.getElementById(id);
const Component = { Button: 2, Select: 3, TextInput: 4 };
const ButtonStyle = { Link: 5 };
const InteractionKind = { Command: 2, Component: 3 };
const ui = { picture: null, channelId: null, userId: null, mine: new Set(), modalsShown: new Set(), log: [] };

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else if (key === 'text') el.textContent = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) el.append(child instanceof Node ? child : String(child));
  return el;
}

async function api(action, body) {
  const response = await fetch('/_playground/api/' + action, { method: 'POST', headers: { 'content-type': 'application/json', 'x-playground': '1' }, body: JSON.stringify(body || {}) });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(answer.error || ('HTTP ' + response.status));
  return answer;
}

function hint(text, isError) {
  const el = $('composer-hint');
  el.textContent = text;
  el.classList.toggle('error', Boolean(isError));
}

const timeOf = (ms) => new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
const app = () => (ui.picture && ui.picture.applications.find((a) => a.id === ui.picture.seed.applicationId)) || (ui.picture && ui.picture.applications[0]);
function channelName(id) {
  for (const guild of ui.picture.guilds) for (const channel of guild.channels) if (channel.id === id) return { guild, channel };
  return null;
}
function commands() {
  const list = [];
  for (const a of ui.picture.applications) for (const c of a.commands) list.push(c);
  return list;
}

function renderNav() {
  const nav = $('nav');
  const focused = document.activeElement && nav.contains(document.activeElement) ? document.activeElement.dataset.id : null;
  nav.replaceChildren(...ui.picture.guilds.map((guild) => h('div', {}, h('h2', { text: guild.name }), h('ul', {}, guild.channels.map((channel) => h('li', {}, h('button', {
    type: 'button', 'data-id': channel.id, 'aria-current': channel.id === ui.channelId ? 'true' : 'false', text: '# ' + channel.name,
    onclick: () => { ui.channelId = channel.id; render(); },
  })))))));
  if (focused) { const again = nav.querySelector('[data-id="' + focused + '"]'); if (again) again.focus(); }
}

function renderUsers() {
  const select = $('user-select');
  if (select.options.length === ui.picture.users.length) return;
  select.replaceChildren(...ui.picture.users.map((u) => h('option', { value: u.id, text: u.username, selected: u.id === ui.userId })));
}

function componentRow(message, row) {
  return h('div', { class: 'row' }, (row.components || []).map((c) => {
    if (c.type === Component.Button) {
      const style = { 1: 'primary', 3: 'success', 4: 'danger' }[c.style] || '';
      if (c.style === ButtonStyle.Link && c.url) return h('a', { href: c.url, rel: 'noreferrer noopener', target: '_blank', text: c.label || c.url });
      return h('button', { type: 'button', class: style, disabled: c.disabled, text: c.label || c.custom_id, onclick: () => click(message, c.custom_id) });
    }
    if (c.type === Component.Select) {
      const label = c.placeholder || 'Choose';
      return h('label', {}, h('span', { class: 'sr', text: label }), h('select', { 'aria-label': label, onchange: (event) => { if (event.target.value) click(message, c.custom_id, [event.target.value]); } },
        h('option', { value: '', text: label }), (c.options || []).map((o) => h('option', { value: o.value, text: o.label }))));
    }
    return null;
  }));
}

async function click(message, customId, values) {
  try {
    const answer = await api('component', { messageId: message.id, customId, values, userId: ui.userId });
    claim(answer.id);
    hint(answer.delivered ? 'Sent ' + customId + ' to the bot' : 'No bot is connected: nothing received it', !answer.delivered);
  } catch (error) { hint(error.message, true); }
}

function messageItem(message) {
  const interaction = message.interactionId && ui.picture.interactions.find((i) => i.id === message.interactionId);
  const tag = message.author.kind === 'bot' ? h('span', { class: 'tag', text: 'BOT' }) : h('span', { class: 'tag hook', text: 'WEBHOOK' });
  return h('li', { class: 'msg', 'data-key': message.id },
    interaction ? h('div', { class: 'ctx', text: (interaction.user || 'someone') + (interaction.type === InteractionKind.Command ? ' used /' : interaction.type === InteractionKind.Component ? ' clicked ' : ' submitted ') + interaction.label }) : null,
    h('div', { class: 'meta' }, h('span', { class: 'author', text: message.author.name }), tag, h('time', { text: timeOf(message.createdAt) })),
    h('div', { class: 'content', text: message.content }),
    message.components && message.components.length ? h('div', { class: 'components' }, message.components.map((row) => componentRow(message, row))) : null);
}

function thinkingItem(interaction, botName) {
  return h('li', { class: 'msg thinking', 'data-key': 'thinking:' + interaction.id },
    h('div', { class: 'ctx', text: (interaction.user || 'someone') + ' used /' + interaction.label }),
    h('div', { class: 'meta' }, h('span', { class: 'author', text: botName }), h('span', { class: 'tag', text: 'BOT' })),
    h('div', { class: 'content', text: botName + ' is thinking…' }));
}

const rendered = new Map();
function renderMessages() {
  const list = $('message-list');
  const box = $('messages');
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  const a = app();
  const botName = a ? a.bot.username : 'bot';
  const items = (ui.picture.messages[ui.channelId] || []).map((m) => ({ at: m.createdAt, key: m.id, sig: JSON.stringify(m) + JSON.stringify(ui.picture.interactions.find((i) => i.id === m.interactionId) || ''), make: () => messageItem(m) }));
  for (const i of ui.picture.interactions) if (i.channelId === ui.channelId && i.status === 'thinking') items.push({ at: i.createdAt, key: 'thinking:' + i.id, sig: 'thinking', make: () => thinkingItem(i, botName) });
  items.sort((x, y) => x.at - y.at);
  const keep = new Set(items.map((item) => item.key + '|' + ui.channelId));
  for (const [key, entry] of rendered) if (!keep.has(key)) { entry.el.remove(); rendered.delete(key); }
  let index = 0;
  for (const item of items) {
    const key = item.key + '|' + ui.channelId;
    let entry = rendered.get(key);
    if (!entry || entry.sig !== item.sig) {
      const el = item.make();
      if (entry) entry.el.replaceWith(el);
      entry = { el, sig: item.sig };
      rendered.set(key, entry);
    }
    if (list.children[index] !== entry.el) list.insertBefore(entry.el, list.children[index] || null);
    index++;
  }
  if (items.length === 0 && !list.querySelector('.empty')) list.append(h('li', { class: 'msg empty muted', text: 'No messages yet. Run a command, or execute the channel webhook.' }));
  if (items.length > 0) for (const empty of list.querySelectorAll('.empty')) empty.remove();
  if (atBottom) box.scrollTop = box.scrollHeight;
}

function renderActivity() {
  const section = $('activity');
  const activity = ui.picture.activities[ui.channelId];
  section.hidden = !activity;
  if (!activity) return;
  const title = activity.title || activity.kind || 'Activity';
  const snap = activity.last_snapshot;
  const hadFocus = section.contains(document.activeElement);
  section.replaceChildren(h('strong', { text: title }),
    h('span', { text: activity.ended ? 'ended' : activity.paused ? 'paused' : 'playing' }),
    h('span', { text: 'position ' + (activity.position_ms / 1000).toFixed(1) + ' s' }),
    h('span', { text: 'state ' + JSON.stringify(activity.state) }),
    h('span', { class: 'muted', text: 'participants: ' + (activity.participants.join(', ') || 'none') }),
    h('span', { class: 'muted', text: snap ? 'latest snapshot ' + timeOf(Date.parse(snap.taken_at)) + ': ' + (snap.paused ? 'paused' : 'playing') + ' at ' + (snap.position_ms / 1000).toFixed(1) + ' s' : 'no snapshot yet' }),
    activity.ended ? null : h('button', { type: 'button', id: 'play-pause', text: activity.paused ? 'Play' : 'Pause',
      onclick: () => api('activity', { activityId: activity.id, paused: !activity.paused }).catch((e) => hint(e.message, true)) }));
  if (hadFocus && $('play-pause')) $('play-pause').focus();
}

function renderSide() {
  const p = ui.picture;
  const bot = $('bot-status');
  const on = p.bot.sessions > 0;
  bot.textContent = on ? 'Bot: connected' + (p.bot.sessions > 1 ? ' (' + p.bot.sessions + ' sessions)' : '') : 'Bot: disconnected';
  bot.className = 'pill ' + (on ? 'on' : 'off');
  $('commands').replaceChildren(...(commands().length ? commands().map((c) => h('li', {}, h('code', { text: '/' + c.name }), ' ', h('span', { class: 'muted', text: c.description }))) : [h('li', { class: 'muted', text: 'No command registered yet.' })]));
  const hooks = p.webhooks.map((w) => h('li', {}, h('strong', { text: w.name }), ' → #' + ((channelName(w.channelId) || { channel: { name: '?' } }).channel.name) + ' ', h('code', { text: '/webhooks/' + w.id + '/[redacted]' })));
  for (const a of p.applications) for (const w of a.webhooks) hooks.push(h('li', {}, h('span', { text: a.name + ': ' }), h('code', { text: w.url }), ' ' + w.events.join(', ')));
  $('webhooks').replaceChildren(...hooks);
  const deliveries = [];
  for (const a of p.applications) for (const d of a.deliveries) deliveries.push(h('li', { text: (d.event || d.type || 'delivery') + ' → ' + (d.status || d.response_status || '') + ' ' + (d.delivered_at || d.created_at || '') }));
  $('deliveries').replaceChildren(...(deliveries.length ? deliveries : [h('li', { class: 'muted', text: 'No deliveries yet.' })]));
  const f = p.faults;
  if (!$('faults').contains(document.activeElement)) {
    $('latency').value = String(f.latencyMs);
    $('error-rate').value = String(Math.round(f.errorRate * 100));
    $('global-limit').value = f.globalLimit ? String(f.globalLimit.limit) : '';
  }
  $('clock').textContent = 'Emulator clock: ' + new Date(p.now).toLocaleString();
}

function logItem(entry) {
  if (entry.kind === 'rest') {
    return h('li', { 'data-kind': 'rest' }, h('span', { class: 'k', text: 'REST ' }), entry.method + ' ' + entry.route + ' ',
      h('span', { class: entry.status >= 400 ? 'bad' : 'good', text: String(entry.status) }), ' ' + entry.ms + ' ms' + (entry.bucket ? ' bucket ' + entry.bucket : ''));
  }
  const arrow = { in: '→ bot to emulator', out: '← emulator to bot', open: 'connection opened', close: 'connection closed' }[entry.dir];
  const beat = entry.op === 1 || entry.op === 11;
  return h('li', { 'data-kind': beat ? 'heartbeat' : 'gateway' }, h('span', { class: 'k', text: 'GW ' }), arrow + ' ',
    entry.op !== null ? 'op ' + entry.op + ' ' : '', entry.t ? h('strong', { text: entry.t + ' ' }) : '', h('span', { class: 'muted', text: entry.text }));
}

function filterLog() {
  const show = { rest: $('show-rest').checked, gateway: $('show-gateway').checked, heartbeat: $('show-gateway').checked && $('show-heartbeats').checked };
  for (const li of $('log').children) li.hidden = !show[li.dataset.kind];
}

function appendLog(entries) {
  const log = $('log');
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 30;
  log.append(...entries.map(logItem));
  while (log.children.length > 300) log.firstElementChild.remove();
  filterLog();
  if (atBottom) log.scrollTop = log.scrollHeight;
}

function openModal(interaction) {
  const modal = interaction.modal;
  const dialog = $('modal');
  $('modal-title').textContent = modal.title || 'Form';
  const fields = [];
  for (const row of modal.components || []) for (const c of row.components || []) if (c.type === Component.TextInput) fields.push(c);
  $('modal-fields').replaceChildren(...fields.map((c) => h('label', {}, c.label || c.custom_id,
    c.style === 2 ? h('textarea', { name: c.custom_id, rows: 4, required: c.required !== false, placeholder: c.placeholder, minlength: c.min_length, maxlength: c.max_length, text: c.value || '' })
      : h('input', { name: c.custom_id, required: c.required !== false, placeholder: c.placeholder, minlength: c.min_length, maxlength: c.max_length, value: c.value || '' }))));
  dialog.dataset.interaction = interaction.id;
  dialog.dataset.returnTo = document.activeElement && document.activeElement.id ? document.activeElement.id : 'composer-input';
  dialog.showModal();
  const first = dialog.querySelector('input,textarea');
  if (first) first.focus();
}

function closeModal() {
  const dialog = $('modal');
  if (dialog.open) dialog.close();
  const back = $(dialog.dataset.returnTo || 'composer-input');
  if (back) back.focus();
}

$('modal').addEventListener('keydown', (event) => {
  if (event.key !== 'Tab') return;
  const focusable = [...$('modal').querySelectorAll('input,textarea,button')].filter((el) => !el.disabled);
  const first = focusable[0], last = focusable[focusable.length - 1];
  if (event.shiftKey && document.activeElement === first) { event.preventDefault(); last.focus(); }
  else if (!event.shiftKey && document.activeElement === last) { event.preventDefault(); first.focus(); }
});
$('modal').addEventListener('close', () => { const back = $($('modal').dataset.returnTo || 'composer-input'); if (back) back.focus(); });
$('modal-cancel').addEventListener('click', closeModal);
$('modal-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const fields = {};
  for (const el of $('modal-fields').querySelectorAll('input,textarea')) fields[el.name] = el.value;
  const interactionId = $('modal').dataset.interaction;
  closeModal();
  try {
    const answer = await api('modal', { interactionId, fields, userId: ui.userId });
    claim(answer.id);
    hint('Form sent to the bot');
  } catch (error) { hint(error.message, true); }
});

/** Marks an interaction as this page's own; a modal the bot opened for it before the page heard the answer opens now. */
function claim(id) {
  ui.mine.add(id);
  if (ui.picture) checkModals();
}

function checkModals() {
  for (const i of ui.picture.interactions) {
    if (i.status === 'modal' && i.modal && ui.mine.has(i.id) && !ui.modalsShown.has(i.id)) {
      ui.modalsShown.add(i.id);
      if (!$('modal').open) openModal(i);
    }
  }
}

function render() {
  if (!ui.picture) return;
  if (!ui.channelId || !channelName(ui.channelId)) ui.channelId = ui.picture.seed.channelId;
  if (!ui.userId) ui.userId = ui.picture.seed.userId;
  const where = channelName(ui.channelId);
  $('channel-title').textContent = '# ' + where.channel.name;
  $('channel-sub').textContent = where.guild.name;
  renderUsers();
  renderNav();
  renderMessages();
  renderActivity();
  renderSide();
  checkModals();
}

$('user-select').addEventListener('change', (event) => { ui.userId = event.target.value; });
for (const id of ['show-rest', 'show-gateway', 'show-heartbeats']) $(id).addEventListener('change', filterLog);
$('faults').addEventListener('submit', async (event) => {
  event.preventDefault();
  const limit = $('global-limit').value.trim();
  try {
    await api('faults', { latencyMs: Number($('latency').value || 0), errorRate: Number($('error-rate').value || 0) / 100, globalLimit: limit === '' ? null : Number(limit) });
    hint('Faults applied');
  } catch (error) { hint(error.message, true); }
});
$('next-fault').addEventListener('submit', async (event) => {
  event.preventDefault();
  const status = $('fault-status').value;
  const operation = $('fault-operation').value.trim() || '*';
  const times = Number($('fault-times').value || 1);
  try {
    await api('fault', status === 'reset' ? { operation, times, reset: true } : { operation, times, status: Number(status) });
    hint('The next ' + times + ' call(s) of ' + (operation === '*' ? 'any operation' : operation) + ' will answer ' + status);
  } catch (error) { hint(error.message, true); }
});
$('drop').addEventListener('click', () => api('drop').then(() => hint('Gateway connections dropped: the bot should reconnect'), (e) => hint(e.message, true)));
$('advance').addEventListener('click', () => api('advance', { ms: 900000 }).then(() => hint('Clock advanced by 15 minutes'), (e) => hint(e.message, true)));

const events = new EventSource('/_playground/events');
events.addEventListener('state', (event) => { ui.picture = JSON.parse(event.data); render(); document.body.dataset.ready = 'true'; });
events.addEventListener('backlog', (event) => { $('log').replaceChildren(); appendLog(JSON.parse(event.data)); });
events.addEventListener('log', (event) => appendLog(JSON.parse(event.data)));
events.addEventListener('error', () => { $('bot-status').textContent = 'Playground: reconnecting to the emulator…'; $('bot-status').className = 'pill off'; });
`;

/** The page's script: one ES module. */
export const PAGE_SCRIPT = `${CORE_SCRIPT}\n${COMPOSER_SCRIPT}`;
