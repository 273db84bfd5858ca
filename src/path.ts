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
  secrets: readonly string[];
}

const NO_SECRETS: readonly string[] = Object.freeze([]);

const PLACEHOLDER = /\{([a-z_]+)\}/g;

/** A template split into literal text and parameter names, alternating: literal, name, literal, ... */
type CompiledTemplate = string[];
const compiled = new Map<string, CompiledTemplate>();

function compile(template: string): CompiledTemplate {
  let parts = compiled.get(template);
  if (!parts) {
    parts = [];
    let last = 0;
    for (const match of template.matchAll(PLACEHOLDER)) {
      parts.push(template.slice(last, match.index), match[1] as string);
      last = match.index + match[0].length;
    }
    parts.push(template.slice(last));
    if (compiled.size < 1000) compiled.set(template, parts);
  }
  return parts;
}

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
  const parts = compile(template);
  let issues: ValidationIssue[] | undefined;
  let secrets: string[] | undefined;
  let path = parts[0] as string;
  let displayPath = path;
  for (let i = 1; i < parts.length; i += 2) {
    const name = parts[i] as string;
    const literal = parts[i + 1] as string;
    const value = params[name];
    if (typeof value !== 'string' || value.length === 0 || value === '.' || value === '..') {
      (issues ??= []).push({
        path: name,
        message: typeof value !== 'string' ? `must be a string (got ${describeType(value)})` : value.length === 0 ? 'must not be empty' : 'must not be "." or ".."',
      });
      continue;
    }
    const encoded = encodeURIComponent(value);
    path += encoded + literal;
    if (secretParameters.length === 0) continue;
    if (secretParameters.includes(name)) {
      (secrets ??= []).push(value);
      displayPath += ':redacted' + literal;
    } else {
      displayPath += encoded + literal;
    }
  }
  if (issues) return { issues };
  // Without secret parameters the display path is the path itself: no second string is built.
  return { path, displayPath: secretParameters.length === 0 ? path : displayPath, secrets: secrets ?? NO_SECRETS };
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Builds a query string (`?a=1&b=x`) from defined values, each name and value URL-encoded; `''` when there are none. */
export function buildQuery(query: Readonly<Record<string, string | number | boolean | undefined>> | undefined): string {
  if (query === undefined) return '';
  let out = '';
  for (const key in query) {
    const value = query[key];
    if (value === undefined) continue;
    out += `${out === '' ? '?' : '&'}${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`;
  }
  return out;
}
