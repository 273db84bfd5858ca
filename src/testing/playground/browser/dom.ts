/**
 * The page's small tools: elements by id (checked against the kind the
 * page expects), an element builder, the playground API, the hint line,
 * and the page's state.
 *
 * @module
 */

import type { Picture } from './picture.js';

/** The page's state: the latest picture, where the person is, and what they started. */
export const ui: {
  picture: Picture | null;
  channelId: string | null;
  userId: string | null;
  /** Interactions this page started (a modal the bot opens for one of them opens here). */
  mine: Set<string>;
  /** Modals already shown. */
  modalsShown: Set<string>;
} = { picture: null, channelId: null, userId: null, mine: new Set(), modalsShown: new Set() };

/** The element with this id, of this kind; throws when the page has none (a broken page, not a user's error). */
export function byId<T extends HTMLElement = HTMLElement>(id: string, kind?: new () => T): T {
  const element = document.getElementById(id);
  if (element === null || !(element instanceof (kind ?? HTMLElement))) throw new Error(`the page has no ${kind?.name ?? 'element'} #${id}`);
  return element as T;
}

/** The element with this id, if the page has one now. */
export const maybeById = (id: string): HTMLElement | null => document.getElementById(id);

/** Attributes and listeners for {@link h}: `on<event>` adds a listener, `text` sets the text, false or nullish skips. */
export type Attributes = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

/** A child of {@link h}: nodes and text; nullish and false are skipped, arrays flattened. */
export type Child = Node | string | number | null | undefined | false | readonly Child[];

/** Builds an element. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'text') el.textContent = String(value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  const append = (child: Child): void => {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) for (const item of child as readonly Child[]) append(item);
    else el.append(child instanceof Node ? child : String(child));
  };
  for (const child of children) append(child);
  return el;
}

/** Calls the playground API; a refusal becomes an error with the server's reason. */
export async function api<T = Record<string, unknown>>(action: string, body: Record<string, unknown> = {}): Promise<T> {
  const response = await fetch(`/_playground/api/${action}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-playground': '1' },
    body: JSON.stringify(body),
  });
  const answer = (await response.json().catch(() => ({}))) as { error?: string };
  if (!response.ok) throw new Error(answer.error ?? `HTTP ${response.status}`);
  return answer as T;
}

/** The message of anything thrown. */
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Shows a line under the composer (an error in red). */
export function hint(text: string, isError = false): void {
  const el = byId('composer-hint');
  el.textContent = text;
  el.classList.toggle('error', isError);
}

/** A time of day, with seconds. */
export const timeOf = (ms: number): string => new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** The seed's application, or the first. */
export function app(picture: Picture) {
  return picture.applications.find((a) => a.id === picture.seed.applicationId) ?? picture.applications[0];
}

/** A channel and its community, by channel id. */
export function channelName(picture: Picture, id: string | null) {
  for (const guild of picture.guilds) for (const channel of guild.channels) if (channel.id === id) return { guild, channel };
  return null;
}

/** Every application's commands. */
export const commands = (picture: Picture) => picture.applications.flatMap((a) => a.commands);
