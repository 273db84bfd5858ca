/**
 * The playground page's script (plain DOM, no framework), served as one
 * module, `/_playground/app.js`: it follows the emulator's event stream and
 * draws the channel, the side panel and the log; the composer, modals and
 * fault knobs act through the playground API. Type-checked with the DOM's
 * types (`tsconfig.json` here) and bundled by esbuild: at build time into
 * the package, from source on first request.
 *
 * @module
 */

import { wireComposer } from './composer.js';
import { api, byId, channelName, hint, messageOf, ui } from './dom.js';
import { appendLog, filterLog } from './log.js';
import { checkModals, wireModal } from './modal.js';
import type { LogEntry, Picture } from './picture.js';
import { renderActivity, renderMessages, renderNav, renderSide, renderUsers } from './view.js';

const FIFTEEN_MINUTES_MS = 900_000;

function render(): void {
  const picture = ui.picture;
  if (!picture) return;
  if (!ui.channelId || !channelName(picture, ui.channelId)) ui.channelId = picture.seed.channelId;
  ui.userId ??= picture.seed.userId;
  const where = channelName(picture, ui.channelId);
  byId('channel-title').textContent = `# ${where?.channel.name ?? '?'}`;
  byId('channel-sub').textContent = where?.guild.name ?? '';
  renderUsers(picture);
  renderNav(picture, (channelId) => {
    ui.channelId = channelId;
    render();
  });
  renderMessages(picture);
  renderActivity(picture);
  renderSide(picture);
  checkModals();
}

/** Runs an action of the side panel, with its outcome under the composer. */
function act(action: string, body: Record<string, unknown>, done: string): void {
  api(action, body).then(
    () => hint(done),
    (error: unknown) => hint(messageOf(error), true),
  );
}

const value = (id: string) => byId<HTMLInputElement | HTMLSelectElement>(id).value;

byId('user-select', HTMLSelectElement).addEventListener('change', (event) => {
  if (event.target instanceof HTMLSelectElement) ui.userId = event.target.value;
});
for (const id of ['show-rest', 'show-gateway', 'show-heartbeats']) byId(id).addEventListener('change', filterLog);
byId('faults').addEventListener('submit', (event) => {
  event.preventDefault();
  const limit = value('global-limit').trim();
  const body = {
    latencyMs: Number(value('latency') || 0),
    errorRate: Number(value('error-rate') || 0) / 100,
    globalLimit: limit === '' ? null : Number(limit),
  };
  act('faults', body, 'Faults applied');
});
byId('next-fault').addEventListener('submit', (event) => {
  event.preventDefault();
  const status = value('fault-status');
  const operation = value('fault-operation').trim() || '*';
  const times = Number(value('fault-times') || 1);
  const body = status === 'reset' ? { operation, times, reset: true } : { operation, times, status: Number(status) };
  act('fault', body, `The next ${times} call(s) of ${operation === '*' ? 'any operation' : operation} will answer ${status}`);
});
byId('drop').addEventListener('click', () => act('drop', {}, 'Gateway connections dropped: the bot should reconnect'));
byId('advance').addEventListener('click', () => act('advance', { ms: FIFTEEN_MINUTES_MS }, 'Clock advanced by 15 minutes'));
wireModal();
wireComposer();

const events = new EventSource('/_playground/events');
events.addEventListener('state', (event) => {
  ui.picture = JSON.parse(event.data) as Picture;
  render();
  document.body.dataset['ready'] = 'true';
});
events.addEventListener('backlog', (event) => {
  byId('log').replaceChildren();
  appendLog(JSON.parse(event.data) as LogEntry[]);
});
events.addEventListener('log', (event) => appendLog(JSON.parse(event.data) as LogEntry[]));
events.addEventListener('error', () => {
  const status = byId('bot-status');
  status.textContent = 'Playground: reconnecting to the emulator…';
  status.className = 'pill off';
});
