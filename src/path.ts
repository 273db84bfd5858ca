/**
 * The one helper that turns a route template and parameters into a path.
 *
 * Every parameter is URL-encoded as a single path segment, and secret
 * parameters are replaced by `:redacted` in the display path used by errors,
 * events and logs.
 *
 * @module
 */

import type { ValidationIssue } from './errors.js';

/** The result of {@link buildPath}. */
export interface BuiltPath {
  /** The encoded path to send. */
  path: string;
  /** The same path with secret segments replaced by `:redacted`; safe to show. */
  displayPath: string;
  /** Raw values of secret parameters, so they can be scrubbed from any text. */
  secrets: string[];
}

const PLACEHOLDER = /\{([a-z_]+)\}/g;

/**
 * Fills `template` (e.g. `/channels/{channel_id}`) from `params`.
 *
 * Returns the problems instead of a path when a parameter is missing, empty,
 * not a string, or a dot segment (`.` or `..`) that a URL parser would
 * collapse.
 */
export function buildPath(
  template: string,
  params: Readonly<Record<string, unknown>>,
  secretParameters: readonly string[] = [],
): BuiltPath | { issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const secrets: string[] = [];
  let displayPath = '';
  let path = '';
  let last = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    const name = match[1] as string;
    const value = params[name];
    const literal = template.slice(last, match.index);
    path += literal;
    displayPath += literal;
    last = match.index + match[0].length;
    if (typeof value !== 'string' || value.length === 0) {
      issues.push({ path: name, message: typeof value === 'string' ? 'must not be empty' : `must be a string (got ${describeType(value)})` });
      continue;
    }
    if (value === '.' || value === '..') {
      issues.push({ path: name, message: 'must not be "." or ".."' });
      continue;
    }
    const encoded = encodeURIComponent(value);
    path += encoded;
    if (secretParameters.includes(name)) {
      secrets.push(value);
      displayPath += ':redacted';
    } else {
      displayPath += encoded;
    }
  }
  if (issues.length > 0) return { issues };
  const tail = template.slice(last);
  return { path: path + tail, displayPath: displayPath + tail, secrets };
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
