/**
 * The channel view and the side panel: communities and channels, the
 * message list (updated in place, keyed by message), components, the
 * channel's activity, the bot's status, commands, webhooks, deliveries and
 * the fault knobs.
 *
 * @module
 */

import { claim } from './modal.js';
import { api, app, byId, channelName, commands, h, hint, maybeById, messageOf, timeOf, ui } from './dom.js';
import type { Picture, PictureInteraction, PictureMessage, PictureRow, Sent } from './picture.js';

const Component = { Button: 2, Select: 3 } as const;
const InteractionKind = { Command: 2, Component: 3 } as const;
const LINK = 5;
const BUTTON_CLASS: Record<number, string> = { 1: 'primary', 3: 'success', 4: 'danger' };

/** The communities and their channels; choosing one calls `select`. */
export function renderNav(picture: Picture, select: (channelId: string) => void): void {
  const nav = byId('nav');
  const active = document.activeElement;
  const focused = active instanceof HTMLElement && nav.contains(active) ? active.dataset['id'] : undefined;
  nav.replaceChildren(
    ...picture.guilds.map((guild) =>
      h(
        'div',
        {},
        h('h2', { text: guild.name }),
        h(
          'ul',
          {},
          guild.channels.map((channel) =>
            h(
              'li',
              {},
              h('button', {
                type: 'button',
                'data-id': channel.id,
                'aria-current': channel.id === ui.channelId ? 'true' : 'false',
                text: `# ${channel.name}`,
                onclick: () => select(channel.id),
              }),
            ),
          ),
        ),
      ),
    ),
  );
  if (focused) nav.querySelector<HTMLElement>(`[data-id="${focused}"]`)?.focus();
}

/** The people one can act as. */
export function renderUsers(picture: Picture): void {
  const select = byId('user-select', HTMLSelectElement);
  if (select.options.length === picture.users.length) return;
  select.replaceChildren(...picture.users.map((u) => h('option', { value: u.id, text: u.username, selected: u.id === ui.userId })));
}

async function click(message: PictureMessage, customId: string | undefined, values?: string[]): Promise<void> {
  try {
    const answer = await api<Sent>('component', { messageId: message.id, customId, values, userId: ui.userId });
    claim(answer.id);
    hint(answer.delivered ? `Sent ${customId} to the bot` : 'No bot is connected: nothing received it', !answer.delivered);
  } catch (error) {
    hint(messageOf(error), true);
  }
}

function componentRow(message: PictureMessage, row: PictureRow): HTMLElement {
  return h(
    'div',
    { class: 'row' },
    (row.components ?? []).map((c) => {
      if (c.type === Component.Button) {
        if (c.style === LINK && c.url) return h('a', { href: c.url, rel: 'noreferrer noopener', target: '_blank', text: c.label ?? c.url });
        const onclick = () => void click(message, c.custom_id);
        return h('button', { type: 'button', class: BUTTON_CLASS[c.style ?? 0] ?? '', disabled: c.disabled, text: c.label ?? c.custom_id, onclick });
      }
      if (c.type === Component.Select) {
        const label = c.placeholder ?? 'Choose';
        const onchange = (event: Event) => {
          const value = event.target instanceof HTMLSelectElement ? event.target.value : '';
          if (value) void click(message, c.custom_id, [value]);
        };
        return h(
          'label',
          {},
          h('span', { class: 'sr', text: label }),
          h(
            'select',
            { 'aria-label': label, onchange },
            h('option', { value: '', text: label }),
            (c.options ?? []).map((o) => h('option', { value: o.value, text: o.label })),
          ),
        );
      }
      return null;
    }),
  );
}

function verb(interaction: PictureInteraction): string {
  if (interaction.type === InteractionKind.Command) return ' used /';
  return interaction.type === InteractionKind.Component ? ' clicked ' : ' submitted ';
}

function messageItem(picture: Picture, message: PictureMessage): HTMLElement {
  const interaction = message.interactionId === undefined ? undefined : picture.interactions.find((i) => i.id === message.interactionId);
  const tag = message.author.kind === 'bot' ? h('span', { class: 'tag', text: 'BOT' }) : h('span', { class: 'tag hook', text: 'WEBHOOK' });
  return h(
    'li',
    { class: 'msg', 'data-key': message.id },
    interaction ? h('div', { class: 'ctx', text: (interaction.user ?? 'someone') + verb(interaction) + interaction.label }) : null,
    h('div', { class: 'meta' }, h('span', { class: 'author', text: message.author.name }), tag, h('time', { text: timeOf(message.createdAt) })),
    h('div', { class: 'content', text: message.content }),
    message.visibleTo === undefined
      ? null
      : h('div', {
          class: 'ephemeral muted',
          text: `Only ${picture.users.find((user) => user.id === message.visibleTo)?.username ?? message.visibleTo} can see this (ephemeral)`,
        }),
    message.components?.length
      ? h(
          'div',
          { class: 'components' },
          message.components.map((row) => componentRow(message, row)),
        )
      : null,
  );
}

function thinkingItem(interaction: PictureInteraction, botName: string): HTMLElement {
  return h(
    'li',
    { class: 'msg thinking', 'data-key': `thinking:${interaction.id}` },
    h('div', { class: 'ctx', text: `${interaction.user ?? 'someone'} used /${interaction.label}` }),
    h('div', { class: 'meta' }, h('span', { class: 'author', text: botName }), h('span', { class: 'tag', text: 'BOT' })),
    h('div', { class: 'content', text: `${botName} is thinking…` }),
  );
}

/** What is shown per message and channel, with the picture it was drawn from. */
const rendered = new Map<string, { el: HTMLElement; sig: string }>();

