/**
 * Reading one `Set-Cookie` header value, after RFC 6265bis section 5.4, as
 * far as the cookie jar needs: the name and value, `Max-Age`, `Expires` and
 * `Path`. It needs no HTTP stack, so the jar works on every runtime
 * (undici's parser, used before, is Node's alone: Workers have no undici).
 *
 * @module
 */

/** What the jar reads of a `Set-Cookie` header. */
export interface SetCookie {
  /** The cookie's name (may be empty, for a header without `=`). */
  name: string;
  /** The cookie's value. */
  value: string;
  /** `Max-Age`, in seconds (0 or less: expired). */
  maxAge?: number | undefined;
  /** `Expires`, epoch milliseconds. */
  expires?: number | undefined;
  /** `Path`, when it starts with `/`. */
  path?: string | undefined;
}

/** Whether `text` holds a control character other than tab: a header holding one is ignored entirely (RFC 6265bis 5.4, step 1). */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code <= 0x1f && code !== 0x09) || code === 0x7f) return true;
  }
  return false;
}
/** `Max-Age`'s only form: an optional minus and digits. */
const DELTA_SECONDS = /^-?\d+$/;

/** Parses one `Set-Cookie` header value; `undefined` for one a user agent ignores (a control character, no name and no value). */
export function parseSetCookie(header: string): SetCookie | undefined {
  if (hasControl(header)) return undefined;
  const [pair = '', ...attributes] = header.split(';');
  const equals = pair.indexOf('=');
  const name = equals === -1 ? '' : pair.slice(0, equals).trim();
  const value = (equals === -1 ? pair : pair.slice(equals + 1)).trim();
  if (name === '' && value === '') return undefined;
  const cookie: SetCookie = { name, value };
  for (const attribute of attributes) {
    const split = attribute.indexOf('=');
    const key = (split === -1 ? attribute : attribute.slice(0, split)).trim().toLowerCase();
    const argument = split === -1 ? '' : attribute.slice(split + 1).trim();
    if (key === 'max-age' && DELTA_SECONDS.test(argument)) cookie.maxAge = Number(argument);
    else if (key === 'expires') {
      const at = Date.parse(argument);
      if (!Number.isNaN(at)) cookie.expires = at;
    } else if (key === 'path') cookie.path = argument.startsWith('/') ? argument : undefined;
  }
  return cookie;
}
