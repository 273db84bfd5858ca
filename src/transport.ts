/**
 * `community-chat-sdk/transport`: for writing or wrapping a custom HTTP
 * transport. Pass one as `new Client({ transport })`.
 *
 * A transport sends one request and resolves with the response, or rejects
 * with a {@link TransportFailure} that says whether the request may have
 * reached the server: the SDK's retry decision depends on it (a POST is
 * retried only when it provably was not sent). An upload's body reaches the
 * transport as a {@link MultipartBody}.
 *
 * @packageDocumentation
 */

export { TransportFailure } from './errors/transport.js';
export type { Transport, TransportRequest, TransportResponse, TransportSignal } from './rest/transport.js';
export { FetchTransport } from './rest/fetch-transport.js';
export { UndiciTransport, type UndiciTransportOptions } from './rest/undici-transport.js';
export { MultipartBody, type MultipartFileSource, type MultipartFilePart, type MultipartTextPart } from './rest/multipart.js';
