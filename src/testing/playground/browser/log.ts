/**
 * The side panel's log of REST calls and Gateway traffic, filtered by kind
 * and bounded to its newest 300 lines.
 *
 * @module
 */

import { byId, h } from './dom.js';
import type { LogEntry } from './picture.js';

const KEEP = 300;
const ARROWS = { in: '→ bot to emulator', out: '← emulator to bot', open: 'connection opened', close: 'connection closed' } as const;
const HEARTBEAT = 1;
const HEARTBEAT_ACK = 11;

function logItem(entry: LogEntry): HTMLElement {
  if (entry.kind === 'rest') {
    return h(
      'li',
      { 'data-kind': 'rest' },
      h('span', { class: 'k', text: 'REST ' }),
      `${entry.method} ${entry.route} `,
      h('span', { class: entry.status >= 400 ? 'bad' : 'good', text: String(entry.status) }),
      ` ${entry.ms} ms${entry.bucket ? ` bucket ${entry.bucket}` : ''}`,
    );
  }
  const beat = entry.op === HEARTBEAT || entry.op === HEARTBEAT_ACK;
  return h(
    'li',
    { 'data-kind': beat ? 'heartbeat' : 'gateway' },
    h('span', { class: 'k', text: 'GW ' }),
    `${ARROWS[entry.dir]} `,
    entry.op !== null ? `op ${entry.op} ` : '',
    entry.t ? h('strong', { text: `${entry.t} ` }) : '',
    h('span', { class: 'muted', text: entry.text }),
  );
}

/** Shows and hides lines by the checked kinds. */
export function filterLog(): void {
  const checked = (id: string) => byId(id, HTMLInputElement).checked;
  const show: Record<string, boolean> = {
    rest: checked('show-rest'),
    gateway: checked('show-gateway'),
    heartbeat: checked('show-gateway') && checked('show-heartbeats'),
  };
  for (const li of byId('log').children) if (li instanceof HTMLElement) li.hidden = !show[li.dataset['kind'] ?? ''];
}

/** Appends lines, keeping the view at the bottom when it was there. */
export function appendLog(entries: LogEntry[]): void {
  const log = byId('log');
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 30;
  log.append(...entries.map(logItem));
  while (log.children.length > KEEP) log.firstElementChild?.remove();
  filterLog();
  if (atBottom) log.scrollTop = log.scrollHeight;
}
