/**
 * The one helper that turns a route template and parameters into a path.
 *
 * Every parameter is URL-encoded as a single path segment, and secret
 * parameters are replaced by `:redacted` in the display path used by errors,
 * events and logs.
 *
 * @module
 */

import type { ValidationIssue } from '../errors/index.js';

/** The result of {@link buildPath}. */
interface BuiltPath {
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
        message:
          typeof value !== 'string' ? `must be a string (got ${describeType(value)})` : value.length === 0 ? 'must not be empty' : 'must not be "." or ".."',
      });
      continue;
    }
    let encoded: string;
    try {
      encoded = encodeURIComponent(value);
    } catch {
      (issues ??= []).push({ path: name, message: LONE_SURROGATE });
      continue;
    }
    path += encoded + literal;
    if (secretParameters.length === 0) continue;
    if (secretParameters.includes(name)) {
      (secrets ??= []).push(value);
      displayPath += `:redacted${literal}`;
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

/** Whether `text` can be URL-encoded (holds no lone surrogate). */
function encodable(text: string): boolean {
  try {
    encodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

const LONE_SURROGATE = 'must be well-formed Unicode (it contains a lone surrogate, which cannot be URL-encoded)';

/**
 * Builds a query string (`?a=1&b=x`) from defined values, each name and value
 * URL-encoded; `''` when there are none. Returns the problems instead when a
 * name or value cannot be encoded.
 */
export function buildQuery(query: Readonly<Record<string, string | number | boolean | undefined>> | undefined): string | { issues: ValidationIssue[] } {
  if (query === undefined) return '';
  let out = '';
  for (const key in query) {
    const value = query[key];
    if (value === undefined) continue;
    try {
      out += `${out === '' ? '?' : '&'}${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`;
    } catch {
      return { issues: [{ path: `query.${encodable(key) ? key : '(name)'}`, message: LONE_SURROGATE }] };
    }
  }
  return out;
}

/**
 * Checks a hand-written route template for the escape hatch: it must start
 * with `/`, carry no query or fragment, and have no segment that is, or
 * decodes to, `.` or `..` or a segment holding `/` or `\` (`%2e%2e`, `%2f`),
 * which a server would resolve into another route. Returns why not, or
 * `undefined` when it is fine.
 */
export function checkRouteTemplate(template: unknown): string | undefined {
  const problem = 'must start with "/" and contain no "." or ".." segments (encoded or not), "?" or "#"; pass query parameters in `query`';
  if (typeof template !== 'string' || !template.startsWith('/') || /[?#]/.test(template)) return problem;
  for (const segment of template.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return `${problem} (a segment is not valid percent-encoding)`;
    }
    if (decoded === '.' || decoded === '..' || (decoded !== segment && /[\\/]/.test(decoded)) || segment.includes('\\')) return problem;
  }
  return undefined;
}

/**
 * Checks per-call request headers before any I/O: names must be HTTP tokens,
 * values must hold no CR, LF or NUL (header injection). Returns the problems.
 */
export function checkHeaders(headers: Readonly<Record<string, unknown>>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const name in headers) {
    const value = headers[name];
    // Shown escaped, so a hostile name cannot put control characters into the error message.
    const shown = encodable(name) ? JSON.stringify(name.slice(0, 64)).slice(1, -1) : '(name)';
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) issues.push({ path: `headers.${shown}`, message: 'is not a valid header name' });
    else if (typeof value !== 'string') issues.push({ path: `headers.${shown}`, message: `must be a string (got ${describeType(value)})` });
    else if (/[\r\n\0]/.test(value)) issues.push({ path: `headers.${shown}`, message: 'must not contain CR, LF or NUL characters' });
  }
  return issues;
}
