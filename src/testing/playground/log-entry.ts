/**
 * One line of the playground page's log: written by the hub, read by the
 * page's script (`browser/`), so it holds no Node type.
 *
 * @module
 */

/** One line of the page's log. */
export type LogEntry =
  | { kind: 'rest'; method: string; route: string; status: number; ms: number; bucket: string | null; at: number }
  | { kind: 'gateway'; dir: 'in' | 'out' | 'open' | 'close'; op: number | null; t: string | null; text: string; at: number };
