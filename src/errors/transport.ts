/**
 * The errors of sending a request's bytes: a transport's failure to get a response (`TransportFailure`, what a custom
 * transport rejects with), and an upload body that cannot be sent (`MultipartStreamError`). Here, beside the other error
 * classes, so that `isCommunityChatError` knows them and any copy of the package recognises them.
 *
 * @module
 */

import { CommunityChatError, hasKind, brand } from './base.js';

/** Why a request produced no response. */
export class TransportFailure extends CommunityChatError {
  /** `network`: the connection failed; `aborted`: the signal fired; `tooLarge`: the body exceeded `maxResponseBytes`. */
  readonly kind: 'network' | 'aborted' | 'tooLarge';
  /** Whether the request may have reached the server. `false` only when that is provably not the case. */
  readonly mayHaveReachedServer: boolean;
  /** A short, secret-free description, e.g. `ECONNREFUSED`. */
  readonly detail: string;

  constructor(kind: 'network' | 'aborted' | 'tooLarge', detail: string, mayHaveReachedServer: boolean, cause: unknown) {
    super(detail, { cause });
    this.name = 'TransportFailure';
    this.kind = kind;
    this.detail = detail;
    this.mayHaveReachedServer = mayHaveReachedServer;
  }
}

/** Whether `value` is a {@link TransportFailure}, from any copy of the package (a transport built on another copy's class). */
export function isTransportFailure(value: unknown): value is TransportFailure {
  return hasKind(value, 'TransportFailure');
}

/** Why an encoded body cannot be sent: a one-shot stream already read, or a stream whose length differs from its declared size. */
export class MultipartStreamError extends CommunityChatError {
  /** `ERR_UPLOAD_STREAM_CONSUMED` or `ERR_UPLOAD_SIZE_MISMATCH`. */
  readonly code: 'ERR_UPLOAD_STREAM_CONSUMED' | 'ERR_UPLOAD_SIZE_MISMATCH';

  constructor(code: MultipartStreamError['code'], message: string) {
    super(message);
    this.name = 'MultipartStreamError';
    this.code = code;
  }

  /** The first `MultipartStreamError` in an error's cause chain (as the HTTP client wraps it), if any. */
  static find(error: unknown): MultipartStreamError | undefined {
    let current: unknown = error;
    for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
      if (hasKind(current, 'MultipartStreamError')) return current as MultipartStreamError;
      current = (current as { cause?: unknown }).cause;
    }
    return undefined;
  }
}

brand({ TransportFailure, MultipartStreamError });