/** The channel's messages and the bot's pending "thinking" lines, in time order, redrawn only where they changed. */
export function renderMessages(picture: Picture): void {
  const list = byId('message-list');
  const box = byId('messages');
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  const botName = app(picture)?.bot.username ?? 'bot';
  const items = (picture.messages[ui.channelId ?? ''] ?? []).map((m) => ({
    at: m.createdAt,
    key: m.id,
    sig: JSON.stringify(m) + JSON.stringify(picture.interactions.find((i) => i.id === m.interactionId) ?? ''),
    make: () => messageItem(picture, m),
  }));
  for (const i of picture.interactions) {
    if (i.channelId === ui.channelId && i.status === 'thinking')
      items.push({ at: i.createdAt, key: `thinking:${i.id}`, sig: 'thinking', make: () => thinkingItem(i, botName) });
  }
  items.sort((x, y) => x.at - y.at);
  const keep = new Set(items.map((item) => `${item.key}|${ui.channelId}`));
  for (const [key, entry] of rendered) {
    if (!keep.has(key)) {
      entry.el.remove();
      rendered.delete(key);
    }
  }
  let index = 0;
  for (const item of items) {
    const key = `${item.key}|${ui.channelId}`;
    let entry = rendered.get(key);
    if (!entry || entry.sig !== item.sig) {
      const el = item.make();
      entry?.el.replaceWith(el);
      entry = { el, sig: item.sig };
      rendered.set(key, entry);
    }
    if (list.children[index] !== entry.el) list.insertBefore(entry.el, list.children[index] ?? null);
    index++;
  }
  if (items.length === 0 && !list.querySelector('.empty'))
    list.append(h('li', { class: 'msg empty muted', text: 'No messages yet. Run a command, or execute the channel webhook.' }));
  if (items.length > 0) for (const empty of list.querySelectorAll('.empty')) empty.remove();
  if (atBottom) box.scrollTop = box.scrollHeight;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The channel's activity, with a play/pause button while it runs. */
export function renderActivity(picture: Picture): void {
  const section = byId('activity');
  const activity = picture.activities[ui.channelId ?? ''];
  section.hidden = !activity;
  if (!activity) return;
  const snap = activity.last_snapshot;
  const hadFocus = section.contains(document.activeElement);
  const toggle = () => api('activity', { activityId: activity.id, paused: !activity.paused }).catch((error: unknown) => hint(messageOf(error), true));
  section.replaceChildren(
    h('strong', { text: activity.title ?? activity.kind ?? 'Activity' }),
    h('span', { text: activity.ended ? 'ended' : activity.paused ? 'paused' : 'playing' }),
    h('span', { text: `position ${seconds(activity.position_ms)}` }),
    h('span', { text: `state ${JSON.stringify(activity.state)}` }),
    h('span', { class: 'muted', text: `participants: ${activity.participants.join(', ') || 'none'}` }),
    h('span', {
      class: 'muted',
      text: snap
        ? `latest snapshot ${timeOf(Date.parse(snap.taken_at))}: ${snap.paused ? 'paused' : 'playing'} at ${seconds(snap.position_ms)}`
        : 'no snapshot yet',
    }),
    ...(activity.ended ? [] : [h('button', { type: 'button', id: 'play-pause', text: activity.paused ? 'Play' : 'Pause', onclick: () => void toggle() })]),
  );
  if (hadFocus) maybeById('play-pause')?.focus();
}

/** The bot's status, commands, webhooks, deliveries, fault knobs and the emulator's clock. */
export function renderSide(p: Picture): void {
  const bot = byId('bot-status');
  const on = p.bot.sessions > 0;
  bot.textContent = on ? `Bot: connected${p.bot.sessions > 1 ? ` (${p.bot.sessions} sessions)` : ''}` : 'Bot: disconnected';
  bot.className = `pill ${on ? 'on' : 'off'}`;
  const list = commands(p);
  byId('commands').replaceChildren(
    ...(list.length
      ? list.map((c) => h('li', {}, h('code', { text: `/${c.name}` }), ' ', h('span', { class: 'muted', text: c.description })))
      : [h('li', { class: 'muted', text: 'No command registered yet.' })]),
  );
  const hooks = p.webhooks.map((w) =>
    h('li', {}, h('strong', { text: w.name }), ` → #${channelName(p, w.channelId)?.channel.name ?? '?'} `, h('code', { text: `/webhooks/${w.id}/[redacted]` })),
  );
  for (const a of p.applications)
    for (const w of a.webhooks) hooks.push(h('li', {}, h('span', { text: `${a.name}: ` }), h('code', { text: w.url }), ` ${w.events.join(', ')}`));
  byId('webhooks').replaceChildren(...hooks);
  const deliveries = p.applications.flatMap((a) =>
    a.deliveries.map((d) =>
      h('li', { text: `${d.event ?? d.type ?? 'delivery'} → ${d.status ?? d.response_status ?? ''} ${d.delivered_at ?? d.created_at ?? ''}` }),
    ),
  );
  byId('deliveries').replaceChildren(...(deliveries.length ? deliveries : [h('li', { class: 'muted', text: 'No deliveries yet.' })]));
  if (!byId('faults').contains(document.activeElement)) {
    byId('latency', HTMLInputElement).value = String(p.faults.latencyMs);
    byId('error-rate', HTMLInputElement).value = String(Math.round(p.faults.errorRate * 100));
    byId('global-limit', HTMLInputElement).value = p.faults.globalLimit ? String(p.faults.globalLimit.limit) : '';
  }
  byId('clock').textContent = `Emulator clock: ${new Date(p.now).toLocaleString()}`;
}
